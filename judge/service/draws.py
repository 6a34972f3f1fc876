"""Draw and concession votes over the store: cast, withdraw, evaluate, end the game.

The rules are the core's (:mod:`judge.core.draws`); this module keeps the votes of the
current phase in ``draw_votes``, asks the core after every vote (and once more at phase end,
before the votes are cleared) whether the game ends, and if it does, ends it: state
``finished``, the clock stopped, the result recorded, a :class:`GameEnded` event for everyone.

Refusals raise :class:`GameError` and change nothing, so an error keeps the previous vote.
Who may vote (a survivor's player, never the master or an observer) is checked by the
command handlers; that the power is still a survivor is checked here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.core import Position, load_map
from judge.core import draws as core
from judge.core.powers import PowerNames
from judge.service.clock import game_clock as clock
from judge.service.formal import state as formal_state
from judge.service.errors import GameError
from judge.service.events import Event, GameEnded, GameResumed
from judge.service.games import audience, notice, rules_of, variant_title
from judge.service.positions import final_centres, load_position
from judge.service.game_results import record_result, result_of, clear_result
from judge.store.models import DrawVote, Game, GameState

RUNNING = (GameState.ACTIVE, GameState.PAUSED)
MODE_NAMES = {"DIAS": "DIAS", "NODIAS": "NoDIAS", "PROPOSE_DIAS": "PROPOSE_DIAS",
              "NO_DIAS": "NO_DIAS"}


@dataclass
class VoteOutcome:
    """What a vote did, as data: ``kind`` names the template that words the reply
    (templates/votes/<kind>.txt) and ``facts`` are its values; ``events`` are the
    announcements it caused (the game's end, a proposal told to the others)."""

    kind: str
    facts: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)

    @property
    def ended(self) -> GameEnded | None:
        """The game's end, when this vote passed."""
        return next((e for e in self.events if isinstance(e, GameEnded)), None)


# --------------------------------------------------------------------------- lookups

def mode_of(game: Game) -> core.Mode:
    return core.draw_mode(rules_of(game), game.nodias)


def mode_name(game: Game) -> str:
    return MODE_NAMES[mode_of(game)]


def _position(game: Game) -> Position:
    return load_position(game.variant, game.position)


def survivors(game: Game) -> tuple[str, ...]:
    return _position(game).survivors()


def _powers(game: Game) -> tuple[str, ...]:
    return tuple(load_map(game.variant).powers)


def _spellings(game: Game) -> PowerNames:
    """How the game's powers may be named (initials, names, adjectives: the map's)."""
    return PowerNames.of_map(load_map(game.variant))


def _rows(session: Session, game: Game, kind: str | None = None) -> list[DrawVote]:
    q = select(DrawVote).where(DrawVote.game_id == game.id)
    if kind:
        q = q.where(DrawVote.kind == kind)
    return list(session.scalars(q.order_by(DrawVote.power, DrawVote.kind)))


def _row(session: Session, game: Game, power: str, kind: str) -> DrawVote | None:
    return session.get(DrawVote, (game.id, power, kind))


def _put(session: Session, game: Game, power: str, kind: str, value: str,
         now: datetime) -> None:
    row = _row(session, game, power, kind)
    if row is None:
        session.add(DrawVote(game_id=game.id, power=power, kind=kind, value=value, cast_at=now))
    else:
        row.value, row.cast_at = value, now
    session.flush()


def _drop(session: Session, game: Game, power: str | None, kind: str) -> bool:
    rows = [r for r in _rows(session, game, kind) if power is None or r.power == power]
    for r in rows:
        session.delete(r)
    session.flush()
    return bool(rows)


def clear_votes(session: Session, game: Game) -> None:
    """Every vote and proposal of the game goes (a phase was processed, the mode changed…)."""
    for r in _rows(session, game):
        session.delete(r)
    session.flush()


# --------------------------------------------------------------------------- checks

