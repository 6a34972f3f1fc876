"""Turning a power's order lines into orders bound to that power's units.

Shared by the three phase types: parse each line for the phase, find the unit it names, and
report lines that name no unit, a foreign unit, or repeat a unit (the later order replaces the
earlier one, as in the mail language).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from judge.core.board import Unit
from judge.core.maps import Map
from judge.core.orders import Order, OrderError, parsed_lines
from judge.core.results import INVALID, OrderResult

OrdersIn = Mapping[str, Iterable["str | Order"]]


def parse_lines(m: Map, items: Iterable["str | Order"], phase_type: str
                ) -> list[tuple[str, Order | OrderError]]:
    parsed = parsed_lines(m, phase_type)
    return [(item, parsed[item]) if isinstance(item, str) else (item.text(), item)
            for item in items]


def bind_unit_orders(
    m: Map, units: Mapping[str, Unit], orders: OrdersIn, phase_type: str,
    invalid: list[OrderResult],
) -> dict[str, tuple[str, Order]]:
    """province → (text, order) for each unit with a usable order; rejects go to ``invalid``."""
    chosen: dict[str, tuple[str, Order]] = {}
    parsed = parsed_lines(m, phase_type)
    for power, items in orders.items():
        for item in items:
            # the line loop of every phase: parse by cache lookup, no list of pairs in between
            if isinstance(item, str):
                text, o = item, parsed[item]
            else:
                text, o = item.text(), item
            # no unit: an OrderError, or a Waive (the only order without one); one question
            # instead of two isinstance tests per line
            spec = getattr(o, "unit", None)
            if spec is None:
                if isinstance(o, OrderError):
                    invalid.append(OrderResult(power, None, None, text, INVALID,
                                               message=o.message))
                else:
                    invalid.append(OrderResult(power, None, o, text, INVALID,
                                               message="nothing to waive in this phase"))
                continue
            order: Order = o  # type: ignore[assignment]  # it has a unit: not an OrderError
            prov = spec.province
            u = units.get(prov)
            if u is None or u.power != power:
                why = (f"no unit in {m.provinces[prov].name}" if u is None
                       else f"the unit in {m.provinces[prov].name} is not yours")
                invalid.append(OrderResult(power, None, order, text, INVALID, message=why))
                continue
            if prov in chosen:
                old_text, old = chosen[prov]
                invalid.append(OrderResult(power, u, old, old_text, INVALID,
                                           message="replaced by a later order for the same unit"))
            chosen[prov] = (text, order)
    return chosen
