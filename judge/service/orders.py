"""Orders by mail: checking one order line against the position, storing it, and saying what
each power still owes.

A power's orders are stored per unit (``{"PAR": "A PAR - BUR"}``) so a new order for a unit
replaces the old one; in adjustment phases builds are keyed by the centre and waives count.
Under NO_CHECK a mail that gives a unit two different orders in a movement phase keeps both
(``"MAR"`` and ``"MAR#2"``): DPjudge's rules make such a unit hold, both orders reported
invalid; a later mail's order for the unit replaces them all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from judge.core import (Build, Disband, Map, Order, OrderError, Position, Remove, Retreat,
                        Support, Waive, parse_order)
from judge.core.adjudicator.adjustments import adjustment_delta, adjustments_owed
from judge.core.maps import province_of
from judge.core import as_understood, check_order as illegal_because
from judge.service.errors import GameError
from judge.store.models import Seat

def stored_orders(seat: Seat) -> dict[str, str]:
    return json.loads(seat.orders or "{}")


def owed(pos: Position, power: str, *, build_any: bool = False) -> int:
    """How many orders the power must give this phase (0: nothing to do).

    ``build_any`` is the BUILD_ANY game rule: any vacant owned centre takes a build.
    """
    t = pos.phase.type
    if t == "M":
        return len(pos.units_of(power))
    if t == "R":
        return sum(1 for d in pos.dislodged if d.unit.power == power)
    return adjustments_owed(pos, power, build_any)


def parse_for_phase(m: Map, line: str, phase_type: str) -> Order:
    o = parse_order(m, line, phase_type)
    if not isinstance(o, OrderError):
        return o
    for other in ("M", "R", "A"):
        if other != phase_type and not isinstance(parse_order(m, line, other), OrderError):
            raise GameError("wrong_phase_order", order_type=other, phase_type=phase_type)
    raise unreadable(m, o)


def unreadable(m: Map, o: OrderError) -> GameError:
    """The refusal of a line the parser could not read: a misspelt province is answered
    with the names of the provinces nearest to it, when some are near."""
    if o.near:
        return GameError("misspelt_province", reason=o.message,
                         near=tuple(m.provinces[p].name for p in o.near))
    return GameError("order_refused", reason=o.message)


def check_order_line(pos: Position, power: str, line: str, current: dict[str, str], *,
                check_legality: bool = True, build_any: bool = False) -> tuple[str, str]:
    """The key and canonical text of an order line for ``power``, or GameError saying why not.

    Besides ownership and the phase type, the order must be possible on the board (the core's
    ``check_order``: a reachable destination, a unit to support that can get there, a fleet
    at sea to convoy, one of the unit's retreats, a vacant owned home centre to build in).
    ``check_legality=False`` (the NO_CHECK game rule) leaves those errors to the results:
    only what DPjudge's rules check at entry remains (every name known and unambiguous, which the
    parser sees to, and no coast on the destination of a supported fleet move).
    """
    m, t = pos.map, pos.phase.type
    # the unit types and coasts the board settles are filled in: the reply echoes the order
    # as it will be played (F StP-Bot is F STP/SC - BOT)
    o = as_understood(pos, parse_for_phase(m, line, t))
    if t == "A":
        key, text = _check_adjustment(pos, power, o, current, build_any)
    else:
        key, text = _check_unit_order(pos, power, o)
    if check_legality:
        why = illegal_because(pos, power, o, build_any=build_any)
        if why is not None:
            raise GameError("order_refused", reason=why.message)
    elif isinstance(o, Support) and o.dest and o.dest != province_of(o.dest):
        raise GameError("support_names_coast", place=m.location_text(province_of(o.dest)))
    return key, text


def _check_unit_order(pos: Position, power: str, o: Order) -> tuple[str, str]:
    m, t = pos.map, pos.phase.type
    spec = o.unit  # type: ignore[union-attr]
    if t == "M":
        unit = pos.unit_at(spec.province)
        if unit is None:
            raise GameError("no_unit", place=m.location_text(spec.province))
    else:
        found = next((d.unit for d in pos.dislodged if d.unit.province == spec.province), None)
        if found is None:
            raise GameError("no_dislodged_unit", place=m.location_text(spec.province))
        unit = found
        assert isinstance(o, (Retreat, Disband))
    if unit.power != power:
        raise GameError("not_your_unit", unit=unit.text(m), owner=unit.power, power=power)
    return unit.province, o.text()


def _check_adjustment(pos: Position, power: str, o: Order, current: dict[str, str],
                      build_any: bool) -> tuple[str, str]:
    m, delta = pos.map, adjustment_delta(pos, power)
    builds = [k for k in current if k[0] in "BW"]
    if isinstance(o, (Build, Waive)):
        if delta <= 0:
            raise GameError("no_builds", power=power)
        key = f"W:{len(builds) + 1}" if isinstance(o, Waive) else f"B:{o.unit.province}"
        waived = [k for k in builds if k[0] == "W"]
        if isinstance(o, Waive) and waived and len(builds) >= delta:
            return waived[-1], o.text()  # WAIVE again, every build given: the same waive
        if key not in current and len(builds) >= delta:
            raise GameError("builds_given", power=power, builds=delta)
        # where a unit can be built is the core's check (check_order_line above)
        return key, o.text()
    assert isinstance(o, Remove)
    if delta >= 0:
        raise GameError("no_removals", power=power)
    unit = pos.unit_at(o.unit.province)
    if unit is None or unit.power != power:
        raise GameError("no_unit_to_remove", power=power, place=m.location_text(o.unit.province))
    removes = [k for k in current if k[0] == "R"]
    key = f"R:{unit.province}"
    if key not in current and len(removes) >= -delta:
        raise GameError("removals_given", power=power, removals=-delta)
    return key, o.text()


@dataclass(frozen=True)
class Entry:
    """What storing one order line did, for the reply.

    ``text`` is the canonical order; ``replaced`` the unit's earlier orders it took the place
    of; ``alongside`` (NO_CHECK) the unit's other orders given in the same mail, all kept: the
    unit will hold unless one is withdrawn; ``caveat`` why it may come to nothing as things
    stand (Formal Diplomacy), if it may; ``unchanged`` that it was the power's order already.
    """

    text: str
    replaced: tuple[str, ...] = ()
    alongside: tuple[str, ...] = ()
    caveat: Caveat | None = None
    unchanged: bool = False


@dataclass(frozen=True)
class Caveat:
    """Why an accepted order may come to nothing as things stand (Formal Diplomacy), in data:
    ``kind`` is ``move`` (void, the unit would hold), ``retreat`` (void, the unit would be
    disbanded) or ``claim`` (judged when the turn is processed); ``blockers`` the powers a
    void move or retreat is not at war with, each with the core's reason; ``reason`` the core's
    reason a claim may fail."""

    kind: str
    blockers: tuple[tuple[str, str], ...] = ()
    reason: str = ""


REPEAT = "#"  # "MAR#2": a unit's second order in one mail (NO_CHECK)


def unit_keys(current: dict[str, str], key: str) -> list[str]:
    """The keys of every order stored for the unit (or build) of ``key``."""
    return [k for k in current if k == key or k.startswith(key + REPEAT)]


def place(current: dict[str, str], key: str, text: str, *, keep_repeats: bool = False,
          this_mail: set[str] | None = None) -> Entry:
    """Put ``text`` under ``key`` in a power's orders (changed in place).

    An order for a unit replaces the unit's orders, except under ``keep_repeats`` (NO_CHECK,
    movement) when the unit was already ordered differently in this mail (``this_mail``: the
    keys stored by this mail so far): then both stay, and the unit will hold.
    """
    mine = unit_keys(current, key)
    earlier = [current[k] for k in mine]
    seen = this_mail if this_mail is not None else set()
    given_now = [k for k in mine if k in seen]
    if keep_repeats and given_now:
        if text in (current[k] for k in given_now):
            return Entry(text, unchanged=True)  # the same order twice is one order
        n = 2
        while f"{key}{REPEAT}{n}" in current:
            n += 1
        current[f"{key}{REPEAT}{n}"] = text
        seen.add(f"{key}{REPEAT}{n}")
        return Entry(text, alongside=tuple(current[k] for k in given_now))
    for k in mine:
        del current[k]
    current[key] = text
    seen.add(key)
    return Entry(text, replaced=tuple(dict.fromkeys(t for t in earlier if t != text)),
                 unchanged=earlier == [text])


def enter_line(seat: Seat, pos: Position, line: str, *, check_legality: bool = True,
               build_any: bool = False, only_new: bool = False,
               this_mail: set[str] | None = None) -> Entry:
    """Check and store one order line for the seat's power; says what it did.

    A refused line (GameError) changes nothing: the unit keeps its previous order, if any.
    ``check_legality=False`` is the NO_CHECK rule (see :func:`check_order_line`; it also keeps a
    unit's different orders given in one mail, see :func:`place`), ``build_any`` BUILD_ANY;
    ``only_new`` refuses to change an order already given (CIVIL_DISORDER after the
    deadline: no late changes).
    """
    assert seat.power is not None
    current = stored_orders(seat)
    if owed(pos, seat.power, build_any=build_any) == 0:
        raise GameError("no_orders_owed", power=seat.power, phase=str(pos.phase))
    key, text = check_order_line(pos, seat.power, line, current, check_legality=check_legality,
                            build_any=build_any)
    if only_new and key in current and current[key] != text:  # the same order is no change
        raise GameError("civil_disorder_late")
    entry = place(current, key, text, this_mail=this_mail,
                  keep_repeats=not check_legality and pos.phase.type == "M")
    seat.orders = json.dumps(current, sort_keys=True)
    return entry


def submit_line(seat: Seat, pos: Position, line: str, *, check_legality: bool = True,
                build_any: bool = False, only_new: bool = False) -> str:
    """Check and store one order line for the seat's power; returns the canonical order
    (see :func:`enter_line`)."""
    return enter_line(seat, pos, line, check_legality=check_legality, build_any=build_any,
                      only_new=only_new).text


@dataclass(frozen=True)
class OrderSet:
    """A power's current orders and the units (or adjustments) still without one."""

    power: str
    phase: str
    orders: tuple[str, ...]
    missing: tuple[str, ...]
    # units given more than one order (NO_CHECK): they will hold
    repeated: tuple[str, ...] = ()
    # adjustment phases: "build" or "removal", how many are owed and how many are given
    adjustment: str = ""
    owed: int = 0
    given: int = 0

    @property
    def complete(self) -> bool:
        return not self.missing


def order_set(pos: Position, power: str, current: dict[str, str], *,
              build_any: bool = False) -> OrderSet:
    m, t = pos.map, pos.phase.type
    missing: list[str] = []
    adjustment, due = "", 0
    if t == "M":
        missing = [u.text(m) for u in pos.units_of(power) if u.province not in current]
    elif t == "R":
        missing = [d.unit.text(m) for d in pos.dislodged
                   if d.unit.power == power and d.unit.province not in current]
    else:
        due = owed(pos, power, build_any=build_any)
        left = due - len(current)
        adjustment = word = "build" if adjustment_delta(pos, power) > 0 else "removal"
        missing = [f"{left} {word}{'s' if left > 1 else ''}"] if left > 0 else []
    repeated = tuple(pos.unit_at(k.split(REPEAT)[0]).text(m)  # type: ignore[union-attr]
                     for k in sorted(current) if k.endswith(f"{REPEAT}2")
                     and pos.unit_at(k.split(REPEAT)[0]) is not None)
    return OrderSet(power, str(pos.phase), tuple(current[k] for k in sorted(current)),
                    tuple(missing), repeated, adjustment, due, len(current) if t == "A" else 0)


def orders_for_adjudication(power_seats: list[Seat]) -> dict[str, list[str]]:
    return {s.power: list(stored_orders(s).values()) for s in power_seats if s.power}