def _voter(game: Game, power: str, command: str, modes: tuple[str, ...]) -> tuple[str, ...]:
    """The survivors, once the game, the mode and the power allow ``command``."""
    if game.state not in RUNNING:
        raise GameError("nothing_to_vote", game=game.name, state=game.state)
    formal_state.check_draw_votes(game)
    mode = mode_of(game)
    if mode not in modes:
        raise GameError("vote_command_unused", command=command, game=game.name,
                        mode=MODE_NAMES[mode])
    alive = survivors(game)
    if power not in alive:
        raise GameError("voter_eliminated", power=power, game=game.name)
    return alive


# --------------------------------------------------------------------------- evaluation

def evaluate(session: Session, game: Game) -> core.Outcome:
    """The state of the voting under the game's mode; ``ends_game`` when a result passed."""
    alive = survivors(game)
    mode = mode_of(game)
    rows = _rows(session, game)
    by_kind: dict[str, dict[str, str]] = {}
    for r in rows:
        by_kind.setdefault(r.kind, {})[r.power] = r.value
    if mode in ("DIAS", "NODIAS"):
        draws = by_kind.get("draw", {})
        if mode == "DIAS":
            outcome = core.evaluate_dias(alive, draws.keys())
        else:
            outcome = core.evaluate_nodias(
                alive, {p: frozenset(v.split()) for p, v in draws.items()})
        if outcome.ends_game:
            return outcome
        return core.evaluate_concession(alive, by_kind.get("concede", {}))
    if mode == "PROPOSE_DIAS":
        return core.evaluate_proposal(alive, _proposal(session, game),
                                      {p: v == "YES" for p, v in by_kind.get("answer",
                                                                             {}).items()})
    votes = {p: core.parse_no_dias_vote(v, _powers(game))
             for p, v in by_kind.get("nodias", {}).items()}
    return core.evaluate_no_dias(alive, {p: v for p, v in votes.items()
                                         if isinstance(v, core.NoDiasVote)})


def _check(session: Session, game: Game, now: datetime) -> list[Event]:
    outcome = evaluate(session, game)
    return end_by_agreement(session, game, outcome, now) if outcome.ends_game else []


def at_phase_end(session: Session, game: Game, now: datetime) -> list[Event]:
    """The last evaluation of the phase's votes, before processing clears them."""
    if game.state not in RUNNING or not _rows(session, game):
        return []
    return _check(session, game, now)


def end_by_agreement(session: Session, game: Game, outcome: core.Outcome,
                     now: datetime) -> list[Event]:
    """End the game with a passed draw or concession."""
    assert outcome.ends_game
    pos = _position(game)
    game.state = GameState.FINISHED
    clock.stop_clock(game)
    clear_votes(session, game)
    record_result(session, game, outcome.kind, outcome.members, game.phase, pos, now)
    return [GameEnded(game=game.name, variant=variant_title(game), to=audience(session, game),
                      phase=game.phase, how=outcome.kind, members=tuple(
                          p for p in pos.map.powers if p in outcome.members),
                      centres=final_centres(pos))]


def _after_vote(session: Session, game: Game, now: datetime, kind: str,
                **facts: Any) -> VoteOutcome:
    """The vote is cast: whether it ends the game now, and what the reply says of it."""
    return VoteOutcome(kind, dict(facts, game=game.name, phase=game.phase),
                       _check(session, game, now))


# --------------------------------------------------------------------------- DIAS, NoDIAS

def set_draw(session: Session, game: Game, power: str, listed: str, now: datetime) -> VoteOutcome:
    """SET DRAW (DIAS) or SET DRAW <list> (NoDIAS)."""
    alive = _voter(game, power, "SET DRAW", ("DIAS", "NODIAS"))
    if mode_of(game) == "DIAS":
        if listed.strip():
            raise GameError("dias_draw_list", game=game.name)
        _put(session, game, power, "draw", "ALL", now)
        return _after_vote(session, game, now, "draw_all", power=power, alive=list(alive))
    if not listed.strip():
        raise GameError("nodias_draw_list", game=game.name)
    found = core.parse_power_list(listed, alive, _spellings(game))
    if isinstance(found, core.VoteError):
        raise GameError("vote_refused", reason=found.message)
    ordered = [p for p in _powers(game) if p in found]
    _put(session, game, power, "draw", " ".join(ordered), now)
    return _after_vote(session, game, now, "draw_list", power=power, listed=ordered,
                       included=power in found)


