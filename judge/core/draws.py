"""Draw and concession votes: parsing and evaluation for every voting mode (pure).

The shell stores the votes of the current phase and calls one function here each time a vote
is cast and again at phase end; a result of kind ``draw`` or ``concession`` ends the game.
Nothing here knows about mail or the store: frozen values in, frozen values out,
deterministic, and independent of the order in which powers are listed or voted.

Modes (:func:`draw_mode`)
-------------------------
``DIAS`` (default)
    ``SET DRAW`` approves a draw of all survivors; :func:`evaluate_dias` passes it when every
    survivor approves.
``NODIAS`` (the master's ``SET NODIAS``)
    ``SET DRAW <list>``; :func:`evaluate_nodias` is the closed form of the Judge's rule (GET
    DRAWS), cross-checked
    by tests against the brute force :func:`approved_draws`.  Voter x approves a non-empty
    draw D iff D ⊆ L(x) ∪ {x}, and x ∈ D when x ∈ L(x) ("insisting").  No vote or ``SET
    NODRAW`` means L(x) = {x}.  The approved draws are exactly the sets D with
    I ⊆ D ⊆ U (I the insisting survivors, U = survivors ∩ ⋂(L(x) ∪ {x})), an interval closed
    under union: when any draw is approved, U itself is, and it is the unique largest.  Ties
    between largest draws are therefore impossible.
``PROPOSE_DIAS`` (DPjudge rule)
    One proposal at a time (:func:`make_proposal`, :func:`evaluate_proposal`).
``NO_DIAS`` (DPjudge rule)
    ``VOTE SOLO | LOSS | <n>`` (:func:`parse_no_dias_vote`, :func:`evaluate_no_dias`).

Concessions (``SET CONCEDE <power>``) are evaluated by :func:`evaluate_concession` in DIAS and
NODIAS games.

Decisions where the Judge's draw rules are silent
------------------------------------
* Votes of non-survivors are ignored; only survivors count.  No survivors: nothing passes.
* A result with a single member is always a ``concession``, whatever produced it.
* DIAS with a single survivor needs that survivor's ``SET DRAW`` (the rule says "every
  survivor"); NoDIAS and concession votes with a single survivor pass at once (vacuously, by
  their rules).
* NoDIAS: powers in a list that are not survivors simply cannot be in the draw (the parser
  refuses them anyway); an empty list behaves like ``SET NODRAW``.
* Concession: passes to P when every other survivor concedes to P **and P has not itself
  conceded to another power**.  Without that second condition two survivors conceding to
  each other would both "win".  A concession to oneself is accepted and counts as no
  concession vote.
* PROPOSE_DIAS: a proposal is refused while another is pending (not yet passed or rejected);
  after a rejection a new proposal may be made in the same phase.  Only a survivor proposes,
  and a concession only to a survivor (the proposer may propose a concession to himself).
  The proposer does not answer (his proposal is his YES); every other survivor answers,
  including the power a concession would go to.  Answers by the proposer or non-survivors
  are ignored; the last answer of a survivor counts.  One NO rejects, all YES pass.
* NO_DIAS: nothing passes until every survivor has voted.  The result must contain every
  SOLO or number voter and no LOSS voter, so it can only be R = survivors − LOSS voters.  It
  passes when each member's limit allows |R| (SOLO is a limit of 1, the same as ``VOTE 1``);
  a single member gets a concession (so ``VOTE 3`` accepts a concession to oneself).  When
  everybody votes LOSS, R would be empty and DPjudge's rule applies: a draw of all
  survivors.  ``VOTE <n>`` takes 1 ≤ n ≤ number of powers in the variant.
* :attr:`Outcome.reason` never reveals an individual vote (votes are secret): it may be
  shown to any player.
* Mode: the game rules PROPOSE_DIAS / NO_DIAS win over the master's DIAS/NODIAS flag, which
  only chooses between DIAS and NODIAS.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from judge.core.powers import PowerNameError, PowerNames, find_power, find_powers

STANDARD_POWERS: tuple[str, ...] = (
    "AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")

Mode = Literal["DIAS", "NODIAS", "PROPOSE_DIAS", "NO_DIAS"]
OutcomeKind = Literal["none", "draw", "concession", "pending", "rejected"]


@dataclass(frozen=True, slots=True)
class VoteError:
    """A vote that cannot be accepted; ``message`` is one line for the player."""

    message: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """The state of the voting: ``members`` is sorted and empty unless the game ends."""

    kind: OutcomeKind
    members: tuple[str, ...] = ()
    reason: str = ""

    @property
    def ends_game(self) -> bool:
        return self.kind in ("draw", "concession")


def _ending(members: Iterable[str], reason: str) -> Outcome:
    ordered = tuple(sorted(members))
    if len(ordered) == 1:
        return Outcome("concession", ordered, reason or f"a concession to {ordered[0]}")
    return Outcome("draw", ordered, reason or f"a {len(ordered)}-way draw")


def _none(reason: str) -> Outcome:
    return Outcome("none", (), reason)


# --------------------------------------------------------------------------------- parsing

def _table(all_powers: Iterable[str] | PowerNames) -> PowerNames:
    return all_powers if isinstance(all_powers, PowerNames) else PowerNames.of_names(all_powers)


def _lookup_tokens(text: str, table: PowerNames) -> list[str] | VoteError:
    """Powers named in ``text`` in the order written (duplicates kept): the shared reader of
    power lists (:func:`judge.core.powers.find_powers`)."""
    found = find_powers(table, text)
    if isinstance(found, PowerNameError):
        return VoteError(found.message)
    return found


def parse_power_list(text: str, survivors: Iterable[str],
                     all_powers: Iterable[str] | PowerNames = STANDARD_POWERS
                     ) -> frozenset[str] | VoteError:
    """The powers of a ``SET DRAW`` list: ``AEF``, ``A E F``, ``A,E,F``, ``Austria England``
    (with a map's :class:`PowerNames`, adjectives too: ``French German``).

    Case does not matter and the forms may be mixed.  Errors (returned, not raised): an empty
    list, an unknown power, a power that is not a survivor, a power named twice.
    """
    alive = frozenset(survivors)
    found = _lookup_tokens(text, _table(all_powers))
    if isinstance(found, VoteError):
        return found
    if not found:
        return VoteError("the list of powers is empty: name the powers of the draw, "
                         "e.g. SET DRAW AEF")
    seen: set[str] = set()
    for power in found:
        if power in seen:
            return VoteError(f"{power.capitalize()} is named twice in the list")
        seen.add(power)
    gone = sorted(p for p in seen if p not in alive)
    if gone:
        names = ", ".join(p.capitalize() for p in gone)
        verb = "has" if len(gone) == 1 else "have"
        return VoteError(f"{names} {verb} been eliminated and cannot be in a draw")
    return frozenset(seen)


def parse_power(text: str, survivors: Iterable[str],
                all_powers: Iterable[str] | PowerNames = STANDARD_POWERS) -> str | VoteError:
    """Exactly one surviving power (``F``, ``France``, ``French``, ``Fra``): for concessions.
    The same reader as every command naming one power (:func:`judge.core.powers.find_power`).
    """
    if not text.strip():
        return VoteError("name the power, e.g. SET CONCEDE F")
    found = find_power(_table(all_powers), text)
    if isinstance(found, PowerNameError):
        return VoteError(found.message)
    if found not in frozenset(survivors):
        return VoteError(f"{found.capitalize()} has been eliminated")
    return found


@dataclass(frozen=True, slots=True)
class NoDiasVote:
    """A NO_DIAS vote: ``limit`` is the largest result accepted (SOLO is 1), None for LOSS."""

    limit: int | None

    @property
    def loss(self) -> bool:
        return self.limit is None

    def text(self) -> str:
        if self.limit is None:
            return "LOSS"
        return "SOLO" if self.limit == 1 else str(self.limit)


def parse_no_dias_vote(text: str,
                       all_powers: Iterable[str] = STANDARD_POWERS) -> NoDiasVote | VoteError:
    """``SOLO``, ``LOSS`` or a number 1..len(all_powers) (what follows ``VOTE``)."""
    word = text.strip().upper()
    most = len(tuple(all_powers))
    if word == "SOLO":
        return NoDiasVote(1)
    if word == "LOSS":
        return NoDiasVote(None)
    if word.isdigit():
        n = int(word)
        if n == 0:
            return VoteError("VOTE 0 is not a draw size; to accept any result without "
                             "you, send VOTE LOSS")
        if n > most:
            return VoteError(f"VOTE {n}: a draw has at most {most} powers")
        return NoDiasVote(n)
    return VoteError(f'"{text.strip()}" is not a vote: send VOTE SOLO, VOTE LOSS or '
                     f"VOTE <n> (the largest draw you accept, you included)")


# ---------------------------------------------------------------------------------- modes


def draw_mode(rules: Iterable[str] = (), nodias: bool = False) -> Mode:
    """The voting mode of a game from its rules and the master's SET DIAS/NODIAS flag."""
    chosen = {r.upper() for r in rules} & {"PROPOSE_DIAS", "NO_DIAS"}
    if len(chosen) > 1:
        raise ValueError("the rules PROPOSE_DIAS and NO_DIAS conflict")
    if chosen:
        return "PROPOSE_DIAS" if "PROPOSE_DIAS" in chosen else "NO_DIAS"
    return "NODIAS" if nodias else "DIAS"


# ----------------------------------------------------------------------------------- DIAS


def evaluate_dias(survivors: Iterable[str], approvals: Iterable[str]) -> Outcome:
    """A draw of all survivors iff every survivor has sent SET DRAW."""
    alive = frozenset(survivors)
    if not alive:
        return _none("there are no survivors")
    if alive <= frozenset(approvals):
        return _ending(alive, "every survivor accepts a draw of all survivors")
    return _none("not every survivor accepts a draw")


# --------------------------------------------------------------------------------- NoDIAS


def _allowed(power: str, lists: Mapping[str, frozenset[str] | None]) -> tuple[frozenset[str],
                                                                              bool]:
    """(L(x) ∪ {x}, insisting) for survivor ``power``."""
    listed = lists.get(power)
    if listed is None:  # no vote or SET NODRAW: L(x) = {x}
        return frozenset({power}), True
    return frozenset(listed) | {power}, power in listed


def evaluate_nodias(survivors: Iterable[str],
                    lists: Mapping[str, frozenset[str] | None]) -> Outcome:
    """The Judge's NoDIAS rule in closed form (the GET DRAWS help text states it)."""
    alive = frozenset(survivors)
    if not alive:
        return _none("there are no survivors")
    common = alive
    insisting: set[str] = set()
    for power in alive:
        allowed, insists = _allowed(power, lists)
        common &= allowed
        if insists:
            insisting.add(power)
    if not common:
        return _none("no draw is approved by every survivor")
    if not insisting <= common:
        return _none("no draw is approved by every survivor")
    return _ending(common, "")


def approves(power: str, listed: frozenset[str] | None, draw: frozenset[str]) -> bool:
    """Whether ``power``, having voted ``listed`` (None: NODRAW/no vote), approves ``draw``."""
    allowed, insists = _allowed(power, {power: listed})
    return bool(draw) and draw <= allowed and (power in draw or not insists)


def approved_draws(survivors: Iterable[str],
                   lists: Mapping[str, frozenset[str] | None]) -> tuple[tuple[str, ...], ...]:
    """Brute force reference for tests: every non-empty draw all survivors approve.

    Largest first, then alphabetical; the first (if any) is what should pass.
    """
    alive = sorted(frozenset(survivors))
    found = []
    for size in range(len(alive), 0, -1):
        for members in combinations(alive, size):
            draw = frozenset(members)
            if all(approves(p, lists.get(p), draw) for p in alive):
                found.append(members)
    return tuple(found)


# ---------------------------------------------------------------------------- concessions


def evaluate_concession(survivors: Iterable[str],
                        concessions: Mapping[str, str | None]) -> Outcome:
    """A concession to P when every other survivor concedes to P and P concedes to no other."""
    alive = frozenset(survivors)
    if not alive:
        return _none("there are no survivors")
    for winner in sorted(alive):
        own = concessions.get(winner)
        if own is not None and own != winner:
            continue
        if all(concessions.get(p) == winner for p in alive if p != winner):
            return _ending({winner}, f"every other survivor concedes to {winner}")
    return _none("the survivors do not all concede to the same power")


# --------------------------------------------------------------------------- PROPOSE_DIAS


@dataclass(frozen=True, slots=True)
class Proposal:
    """``PROPOSE DIAS`` (kind "dias", target None) or ``PROPOSE CONCEDE <target>``."""

    kind: Literal["dias", "concede"]
    proposer: str
    target: str | None = None

    def result(self, survivors: Iterable[str]) -> frozenset[str]:
        if self.kind == "concede":
            assert self.target is not None
            return frozenset({self.target})
        return frozenset(survivors)

    def text(self) -> str:
        return "DIAS" if self.kind == "dias" else f"CONCEDE {self.target}"


def make_proposal(survivors: Iterable[str], proposer: str, kind: Literal["dias", "concede"],
                  target: str | None = None, *, current: Outcome | None = None
                  ) -> Proposal | VoteError:
    """Validate a new proposal; ``current`` is the evaluation of the one already made, if any."""
    alive = frozenset(survivors)
    if current is not None and current.kind == "pending":
        return VoteError("a proposal is already waiting for answers; a new one can be "
                         "made once it has passed or been rejected")
    if proposer not in alive:
        return VoteError("only a survivor can make a proposal")
    if kind == "dias":
        if target is not None:
            return VoteError("PROPOSE DIAS takes no power")
        return Proposal("dias", proposer, None)
    if kind != "concede":
        return VoteError("propose DIAS or CONCEDE <power>")
    if target is None:
        return VoteError("name the power to concede to, e.g. PROPOSE CONCEDE F")
    if target not in alive:
        return VoteError(f"{target.capitalize()} is not a survivor; a concession can only "
                         f"go to a survivor")
    return Proposal("concede", proposer, target)


def evaluate_proposal(survivors: Iterable[str], proposal: Proposal | None,
                      answers: Mapping[str, bool]) -> Outcome:
    """``pending`` until every other survivor answers; one NO: ``rejected``; all YES: ends."""
    alive = frozenset(survivors)
    if proposal is None:
        return _none("there is no proposal")
    if proposal.proposer not in alive or (
            proposal.kind == "concede" and proposal.target not in alive):
        return Outcome("rejected", (), "the proposal lapsed: a power it names is gone")
    voters = alive - {proposal.proposer}
    said = {p: answers[p] for p in voters if p in answers}
    if any(v is False for v in said.values()):
        return Outcome("rejected", (), f"the proposal {proposal.text()} was rejected")
    if len(said) < len(voters):
        return Outcome("pending", (), f"the proposal {proposal.text()} awaits answers")
    return _ending(proposal.result(alive),
                   f"every survivor accepted the proposal {proposal.text()}")


# -------------------------------------------------------------------------------- NO_DIAS


def evaluate_no_dias(survivors: Iterable[str], votes: Mapping[str, NoDiasVote]) -> Outcome:
    """DPjudge NO_DIAS: R = survivors − LOSS voters, if every member's limit allows |R|."""
    alive = frozenset(survivors)
    if not alive:
        return _none("there are no survivors")
    if not alive <= votes.keys():
        return _none("not every survivor has voted")
    result = frozenset(p for p in alive if not votes[p].loss)
    if not result:
        return _ending(alive, "every survivor voted for a result without itself")
    size = len(result)
    if all(size <= (votes[p].limit or 0) for p in result):
        return _ending(result, "")
    return _none("no result fits every vote")
