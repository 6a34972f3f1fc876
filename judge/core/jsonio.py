"""The adjudication JSON contract as pure functions.

``adjudicate_document(doc)`` takes the decoded input object and returns the output object;
``adjudicate_json(line)`` does the same from JSON text to compact JSON bytes (what
``judge adjudicate --jsonl`` does with each line).  Any bad input raises
:class:`judge.core.errors.InputError` with a one-line message: input that is not JSON, keys or
values of the wrong shape, a position that cannot be, order lines that cannot be read or that
name no unit on the board.  Results per order use the codes of :mod:`judge.core.order_results`
(``dislodged`` wins when a unit was dislodged); powers' orders are listed as given, followed by
the defaults the judge supplied for units left without orders.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import msgspec

from judge.core.adjudicator import adjudicate_phase
from judge.core.board import Dislodged, Position, Unit, make_position
from judge.core.errors import InputError
from judge.core.maps import Map, load_map
from judge.core.phases import ADJUSTMENTS, Phase
from judge.core.order_results import DISLODGED, INVALID, OrderResult, PhaseOutcome

_KEYS = {"variant", "phase", "units", "centers", "dislodged", "orders"}
_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


class _Usual(msgspec.Struct, forbid_unknown_fields=True):
    """The input object of the usual shape, which msgspec checks as it decodes; anything else
    is read by :func:`_read`, which says what is wrong."""

    phase: str
    variant: str = "standard"
    units: dict[str, list[str]] = msgspec.field(default_factory=dict)
    # left out: each power owns its home centres (UNSET tells that apart from ``{}``, no one
    # owns anything, which the output gives when no centre has an owner)
    centers: dict[str, list[str]] | msgspec.UnsetType = msgspec.UNSET
    dislodged: dict[str, dict[str, list[str]]] = msgspec.field(default_factory=dict)
    orders: dict[str, list[str]] = msgspec.field(default_factory=dict)


_decode_usual = msgspec.json.Decoder(_Usual).decode


def decode_json(text: bytes | str) -> Any:
    """The JSON value of ``text``, or :class:`InputError` saying why it is not JSON."""
    try:
        return _decode(text)
    except msgspec.DecodeError as exc:
        raise InputError(f"not valid JSON: {exc}") from None
    except RecursionError:  # arrays or objects nested thousands deep: no position is
        raise InputError("not valid JSON: nested too deeply") from None


def adjudicate_json(text: bytes | str) -> bytes:
    """One input object as JSON text → its output object as compact JSON (UTF-8)."""
    try:
        given = _decode_usual(text)
    except (msgspec.ValidationError, RecursionError):  # JSON, but not of the usual shape
        return _encode(adjudicate_document(decode_json(text)))
    except msgspec.DecodeError as exc:
        raise InputError(f"not valid JSON: {exc}") from None
    m = load_map(given.variant.lower())
    phase = Phase.parse(given.phase)
    # anything wrong is said as the careful reading of a document says it (which power is
    # unknown, and in which key): the position's own checks find it, orders' powers are
    # checked here
    if not given.orders.keys() <= m.powers.keys():
        return _encode(adjudicate_document(decode_json(text)))
    centers = None if given.centers is msgspec.UNSET else given.centers
    try:
        pos = make_position(m, phase, given.units, centers, given.dislodged)
    except InputError:
        return _encode(adjudicate_document(decode_json(text)))
    return _encode(_adjudicated(pos, given.orders))


def adjudicate_document(doc: Any) -> dict[str, Any]:
    """Adjudicate one input object; see module docstring."""
    return _adjudicated(*_read(doc))


def _adjudicated(pos: Position, orders: dict[str, list[str]]) -> dict[str, Any]:
    done, nxt = adjudicate_phase(pos, orders)
    _refuse_bad_orders(pos, orders, done.results)
    return _output(pos, orders, done, nxt)


def _read(doc: Any) -> tuple[Position, dict[str, list[str]]]:
    """The position and orders of an input object, every value checked."""
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
    units = power_map(m, doc.get("units", {}), "units", list)
    centers = board_centers(m, doc)
    dislodged = power_map(m, doc.get("dislodged", {}), "dislodged", dict)
    for power, entries in dislodged.items():
        for code, retreats in entries.items():
            if not isinstance(code, str) or not isinstance(retreats, list):
                raise InputError(f"dislodged units of {power} must map 'A PAR' to a list")
    orders = power_map(m, doc.get("orders", {}), "orders", list)
    for power, lines in orders.items():
        for line in lines:
            if not isinstance(line, str):
                raise InputError(f"orders of {power} must be strings")
    return make_position(m, phase, units, centers, dislodged), orders


def board_centers(m: Map, doc: dict[str, Any]) -> dict[str, list[str]] | None:
    """The ``centers`` of an input object, checked; ``None`` (each power owns its home
    centres) when it has none."""
    if "centers" not in doc:
        return None
    centers: dict[str, list[str]] = power_map(m, doc["centers"], "centers", list)
    return centers


def power_map(m: Map, value: Any, key: str, inner: type) -> dict[str, Any]:
    """``value`` checked to be an object from the map's powers to values of type ``inner``."""
    if not isinstance(value, dict):
        raise InputError(f"'{key}' must be an object mapping powers to {inner.__name__}s")
    for power, v in value.items():
        if power not in m.powers:
            raise InputError(f"unknown power {power!r} in '{key}' (powers: {', '.join(m.powers)})")
        if not isinstance(v, inner):
            raise InputError(f"'{key}' of {power} must be a {inner.__name__}")
    return value