def set_nodraw(session: Session, game: Game, power: str, now: datetime) -> VoteOutcome:
    _voter(game, power, "SET NODRAW", ("DIAS", "NODIAS"))
    _drop(session, game, power, "draw")
    return _after_vote(session, game, now, "nodraw", power=power, dias=mode_of(game) == "DIAS")


def set_concede(session: Session, game: Game, power: str, target_text: str,
                now: datetime) -> VoteOutcome:
    alive = _voter(game, power, "SET CONCEDE", ("DIAS", "NODIAS"))
    target = core.parse_power(target_text, alive, _spellings(game))
    if isinstance(target, core.VoteError):
        raise GameError("vote_refused", reason=target.message)
    if target == power:
        _drop(session, game, power, "concede")
        return _after_vote(session, game, now, "concede", power=power, target=power)
    _put(session, game, power, "concede", target, now)
    return _after_vote(session, game, now, "concede", power=power, target=target)


def set_noconcede(session: Session, game: Game, power: str, now: datetime) -> VoteOutcome:
    _voter(game, power, "SET NOCONCEDE", ("DIAS", "NODIAS"))
    _drop(session, game, power, "concede")
    return _after_vote(session, game, now, "noconcede", power=power)


# --------------------------------------------------------------------------- PROPOSE_DIAS

def _proposal(session: Session, game: Game) -> core.Proposal | None:
    rows = _rows(session, game, "proposal")
    if not rows:
        return None
    words = rows[0].value.split()
    if words[0] == "DIAS":
        return core.Proposal("dias", rows[0].power, None)
    return core.Proposal("concede", rows[0].power, words[1])


def _proposal_facts(proposal: core.Proposal) -> dict[str, Any]:
    return {"kind": proposal.kind, "target": proposal.target}


def propose(session: Session, game: Game, power: str, what: str, now: datetime) -> VoteOutcome:
    """PROPOSE DIAS or PROPOSE CONCEDE <power>; announced to the game without the proposer."""
    alive = _voter(game, power, "PROPOSE", ("PROPOSE_DIAS",))
    words = what.split(None, 1)
    kind = words[0].upper() if words else ""
    if kind not in ("DIAS", "CONCEDE"):
        raise GameError("propose_what")
    target: str | None = None
    if kind == "CONCEDE":
        if len(words) < 2:
            raise GameError("propose_concede_whom")
        found = core.parse_power(words[1], alive, _spellings(game))
        if isinstance(found, core.VoteError):
            raise GameError("proposal_refused", reason=found.message)
        target = found
    elif len(words) > 1:
        raise GameError("propose_dias_power")
    current = _proposal(session, game)
    now_state = evaluate(session, game) if current else None
    made = core.make_proposal(alive, power, "dias" if kind == "DIAS" else "concede", target,
                              current=now_state)
    if isinstance(made, core.VoteError):
        raise GameError("proposal_refused", reason=made.message)
    _drop(session, game, None, "proposal")
    _drop(session, game, None, "answer")
    _put(session, game, power, "proposal", "DIAS" if target is None else f"CONCEDE {target}",
         now)
    announcement = notice(session, game, "proposal", target=target)
    cast = _after_vote(session, game, now, "propose", proposal=_proposal_facts(made))
    if not cast.events:
        cast.events.append(announcement)
    return cast


def answer(session: Session, game: Game, power: str, yes: bool, now: datetime) -> VoteOutcome:
    """VOTE YES / VOTE NO on the open proposal."""
    _voter(game, power, f"VOTE {'YES' if yes else 'NO'}", ("PROPOSE_DIAS",))
    proposal = _proposal(session, game)
    if proposal is None:
        raise GameError("no_proposal")
    state = evaluate(session, game)
    if state.kind == "rejected":
        raise GameError("proposal_rejected")
    if proposal.proposer == power:
        raise GameError("own_proposal")
    _put(session, game, power, "answer", "YES" if yes else "NO", now)
    cast = _after_vote(session, game, now, "answer", power=power, yes=yes,
                       proposal=_proposal_facts(proposal))
    if not yes:
        cast.events.append(notice(session, game, "proposal_rejected",
                                  target=proposal.target))
    return cast


