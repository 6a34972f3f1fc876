"""Processing one phase of a Formal Diplomacy game around standard adjudication (rule 9).

Movement phase, in this order:

1. ``Undo SOI in`` orders end the power's own spheres (no VP change);
2. surrenders, all judged against the wars at the start of the step (rule 5);
3. declarations of war, judged against the wars after the surrenders (rule 3); two powers
   declaring on each other in one turn both pay;
4. moves into another power's unit, owned centre or sphere without war are void: the unit
   holds (rule 4); supports and convoys are never restricted;
5. standard adjudication with the void moves, the claiming units and the supporters of claims
   holding;
6. spheres entered by a foreign unit's successful move end (owner -1 VP);
7. new claims (rule 6) are contested like moves; when the turn has retreats, the winners wait
   for them (a foreign unit retreating in still makes the claim fail);
8. after the Fall turn (moves, or retreats when there are any): VP for centres (rule 2);
9. after the Fall turn of the last year: the game ends, most VP wins, ties share.

Retreat phases apply rule 4 to retreats (a void retreat disbands the unit, as a dislodged unit
that cannot retreat does), end spheres entered by retreats, then settle waiting claims and,
in the Fall, count VP and check the end.  Adjustment phases are standard.  After every phase
the wars and spheres of eliminated powers lapse (rule 7).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, cast

from judge.core.adjudicator import PhaseResult, adjudicate
from judge.core.board import Position, Unit
from judge.core.errors import InputError
from judge.core.formal.orders import (ClaimSphere, DeclareWar, FormalOrder, SupportClaim,
                                      Surrender, UndoSphere, parse_formal_order)
from judge.core.formal.rules import (blockers_message, can_reach, claim_problem,
                                     claiming_unit, entry_blockers, surrender_refusal)
from judge.core.formal.state import FormalState, PendingClaim, war_pair
from judge.core.formal.wording import claim_line, support_line
from judge.core.maps import province_of
from judge.core.orders import Disband, Hold, Move, Order, OrderError, Retreat, UnitSpec, parse_order
from judge.core.phases import MOVEMENT, RETREATS
from judge.core.order_results import BOUNCE, CUT, DISBAND, INVALID, OK, VOID, OrderResult

_FORMAL_TYPES = (DeclareWar, Surrender, ClaimSphere, SupportClaim, UndoSphere)

# outcome codes of formal orders (FormalOrderResult.result)
ACCEPTED, REFUSED = "ok", "refused"
ESTABLISHED, PENDING, STANDOFF, BEATEN = "established", "pending", "standoff", "beaten"
CLAIM_DISLODGED, OCCUPIED = "dislodged", "occupied"


# A claim or a support of one: (power, the order as written, the order, the unit).
_Claim = tuple[str, str, ClaimSphere, Unit]
_ClaimSupport = tuple[str, str, SupportClaim, Unit]


@dataclass(frozen=True)
class FormalOrderResult:
    """What happened to one formal order line (declaration, surrender, claim, support, undo).

    ``result``: ``ok``, ``invalid`` or ``refused`` (a surrender), and for claims one of
    ``established``, ``pending`` (waits for the retreats), ``standoff``, ``beaten``,
    ``dislodged``, ``occupied``; supports of claims ``ok``, ``cut`` or ``void``.
    """

    power: str
    text: str  # as written
    order: FormalOrder | None  # None when the line did not parse
    result: str
    message: str = ""
    line: str = ""  # a claim or a support of one, in words (:mod:`.wording`)

    def judge_text(self) -> str:
        if self.line:
            return self.line
        mark = "" if self.result in (ACCEPTED, ESTABLISHED) else f"  (*{self.result}*)"
        why = f"  {self.message}" if self.message and self.result not in (ACCEPTED,) else ""
        return f"{self.power.capitalize()}: {self.text.strip()}.{mark}{why}"


@dataclass(frozen=True)
class VoidedMove:
    """A move or retreat void for lack of war (rule 4)."""

    power: str
    unit: Unit
    order: Move | Retreat
    text: str
    against: tuple[str, ...]  # the powers it would have needed a war with
    message: str


@dataclass(frozen=True)
class Surrendered:
    power: str
    to: tuple[str, ...]  # every power it was at war with


@dataclass(frozen=True)
class ClaimOutcome:
    power: str
    unit: Unit
    province: str
    strength: int
    outcome: str  # established, pending, standoff, beaten, dislodged, occupied


@dataclass(frozen=True)
class SphereEnded:
    province: str
    owner: str
    reason: str  # "undo", "incursion" or "eliminated"
    by: str | None = None  # the power that entered it (incursion)


@dataclass(frozen=True)
class VPChange:
    power: str
    delta: int
    reason: str


@dataclass(frozen=True)
class FormalResult:
    """Everything one phase of a Formal game did; ``state`` and ``position`` come next."""

    phase_result: PhaseResult  # the standard adjudication (void moves and claims as holds)
    results: tuple[OrderResult, ...]  # per unit, void moves and claims shown as written
    formal_results: tuple[FormalOrderResult, ...]
    declarations: tuple[tuple[str, str], ...]  # (declarer, target), valid ones
    surrenders: tuple[Surrendered, ...]
    voided: tuple[VoidedMove, ...]
    claims: tuple[ClaimOutcome, ...]
    spheres_created: tuple[tuple[str, str], ...]  # (province, power)
    spheres_ended: tuple[SphereEnded, ...]
    vp_changes: tuple[VPChange, ...]
    state: FormalState
    turn_complete: bool  # a whole game turn (moves and their retreats) is over
    game_over: bool
    winners: tuple[str, ...]
    # (power, province of the unit, line): the claims and supports of claims of this phase
    # in words, for the per-unit lines of the results (the same words as the Formal section)
    claim_lines: tuple[tuple[str, str, str], ...] = ()

    @property
    def position(self) -> Position:
        return self.phase_result.position


def adjudicate_formal(position: Position, state: FormalState,
                      orders: Mapping[str, Iterable[str | Order | FormalOrder]] | None = None,
                      *, skip_empty: bool = True,
                      multiple_orders_hold: bool = False) -> FormalResult:
    """Adjudicate one phase of a Formal Diplomacy game (see the module docstring).

    ``multiple_orders_hold`` (NO_CHECK): in a movement phase a unit given two different
    orders (moves, claims, supports alike) keeps neither: both are invalid and it holds.
    """
    if state.over:
        raise InputError("the game is over")
    return _Turn(position, state, skip_empty, multiple_orders_hold).run(orders or {})


class _Turn:
    def __init__(self, position: Position, state: FormalState, skip_empty: bool,
                 repeats_hold: bool = False) -> None:
        self.pos, self.m, self.skip_empty = position, position.map, skip_empty
        self.repeats_hold = repeats_hold and position.phase.type == MOVEMENT
        self.repeated: set[str] = set()
        self.phase = position.phase
        self.wars = set(state.wars)
        self.spheres = dict(state.spheres)
        self.vp = {p: state.vp.get(p, 0) for p in self.m.powers}
        self.state = state
        self.pending = list(state.pending_claims)
        self.formal: list[FormalOrderResult] = []
        self.extra: list[OrderResult] = []
        self.vp_changes: list[VPChange] = []
        self.ended: list[SphereEnded] = []
        self.created: list[tuple[str, str]] = []
        self.claims: list[ClaimOutcome] = []
        self.voided: list[VoidedMove] = []
        self.claim_lines: dict[tuple[str, str], str] = {}

    # -- helpers ---------------------------------------------------------------------------
    def points(self, power: str, delta: int, reason: str) -> None:
        if delta:
            self.vp[power] = self.vp.get(power, 0) + delta
            self.vp_changes.append(VPChange(power, delta, reason))

    def current(self) -> FormalState:
        return self.state.evolve(wars=frozenset(self.wars), spheres=self.spheres, vp=self.vp,
                                 pending_claims=tuple(self.pending))

    def name(self, prov: str) -> str:
        return self.m.provinces[prov].name

    # -- splitting the orders --------------------------------------------------------------
    def split(self, orders: Mapping[str, Iterable[str | Order | FormalOrder]]) -> None:
        m, movement = self.m, self.phase.type == MOVEMENT
        if self.phase.type == RETREATS:
            bound = {d.unit.province: d.unit for d in self.pos.dislodged}
        else:
            bound = {u.province: u for u in self.pos.units}
        self.passthrough: dict[str, list[str | Order]] = {}
        self.unit_orders: dict[str, dict[str, tuple]] = {}  # power → province → entry
        self.undos: list[tuple[str, str, UndoSphere]] = []
        self.surrender_lines: list[tuple[str, str]] = []
        self.dwo: list[tuple[str, str, DeclareWar]] = []
        # map order, whatever the caller's: the report lists declarations, claims and points
        # in the order they are met, and the same orders must give the same report
        rank = {p: i for i, p in enumerate(m.powers)}
        for power, items in sorted(orders.items(), key=lambda kv: rank.get(kv[0], len(rank))):
            mine = self.unit_orders.setdefault(power, {})
            through = self.passthrough.setdefault(power, [])
            for item in items:
                if isinstance(item, str):
                    text, f = item, parse_formal_order(m, item)
                elif isinstance(item, _FORMAL_TYPES):
                    text, f = item.text(), item
                else:
                    text, f = item.text(), None
                if f is None:
                    o = parse_order(m, item, self.phase.type) if isinstance(item, str) else item
                    prov = getattr(o, "unit", None)
                    u = bound.get(prov.province) if isinstance(prov, UnitSpec) else None
                    if isinstance(o, OrderError) or u is None or u.power != power:
                        # not a Formal order (f is None): a line or a standard order
                        through.append(cast("str | Order", item))
                    else:
                        self.put(mine, power, u, ("std", text, o, u))
                    continue
                if isinstance(f, OrderError):
                    self.formal.append(FormalOrderResult(power, text, None, INVALID, f.message))
                    continue
                if not movement:
                    self.formal.append(FormalOrderResult(
                        power, text, f, INVALID,
                        "Formal Diplomacy orders are given in movement phases"))
                    continue
                if isinstance(f, Surrender):
                    self.surrender_lines.append((power, text))
                elif isinstance(f, DeclareWar):
                    self.dwo.append((power, text, f))
                elif isinstance(f, UndoSphere):
                    self.undos.append((power, text, f))
                else:
                    u = self.bind_claim_unit(power, text, f)
                    if u is not None:
                        self.put(mine, power, u, ("formal", text, f, u))

    def put(self, mine: dict, power: str, u: Unit, entry: tuple) -> None:
        old = mine.get(u.province)
        if self.repeats_hold and (u.province in self.repeated
                                  or (old is not None and old[2] != entry[2])):
            why = "the unit was given more than one order: it holds"
            if old is not None:
                self.invalid(power, u, old, why)
                del mine[u.province]
            self.repeated.add(u.province)
            self.invalid(power, u, entry, why)
            return
        if old is not None:
            self.invalid(power, u, old, "replaced by a later order for the same unit")
        mine[u.province] = entry

    def invalid(self, power: str, u: Unit, entry: tuple, why: str) -> None:
        if entry[0] == "std":
            self.extra.append(OrderResult(power, u, entry[2], entry[1], INVALID, message=why))
        else:
            self.formal.append(FormalOrderResult(power, entry[1], entry[2], INVALID, why))

    def bind_claim_unit(self, power: str, text: str, f: ClaimSphere | SupportClaim,
                        ) -> Unit | None:
        pos = self.pos
        if f.unit is not None:
            u = pos.unit_at(f.unit.province)
            if u is None or u.power != power:
                why = (f"no unit in {self.name(f.unit.province)}" if u is None
                       else f"the unit in {self.name(f.unit.province)} is not yours")
                self.formal.append(FormalOrderResult(power, text, f, INVALID, why))
                return None
            return u
        assert isinstance(f, ClaimSphere)
        found = claiming_unit(pos, power, f.province)
        if isinstance(found, Unit):
            return found
        self.formal.append(FormalOrderResult(power, text, f, INVALID, found))
        return None

    # -- the steps -------------------------------------------------------------------------
    def run(self, orders: Mapping[str, Iterable[str | Order | FormalOrder]]) -> FormalResult:
        self.split(orders)
        declarations: list[tuple[str, str]] = []
        surrenders: list[Surrendered] = []
        if self.phase.type == MOVEMENT:
            self.do_undos()
            surrenders = self.do_surrenders()
            declarations = self.do_declarations()
        std, rewrite = self.standard_orders()
        pr = adjudicate(self.pos, std, skip_empty=self.skip_empty)
        self.do_incursions(pr)
        cut: dict[tuple[str, str], str] = {}
        if self.phase.type == MOVEMENT:
            cut = self.do_claims(pr)
        if self.phase.type == RETREATS or (self.phase.type == MOVEMENT
                                           and pr.position.phase.type != RETREATS):
            self.settle_pending(pr.units)
        turn_complete = self.phase.type != "A" and pr.position.phase.type != RETREATS
        if turn_complete and self.phase.season == "F":
            self.fall_points(pr.position)
        self.lapse(pr.position)
        over = False
        winners: tuple[str, ...] = ()
        if turn_complete and self.phase.season == "F" and self.phase.year >= self.state.last_year:
            alive = pr.position.survivors() or tuple(self.m.powers)
            best = max(self.vp.get(p, 0) for p in alive)
            over, winners = True, tuple(p for p in alive if self.vp.get(p, 0) == best)
        state = self.current().evolve(over=over, winners=winners)
        results = self.rewrite_results(pr, rewrite, cut)
        return FormalResult(pr, results, tuple(self.formal), tuple(declarations),
                            tuple(surrenders), tuple(self.voided), tuple(self.claims),
                            tuple(self.created), tuple(self.ended), tuple(self.vp_changes),
                            state, turn_complete, over, winners,
                            tuple((p, prov, line) for (p, prov), line
                                  in self.claim_lines.items()))

    def do_undos(self) -> None:
        for power, text, f in self.undos:
            if self.spheres.get(f.province) == power:
                del self.spheres[f.province]
                self.ended.append(SphereEnded(f.province, power, "undo"))
                self.formal.append(FormalOrderResult(power, text, f, ACCEPTED))
            else:
                self.formal.append(FormalOrderResult(
                    power, text, f, INVALID,
                    f"{self.name(f.province)} is not your sphere of influence"))

    def do_surrenders(self) -> list[Surrendered]:
        before = self.current()
        done: list[Surrendered] = []
        for power, text in self.surrender_lines:
            if any(s.power == power for s in done):
                self.formal.append(FormalOrderResult(power, text, Surrender(), INVALID,
                                                     "you have already surrendered this turn"))
                continue
            why = surrender_refusal(self.pos, before, power)
            if why:
                self.formal.append(FormalOrderResult(power, text, Surrender(), REFUSED, why))
                continue
            done.append(Surrendered(power, before.enemies(power)))
            self.formal.append(FormalOrderResult(power, text, Surrender(), ACCEPTED))
        for s in done:  # simultaneous: each ends the wars it had at the start of the step
            for e in s.to:
                self.wars.discard(war_pair(s.power, e))
                self.points(s.power, -1, f"surrendered to {e.capitalize()}")
                self.points(e, +1, f"{s.power.capitalize()} surrendered")
        return done

    def do_declarations(self) -> list[tuple[str, str]]:
        alive = set(self.pos.survivors())
        before = frozenset(self.wars)
        valid: list[tuple[str, str]] = []
        for power, text, f in self.dwo:
            t = f.target
            if t == power:
                why = "you cannot declare war on yourself"
            elif t not in alive:
                why = f"{t.capitalize()} is eliminated"
            elif war_pair(power, t) in before:
                why = f"you are already at war with {t.capitalize()}"
            elif (power, t) in valid:
                why = f"war on {t.capitalize()} is already declared in these orders"
            else:
                why = ""
            if why:
                self.formal.append(FormalOrderResult(power, text, f, INVALID, why))
                continue
            valid.append((power, t))
            self.formal.append(FormalOrderResult(power, text, f, ACCEPTED))
        for power, t in valid:
            self.wars.add(war_pair(power, t))
            self.points(power, -1, f"declared war on {t.capitalize()}")
        return valid

    def standard_orders(self) -> tuple[dict[str, list[str | Order]], dict[tuple[str, str], tuple]]:
        """Orders for the standard adjudicator, and the units whose results must be rewritten."""
        state = self.current()
        std: dict[str, list[str | Order]] = {}
        rewrite: dict[tuple[str, str], tuple] = {}
        for power, through in self.passthrough.items():
            out = std.setdefault(power, list(through))
            for prov, entry in self.unit_orders.get(power, {}).items():
                kind, text, o, u = entry
                if kind == "formal":
                    out.append(Hold(UnitSpec(u.kind, u.location)))
                    rewrite[(power, prov)] = entry
                    continue
                if isinstance(o, (Move, Retreat)):
                    blockers = entry_blockers(self.pos, state, power, province_of(o.dest))
                    if blockers:
                        msg = blockers_message(blockers)
                        self.voided.append(VoidedMove(power, u, o, text,
                                                      tuple(sorted({p for p, _ in blockers})), msg))
                        rewrite[(power, prov)] = ("void", text, o, u, msg)
                        spec = UnitSpec(u.kind, u.location)
                        out.append(Hold(spec) if isinstance(o, Move) else Disband(spec))
                        continue
                out.append(o)
        return std, rewrite

    def do_incursions(self, pr: PhaseResult) -> None:
        for r in pr.results:
            if isinstance(r.order, (Move, Retreat)) and r.result == OK and not r.dislodged:
                prov = province_of(r.order.dest)
                owner = self.spheres.get(prov)
                if owner is not None and owner != r.power:
                    del self.spheres[prov]
                    self.ended.append(SphereEnded(prov, owner, "incursion", r.power))
                    self.points(owner, -1, f"{r.power.capitalize()} entered the sphere "
                                f"{self.name(prov)}")

    def do_claims(self, pr: PhaseResult) -> dict[tuple[str, str], str]:
        """Contest the claims (rule 6); returns (power, province) → result for claim units."""
        codes: dict[tuple[str, str], str] = {}
        claims, supports = self._claims_and_supports(codes)
        strength = self._claim_strengths(pr, claims, supports, codes)
        self._settle_claims(pr, claims, strength, codes)
        return codes

    def _claims_and_supports(self, codes: dict[tuple[str, str], str]
                             ) -> tuple[dict[str, _Claim], list[_ClaimSupport]]:
        """The turn's valid claims, by the claiming unit's province, and its supports of
        claims; a claim that cannot be made is answered here."""
        state = self.current()
        claims: dict[str, _Claim] = {}
        supports: list[_ClaimSupport] = []
        for power, mine in self.unit_orders.items():
            for prov, (kind, text, f, u) in mine.items():
                if kind != "formal":
                    continue
                if isinstance(f, SupportClaim):
                    supports.append((power, text, f, u))
                    continue
                why = claim_problem(self.pos, state, power, u, f.province)
                if why:
                    line = claim_line(self.m, power, u, f.province, INVALID, why=why)
                    self.claim_lines[(power, prov)] = line
                    self.formal.append(FormalOrderResult(power, text, f, INVALID, why, line))
                    codes[(power, prov)] = INVALID
                else:
                    claims[prov] = (power, text, f, u)
        return claims, supports

    def _claim_strengths(self, pr: PhaseResult, claims: dict[str, _Claim],
                         supports: list[_ClaimSupport],
                         codes: dict[tuple[str, str], str]) -> dict[str, int]:
        """Each claim's strength: one, and one for each support given to it (each support
        is answered here: given, void, invalid, or cut as a move's support is)."""
        dislodged = {d.unit.province for d in pr.dislodged}
        # foreign moves that reached a province (or bounced there) cut supports, as in moves
        attacks: dict[str, list[tuple[str, str]]] = {}
        for r in pr.results:
            if isinstance(r.order, Move) and r.result in (OK, BOUNCE) and r.unit is not None:
                attacks.setdefault(province_of(r.order.dest), []).append(
                    (r.power, r.unit.province))
        strength = {prov: 1 for prov in claims}
        for power, text, f, u in supports:
            claim = claims.get(f.target.province)
            reason = ""
            if claim is None or claim[2].province != f.province:
                why, reason = "void: no such claim", "no such claim"
                res = VOID
            elif not can_reach(self.m, u, f.province):
                why = reason = f"{u.text(self.m)} cannot reach {self.name(f.province)}"
                res = INVALID
            elif u.province in dislodged:
                why, res = "cut: the supporting unit was dislodged", CUT
                reason = "the supporting unit was dislodged"
            elif any(p != power and src != f.province for p, src in attacks.get(u.province, ())):
                why, res = "cut", CUT
            else:
                why, res = "", ACCEPTED
                strength[f.target.province] += 1
            codes[(power, u.province)] = {ACCEPTED: OK}.get(res, res)
            supported = self.pos.unit_at(f.target.province) or f.target
            line = support_line(self.m, power, u, supported, f.province,
                                "given" if res == ACCEPTED else res, reason)
            self.claim_lines[(power, u.province)] = line
            self.formal.append(FormalOrderResult(power, text, f, res, why, line))
        return strength

    def _settle_claims(self, pr: PhaseResult, claims: dict[str, _Claim],
                       strength: dict[str, int], codes: dict[tuple[str, str], str]) -> None:
        """The strongest claim on a province wins it, alone, if its unit stayed and no other
        power's unit ends the turn there (after a retreat phase, once the retreats are done)."""
        dislodged = {d.unit.province for d in pr.dislodged}
        by_target: dict[str, list[str]] = {}
        for prov, (_, _, f, _) in claims.items():
            by_target.setdefault(f.province, []).append(prov)
        after = {u.province: u for u in pr.units}
        for target, provs in by_target.items():
            top = max(strength[p] for p in provs)
            leaders = [p for p in provs if strength[p] == top]
            for prov in provs:
                power, text, f, u = claims[prov]
                there = after.get(target)
                if prov not in leaders:
                    out, why = BEATEN, "a stronger rival claim"
                elif len(leaders) > 1:
                    out, why = STANDOFF, "rival claims of equal strength"
                elif prov in dislodged:
                    out, why = CLAIM_DISLODGED, "the claiming unit was dislodged"
                elif there is not None and there.power != power:
                    out, why = OCCUPIED, f"{there.power.capitalize()}'s unit ends the turn there"
                elif pr.position.phase.type == RETREATS:
                    out, why = PENDING, "settled after the retreats"
                    self.pending.append(PendingClaim(power, target, u.code))
                else:
                    out, why = ESTABLISHED, ""
                    self.spheres[target] = power
                    self.created.append((target, power))
                self.claims.append(ClaimOutcome(power, u, target, strength[prov], out))
                line = claim_line(self.m, power, u, target, out, strength[prov])
                self.claim_lines[(power, prov)] = line
                self.formal.append(FormalOrderResult(power, text, f, out, why, line))
                codes[(power, prov)] = OK if out in (ESTABLISHED, PENDING) else BOUNCE

    def settle_pending(self, units: tuple[Unit, ...]) -> None:
        if self.phase.type != RETREATS:
            return
        after = {u.province: u for u in units}
        for c in self.pending:
            there = after.get(c.province)
            if there is not None and there.power != c.power:
                self.claims.append(ClaimOutcome(c.power, _unit_of(c), c.province, 0, OCCUPIED))
            elif self.spheres.get(c.province) is None:
                self.spheres[c.province] = c.power
                self.created.append((c.province, c.power))
                self.claims.append(ClaimOutcome(c.power, _unit_of(c), c.province, 0,
                                                ESTABLISHED))
        self.pending = []

    def fall_points(self, nxt: Position) -> None:
        m = self.m
        owner = {c: p for p, cs in nxt.centers.items() for c in cs}
        year = self.phase.year
        for p, power in m.powers.items():
            home = set(power.home_centers)
            outside = sum(1 for c in nxt.centers.get(p, ()) if c not in home)
            lost = sum(1 for c in home if owner.get(c) not in (None, p))
            self.points(p, outside, f"Fall {year}: {outside} centre(s) outside home")
            self.points(p, -lost, f"Fall {year}: {lost} home centre(s) owned by others")

    def lapse(self, nxt: Position) -> None:
        alive = set(nxt.survivors())
        gone = set(self.m.powers) - alive
        if not gone:
            return
        self.wars = {w for w in self.wars if not (w & gone)}
        for prov, owner in sorted(self.spheres.items()):
            if owner in gone:
                del self.spheres[prov]
                self.ended.append(SphereEnded(prov, owner, "eliminated"))
        self.pending = [c for c in self.pending if c.power not in gone]

    def rewrite_results(self, pr: PhaseResult, rewrite: dict[tuple[str, str], tuple],
                        codes: dict[tuple[str, str], str]) -> tuple[OrderResult, ...]:
        out: list[OrderResult] = []
        for r in pr.results:
            key = (r.power, r.unit.province) if r.unit is not None else None
            entry = (rewrite.get(key) if key is not None and isinstance(r.order, (Hold, Disband))
                     else None)
            if key is None or entry is None or r.default:
                out.append(r)
            elif entry[0] == "void":
                _, text, o, u, msg = entry
                code = VOID if isinstance(o, Move) else DISBAND
                out.append(OrderResult(r.power, r.unit, o, text, code, r.dislodged, False, msg))
            else:
                _, text, f, u = entry
                out.append(OrderResult(r.power, r.unit, None, f"{u.code} {_formal_tail(f)}",
                                       codes.get(key, OK), r.dislodged, False,
                                       "Formal Diplomacy order"))
        out.extend(self.extra)
        rank = {p: i for i, p in enumerate(self.m.powers)}
        return tuple(sorted(out, key=lambda r: rank.get(r.power, len(rank))))


def _formal_tail(f: FormalOrder) -> str:
    if isinstance(f, SupportClaim):
        return f"S {f.target.text()} SOI {f.province}"
    if isinstance(f, ClaimSphere):
        return f"SOI {f.province}"
    return f.text()


def _unit_of(c: PendingClaim) -> Unit:
    kind, _, loc = c.unit.partition(" ")
    return Unit(c.power, kind, loc)
