"""The adjudication JSON contract of DESIGN §3.3 as one pure function.

``adjudicate_document(doc)`` takes the decoded input object and returns the output object;
any bad input raises :class:`judge.core.errors.InputError` with a one-line message.  Results
per order use the codes of :mod:`judge.core.results` (``dislodged`` wins when a unit was
dislodged); powers' orders are listed as given, followed by the defaults the judge supplied
for units left without orders.
"""

from __future__ import annotations

from typing import Any

from judge.core.adjudicator import adjudicate
from judge.core.board import Position, make_position
from judge.core.errors import InputError
from judge.core.maps import Map, load_map
from judge.core.orders import OrderError, parse_order
from judge.core.phases import RETREATS, Phase

_KEYS = {"variant", "phase", "units", "centers", "dislodged", "orders"}


def adjudicate_document(doc: Any) -> dict:
    """Adjudicate one §3.3 input object; see module docstring."""
    if not isinstance(doc, dict):
        raise InputError("input must be a JSON object")
    extra = set(doc) - _KEYS
    if extra:
        raise InputError(f"unknown key(s): {', '.join(sorted(extra))}")
    variant = doc.get("variant", "standard")
    if not isinstance(variant, str):
        raise InputError("'variant' must be a string")
    m = load_map(variant.lower())
    if "phase" not in doc or not isinstance(doc["phase"], str):
        raise InputError("'phase' is required, e.g. \"S1901M\"")
    phase = Phase.parse(doc["phase"])
    units = _power_map(m, doc.get("units", {}), "units", list)
    centers = _power_map(m, doc.get("centers", {}), "centers", list)
    dislodged = _power_map(m, doc.get("dislodged", {}), "dislodged", dict)
    if dislodged and phase.type != RETREATS:
        raise InputError("'dislodged' is only for retreat phases")
    for power, entries in dislodged.items():
        for code, retreats in entries.items():
            if not isinstance(code, str) or not isinstance(retreats, list):
                raise InputError(f"dislodged units of {power} must map 'A PAR' to a list")
    orders = _power_map(m, doc.get("orders", {}), "orders", list)
    for power, lines in orders.items():
        for line in lines:
            if not isinstance(line, str):
                raise InputError(f"orders of {power} must be strings")
    pos = make_position(m, phase, units, centers, dislodged)
    _check_orders(m, pos, orders)

    result = adjudicate(pos, orders)
    results: dict[str, list[dict[str, str]]] = {}
    for power in m.powers:
        given = orders.get(power, [])
        mine = [r for r in result.results if r.power == power]
        mine.sort(key=lambda r: (r.default, given.index(r.text) if r.text in given else 0))
        if mine:
            results[power] = [{"order": r.text, "result": r.code} for r in mine]
    out_units: dict[str, list[str]] = {}
    for u in result.units:
        out_units.setdefault(u.power, []).append(u.code)
    out_dis: dict[str, dict[str, list[str]]] = {}
    for d in result.dislodged:
        out_dis.setdefault(d.unit.power, {})[d.unit.code] = list(d.retreats)
    nxt = result.position
    return {
        "phase": str(phase),
        "results": results,
        "units": {p: sorted(v) for p, v in sorted(out_units.items())},
        "dislodged": dict(sorted(out_dis.items())),
        "centers": {p: sorted(c) for p, c in sorted(nxt.centers.items()) if c},
        "next_phase": str(nxt.phase),
    }


def _power_map(m: Map, value: Any, key: str, inner: type) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"'{key}' must be an object mapping powers to {inner.__name__}s")
    for power, v in value.items():
        if power not in m.powers:
            raise InputError(f"unknown power {power!r} in '{key}' (powers: {', '.join(m.powers)})")
        if not isinstance(v, inner):
            raise InputError(f"'{key}' of {power} must be a {inner.__name__}")
    return value


def _check_orders(m: Map, pos: Position, orders: dict[str, list[str]]) -> None:
    """Unreadable orders and orders for units not on the board are bad input here."""
    on_board = {u.province for u in pos.units} | {d.unit.province for d in pos.dislodged}
    for power, lines in orders.items():
        for line in lines:
            o = parse_order(m, line, pos.phase.type)
            if isinstance(o, OrderError):
                raise InputError(f"{power}: {line!r}: {o.message}")
            spec = getattr(o, "unit", None)
            if spec is not None and pos.phase.type != "A" and spec.province not in on_board:
                raise InputError(f"{power}: {line!r}: no unit in {spec.province}")