# --------------------------------------------------------------------------- NO_DIAS

def vote_no_dias(session: Session, game: Game, power: str, word: str, now: datetime) -> VoteOutcome:
    """VOTE SOLO | LOSS | <n>."""
    _voter(game, power, f"VOTE {word.upper()}", ("NO_DIAS",))
    vote = core.parse_no_dias_vote(word, _powers(game))
    if isinstance(vote, core.VoteError):
        raise GameError("vote_refused", reason=vote.message)
    _put(session, game, power, "nodias", vote.text(), now)
    return _after_vote(session, game, now, "no_dias", power=power, vote=vote.text(),
                       loss=vote.loss, limit=vote.limit)


def vote(session: Session, game: Game, power: str, word: str, now: datetime) -> VoteOutcome:
    """VOTE <word>: an answer in PROPOSE_DIAS games, a NO_DIAS vote in NO_DIAS games."""
    upper = word.strip().upper()
    mode = mode_of(game)
    if mode == "PROPOSE_DIAS":
        if upper not in ("YES", "NO"):
            raise GameError("vote_yes_or_no", game=game.name, word=word.strip())
        return answer(session, game, power, upper == "YES", now)
    if mode == "NO_DIAS" and upper in ("YES", "NO"):
        raise GameError("no_dias_no_proposals", game=game.name)
    return vote_no_dias(session, game, power, word, now)


# --------------------------------------------------------------------------- the master

def set_nodias(session: Session, game: Game, nodias: bool) -> VoteOutcome:
    """SET DIAS / SET NODIAS: announced to the game, every vote cleared."""
    facts = dict(game=game.name, nodias=nodias)
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise GameError("game_over", game=game.name)
    chosen = sorted(rules_of(game) & {"PROPOSE_DIAS", "NO_DIAS"})
    if chosen:
        raise GameError("vote_rule_fixed", game=game.name, rule=chosen[0])
    if game.nodias == nodias:
        return VoteOutcome("draw_mode", dict(facts, changed=False))
    game.nodias = nodias
    clear_votes(session, game)
    return VoteOutcome("draw_mode", dict(facts, changed=True),
                       [notice(session, game, "draw_mode", nodias=nodias)])


def resume_ended(session: Session, game: Game, now: datetime) -> list[Event]:
    """RESUME of a game that ended in a draw or concession: play goes on, votes cleared."""
    if formal_state.is_formal(game) and formal_state.state_of(game).over:
        raise GameError("resume_formal_ended", game=game.name)
    result = result_of(session, game)
    # a shared victory is recorded as a draw of the winners, but it is a victory
    if game.state != GameState.FINISHED or game.winner or result is None \
            or result.result not in ("draw", "concession"):
        raise GameError("resume_not_drawn", game=game.name, victory=bool(game.winner))
    clear_result(session, game)
    clear_votes(session, game)
    game.state = GameState.ACTIVE
    clock.start_clock(game, now)
    return [GameResumed(game=game.name, variant=variant_title(game), to=audience(session, game),
                        phase=game.phase, deadline=clock.deadline_of(game),
                        after=result.result)]


def votes_shown(session: Session, game: Game, power: str | None,
                master: bool) -> list[dict[str, str]]:
    """The votes LIST shows: a player's own, or (master) everybody's. Votes are secret.  Each
    is its power, its kind (draw, concede, proposal, vote) and its value as stored (the
    powers of a draw, ALL for every survivor; the power conceded to; the proposal; the vote);
    templates/game/list_game.txt words them."""
    return [{"power": r.power, "kind": r.kind, "value": r.value} for r in _rows(session, game)
            if master or r.power == power]