def _refuse_bad_orders(pos: Position, orders: dict[str, list[str]],
                       results: tuple[OrderResult, ...]) -> None:
    """Unreadable orders, and orders for units not on the board, are bad input here.

    The adjudicator has already read every line and looked for its unit (and marked these
    lines invalid): its results say which lines are bad.  The first bad line in the order
    given is refused."""
    bad: dict[tuple[str, str], str] = {}
    for r in results:
        if r.result == INVALID and r.unit is None:
            why = _bad_input(pos, r)
            if why:
                bad.setdefault((r.power, r.text), why)
    if bad:
        for power, lines in orders.items():
            for line in lines:
                if (power, line) in bad:
                    raise InputError(f"{power}: {line!r}: {bad[power, line]}")


def _bad_input(pos: Position, r: OrderResult) -> str | None:
    """Why a refused line is bad input, if it is (an unreadable line, or one naming a unit
    that is not on the board in a movement or retreat phase)."""
    if r.order is None:
        return r.message
    spec = getattr(r.order, "unit", None)
    if spec is None or pos.phase.type == ADJUSTMENTS:
        return None
    on_board = {u.province for u in pos.units} | {d.unit.province for d in pos.dislodged}
    return None if spec.province in on_board else f"no unit in {spec.province}"


def _output(pos: Position, orders: dict[str, list[str]], done: PhaseOutcome, nxt: Position
            ) -> dict[str, Any]:
    # (the loops below over every unit and every result test membership and index rather
    # than call ``dict.get`` or ``setdefault``, and make no comprehension per power: on a
    # board's few dozen values, those calls would cost more than the work)
    return {
        "phase": str(pos.phase),
        "results": _results(pos.map, orders, done.results),
        "units": _units_by_power(done.units),
        "dislodged": _dislodged_by_power(done.dislodged),
        "centers": _centers_by_power(nxt.centers),
        "next_phase": str(nxt.phase),
    }


def _units_by_power(units: tuple[Unit, ...]) -> dict[str, list[str]]:
    """Power → the codes of its units, powers and codes sorted."""
    codes: dict[str, list[str]] = {}
    for u in units:
        if u.power in codes:
            codes[u.power].append(u.code)
        else:
            codes[u.power] = [u.code]
    out = {}
    for power in sorted(codes):
        mine = out[power] = codes[power]
        mine.sort()
    return out


