"""Formal Diplomacy orders by mail: DWO, SUR, SOI, supports of claims and Undo SOI are checked
when they arrive and stored with the power's other orders.

A power's orders are a dict from a key to the order's canonical text
(:mod:`judge.service.orders`).  Formal orders use these keys:

``<province of the unit>``
    a claim (``A PIC SOI BEL``) or a support of a claim (``A BUR S A PIC SOI BEL``): the
    unit's order for the turn, so it replaces the unit's earlier order and a later one
    replaces it, as the rules say (a claiming unit takes no other action);
``DWO:<power>``
    one declaration per target (``DWO:GERMANY``);
``SUR:``
    the surrender, once;
``UNDO:<province>``
    one per sphere given up (``UNDO:BEL``).

Keys with a colon never collide with a unit's province, and the adjustment keys (``B:``,
``W:``, ``R:``) belong to a phase in which no formal order is taken.

What can be known when the order arrives is checked then, with the core's helpers: the power
and the units, whether a unit can reach the province it claims, a surrender's refusal (the
board and the wars do not change before surrenders are judged), the sphere given up.  Whether a
claim succeeds depends on this turn's declarations, surrenders and moves, so a claim that
would fail as things stand is accepted with a warning; the results say what became of it.
So is a move or retreat that would be void for want of a war (counting the power's own
declarations already given this turn).
"""

from __future__ import annotations

import json
from dataclasses import replace

from judge.core import Move, OrderError, Position, Retreat, Unit, UnitSpec, parse_order
from judge.core.formal import (ClaimSphere, DeclareWar, FormalOrder, FormalState, SupportClaim,
                               Surrender, UndoSphere, can_reach, claim_problem,
                               claim_reach_problem, claiming_unit, entry_blockers,
                               parse_formal_order, surrender_refusal)
from judge.core.formal.state import war_pair
from judge.core.maps import province_of
from judge.service.formal import state as formal_state
from judge.service.errors import GameError
from judge.service.games import variant_title
from judge.service.orders import Caveat, Entry, enter_line, place, stored_orders, unreadable
from judge.store.models import Game, Seat


def enter_order_line(seat: Seat, game: Game, pos: Position, line: str, *,
                     this_mail: set[str] | None = None, **options: bool) -> Entry:
    """Check and store any order line of a power: a formal order (refused with a reason
    outside Formal games), else a standard one (``options``, the game rules' say on order
    entry, as in :func:`judge.service.orders.enter_line`; ``this_mail`` the keys stored by
    the same mail so far).  Says what the reply acknowledges."""
    keep_repeats = not options.get("check_legality", True) and pos.phase.type == "M"
    formal = enter_formal_line(seat, game, pos, line, this_mail, keep_repeats)
    if formal is not None:
        return formal
    entry = enter_line(seat, pos, line, this_mail=this_mail, **options)
    if formal_state.is_formal(game):
        caveat = _void_caveat(pos, formal_state.state_of(game), seat, entry.text)
        if caveat is not None:
            return replace(entry, caveat=caveat)
    return entry


def _void_caveat(pos: Position, state: FormalState, seat: Seat, text: str) -> Caveat | None:
    """Why a move or retreat would be void as things stand (rule 4), or ``None``."""
    order = parse_order(pos.map, text, pos.phase.type)
    if not isinstance(order, (Move, Retreat)):
        return None
    power = seat.power
    assert power is not None
    declared = {war_pair(power, key.removeprefix("DWO:"))
                for key in stored_orders(seat) if key.startswith("DWO:")}
    blockers = entry_blockers(pos, state.evolve(wars=state.wars | declared), power,
                              province_of(order.dest))
    if not blockers:
        return None
    return Caveat("move" if isinstance(order, Move) else "retreat", blockers=blockers)


