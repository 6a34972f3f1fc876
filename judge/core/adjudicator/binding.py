"""Turning a power's order lines into orders bound to that power's units.

Shared by the three phase types: parse each line for the phase, find the unit it names, and
report lines that name no unit, a foreign unit, or repeat a unit (the later order replaces the
earlier one, as in the mail language; or, with ``repeats_hold`` -- DPjudge's NO_CHECK rule --
every order of a unit given two different orders is invalid and the unit holds).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from judge.core.board import Unit
from judge.core.errors import OrderError
from judge.core.maps import Map
from judge.core.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    Support,
    Waive,
    parsed_lines,
)
from judge.core.order_results import INVALID, OrderResult

OrdersIn = Mapping[str, Iterable["str | Order"]]
# the orders given to a unit, the usual ones first: a class test that fails costs more
_UNIT_ORDERS = (Move, Support, Hold, Convoy, Retreat, Disband, Build, Remove)
# the usable order of each unit, by province: (the line as written, the order)
Bound = dict[str, tuple[str, Order]]


def parse_lines(m: Map, items: Iterable[str | Order], phase_type: str
                ) -> list[tuple[str, Order | OrderError]]:
    parsed = parsed_lines(m, phase_type)
    return [(item, parsed[item]) if isinstance(item, str) else (item.text(), item)
            for item in items]


def bind_unit_orders(m: Map, units: Mapping[str, Unit], orders: OrdersIn, phase_type: str,
                     invalid: list[OrderResult], repeats_hold: bool = False) -> Bound:
    """province → (text, order) for each unit with a usable order; rejects go to ``invalid``.

    ``repeats_hold``: a unit given two different orders keeps neither (both are invalid, and
    so is any further one), so it holds; the same order twice is one order.
    """
    chosen: Bound = {}
    repeated: set[str] = set()
    parsed = parsed_lines(m, phase_type)
    for power, items in orders.items():
        for item in items:
            # the line loop of every phase: parse by cache lookup, no list of pairs in between
            if isinstance(item, str):
                text, o = item, parsed[item]
            else:
                text, o = item.text(), item
            if not isinstance(o, _UNIT_ORDERS):  # a line that is no order, or a waive
                invalid.append(_unbound(power, text, o))
                continue
            prov = o.unit.province
            u = units[prov] if prov in units else None
            if u is None or u.power != power:
                why = (f"no unit in {m.provinces[prov].name}" if u is None
                       else f"the unit in {m.provinces[prov].name} is not yours")
                invalid.append(OrderResult(power, None, o, text, INVALID, message=why))
                continue
            if repeats_hold and (prov in repeated or (prov in chosen and chosen[prov][1] != o)):
                _both_invalid(chosen, repeated, invalid, power, u, prov, text, o)
                continue
            if prov in chosen:
                old_text, old = chosen[prov]
                invalid.append(OrderResult(power, u, old, old_text, INVALID,
                                           message="replaced by a later order for the same unit"))
            chosen[prov] = (text, o)
    return chosen


def _both_invalid(chosen: Bound, repeated: set[str], invalid: list[OrderResult], power: str,
                  u: Unit, prov: str, text: str, o: Order) -> None:
    """NO_CHECK: every order of a unit given different orders is invalid; the unit holds."""
    why = "the unit was given more than one order: it holds"
    if prov in chosen:
        old_text, old = chosen.pop(prov)
        invalid.append(OrderResult(power, u, old, old_text, INVALID, message=why))
    repeated.add(prov)
    invalid.append(OrderResult(power, u, o, text, INVALID, message=why))


def _unbound(power: str, text: str, o: OrderError | Waive) -> OrderResult:
    if isinstance(o, OrderError):
        return OrderResult(power, None, None, text, INVALID, message=o.message)
    return OrderResult(power, None, o, text, INVALID, message="nothing to waive in this phase")