def _dislodged_by_power(dislodged: tuple[Dislodged, ...]) -> dict[str, dict[str, list[str]]]:
    """Power → code of each of its dislodged units → where it may retreat, powers sorted."""
    out: dict[str, dict[str, list[str]]] = {}
    for d in dislodged:
        out.setdefault(d.unit.power, {})[d.unit.code] = list(d.retreats)
    return dict(sorted(out.items()))


def _centers_by_power(centers: Mapping[str, frozenset[str]]) -> dict[str, list[str]]:
    """Power → the centres it owns, powers and centres sorted, powers owning none left out."""
    out = {}
    for power in sorted(centers):
        owned = centers[power]
        if owned:
            out[power] = sorted(owned)
    return out


def _results(m: Map, orders: dict[str, list[str]], results: tuple[OrderResult, ...]
             ) -> dict[str, list[dict[str, str]]]:
    """Each power's results (in map order): its orders in the order given, then the defaults
    the judge supplied.

    Each line given has one result: a power's results are found by their texts, line by
    line.  A power that gave one line twice has two results of one text: then the results
    are sorted instead (:func:`_results_sorted`)."""
    given, supplied = _results_by_text(results)
    if given is None:
        return _results_sorted(m, orders, results)
    out = {}
    for power in m.powers:
        entries = []
        if power in given:
            of_text, lines = given[power], orders[power]
            if len(of_text) != len(lines):
                return _results_sorted(m, orders, results)
            for text in lines:
                r = of_text[text]
                entries.append({"order": text, "result": DISLODGED if r.dislodged else r.result})
        if power in supplied:
            for r in supplied[power]:
                entries.append({"order": r.text, "result": DISLODGED if r.dislodged else r.result})
        if entries:
            out[power] = entries
    return out


def _results_by_text(results: tuple[OrderResult, ...]
                     ) -> tuple[dict[str, dict[str, OrderResult]] | None,
                                dict[str, list[OrderResult]]]:
    """Power → text → the result of the line given, or ``None`` when a power has two results
    of one text; and power → the defaults supplied, in the core's order."""
    given: dict[str, dict[str, OrderResult]] = {}
    supplied: dict[str, list[OrderResult]] = {}
    for r in results:
        if r.default:
            if r.power in supplied:
                supplied[r.power].append(r)
            else:
                supplied[r.power] = [r]
        elif r.power not in given:
            given[r.power] = {r.text: r}
        elif r.text in given[r.power]:
            return None, supplied
        else:
            given[r.power][r.text] = r
    return given, supplied


def _results_sorted(m: Map, orders: dict[str, list[str]], results: tuple[OrderResult, ...]
                    ) -> dict[str, list[dict[str, str]]]:
    """:func:`_results` for any results: a line given twice has its results where it was
    first given, in the core's order.

    One sort of all results on tuples compared in C; a result's line is found with
    ``list.index`` (its first occurrence), which on a power's few lines is cheaper than a
    table of every power's lines built for each phase."""
    power_rank = _power_ranks(m)
    keyed = []
    for i, r in enumerate(results):
        at = 0
        if not r.default:
            lines = orders.get(r.power)
            if lines is not None and r.text in lines:
                at = lines.index(r.text)
        keyed.append((power_rank[r.power], r.default, at, i, r))
    keyed.sort()
    out: dict[str, list[dict[str, str]]] = {}
    mine: list[dict[str, str]] = []
    for _, _, _, _, r in keyed:
        if r.power not in out:
            mine = out[r.power] = []
        mine.append({"order": r.text, "result": DISLODGED if r.dislodged else r.result})
    return out


@cache
def _power_ranks(m: Map) -> dict[str, int]:
    return {p: i for i, p in enumerate(m.powers)}