def enter_formal_line(seat: Seat, game: Game, pos: Position, line: str,
                      this_mail: set[str] | None = None,
                      keep_repeats: bool = False) -> Entry | None:
    """Check and store a formal order line, saying what it did; ``None`` when the line is not
    a formal order.  A refused line (GameError) changes nothing.  A claim or a support of one
    is the unit's order and is placed as any order of the unit
    (:func:`judge.service.orders.place`)."""
    parsed = parse_formal_order(pos.map, line)
    if parsed is None:
        return None
    if not formal_state.is_formal(game):
        raise GameError("formal_order_not_formal", line=line.strip(), game=game.name,
                        variant=variant_title(game))
    if isinstance(parsed, OrderError):
        raise unreadable(pos.map, parsed)
    if pos.phase.type != "M":
        raise GameError("formal_order_phase", phase_type=pos.phase.type)
    power = seat.power
    assert power is not None
    if power not in pos.survivors():
        raise GameError("eliminated", power=power)
    key, text, warning = _check(pos, formal_state.state_of(game), power, parsed)
    current = stored_orders(seat)
    if ":" in key:  # DWO, SUR, Undo SOI: one each, not a unit's order
        entry = Entry(text, unchanged=current.get(key) == text)
        current[key] = text
    else:
        entry = place(current, key, text, keep_repeats=keep_repeats, this_mail=this_mail)
    seat.orders = json.dumps(current, sort_keys=True)
    if warning:
        entry = replace(entry, caveat=Caveat("claim", reason=warning))
    return entry


def _check(pos: Position, state: FormalState, power: str,
           f: FormalOrder) -> tuple[str, str, str | None]:
    """(key, canonical text, warning) of a formal order, or GameError saying why not."""
    m = pos.map
    if isinstance(f, DeclareWar):
        if f.target == power:
            raise GameError("war_on_yourself")
        if f.target not in pos.survivors():
            raise GameError("war_on_eliminated", power=f.target)
        if state.at_war(power, f.target):
            raise GameError("already_at_war", power=f.target)
        return f"DWO:{f.target}", f.text(), None
    if isinstance(f, Surrender):
        why = surrender_refusal(pos, state, power)
        if why:
            raise GameError("surrender_refused", reason=why)
        return "SUR:", f.text(), None
    if isinstance(f, UndoSphere):
        if state.spheres.get(f.province) != power:
            raise GameError("not_your_sphere", province=m.provinces[f.province].name)
        return f"UNDO:{f.province}", f.text(), None
    if isinstance(f, ClaimSphere):
        unit = _claiming(pos, power, f)
        why = claim_reach_problem(pos, unit, f.province)
        if why:
            raise GameError("claim_refused", reason=why)
        text = ClaimSphere(_spec(unit), f.province).text()
        return unit.province, text, claim_problem(pos, state, power, unit, f.province)
    assert isinstance(f, SupportClaim)
    unit = _own_unit(pos, power, f.unit)
    target = pos.unit_at(f.target.province)
    if target is None:
        raise GameError("no_unit_to_support", place=m.location_text(f.target.province))
    if target.province == unit.province:
        raise GameError("support_own_claim")
    place = m.provinces[f.province].name
    if not can_reach(m, unit, f.province):
        raise GameError("support_claim_unreachable", unit=unit.text(m), province=place)
    why = claim_reach_problem(pos, target, f.province)
    if why:
        raise GameError("claim_unreachable", unit=target.text(m), province=place, reason=why)
    return unit.province, SupportClaim(_spec(unit), _spec(target), f.province).text(), None


def _spec(unit: Unit) -> UnitSpec:
    return UnitSpec(unit.kind, unit.location)


def _own_unit(pos: Position, power: str, spec: UnitSpec) -> Unit:
    m = pos.map
    unit = pos.unit_at(spec.province)
    if unit is None:
        raise GameError("no_unit", place=m.location_text(spec.province))
    if unit.power != power:
        raise GameError("not_your_unit", unit=unit.text(m), owner=unit.power, power=power)
    return unit


def _claiming(pos: Position, power: str, f: ClaimSphere) -> Unit:
    if f.unit is not None:
        return _own_unit(pos, power, f.unit)
    found = claiming_unit(pos, power, f.province)
    if isinstance(found, str):
        raise GameError("claim_refused", reason=found)
    return found
