"""Map documents: the JSON a picture is drawn from.

A map document is the input of ``judge adjudicate`` (``variant``, ``phase``, ``units``,
``centers``, ``dislodged``, ``orders``: the board at the start of the phase and its orders)
with a few keys more:

``outcome``
    the output of ``judge adjudicate`` for those orders (``results``, ``dislodged``,
    ``centers``, …).  Without it, orders are adjudicated when the caller asks
    (``judge map``), or drawn as orders given so far.
``game``, ``note``
    the game's name and a remark for the title.
``formal``
    Formal Diplomacy: ``{"spheres": {province: power}, "wars": [[power, power], …],
    "points": {power: n}}``.

The same document is what a mail that carries a picture keeps in the outbox, so the picture
is drawn when the mail is sent, from facts fixed when it was written.  Every mistake in a
document raises :class:`judge.core.errors.InputError` with one line saying what is wrong.
"""

from __future__ import annotations

from typing import Any, Mapping

from judge.core.board import Dislodged, Position, make_position
from judge.core.errors import InputError
from judge.core.jsonio import adjudicate_document, board_centers, power_map
from judge.core.maps import Map, load_map, parse_unit_code
from judge.core.phases import Phase
from judge.core.order_results import CODES, DISLODGED, OrderResult
from judge.pictures.picture import Formal, Picture, parse_marks

BOARD_KEYS = {"variant", "phase", "units", "centers", "dislodged", "orders"}
KEYS = BOARD_KEYS | {"outcome", "game", "note", "formal"}


def _text(doc: Mapping[str, Any], key: str, limit: int = 80) -> str:
    value = doc.get(key, "")
    if not isinstance(value, str) or len(value) > limit:
        raise InputError(f"'{key}' must be a string of at most {limit} characters")
    return value


def picture_from_document(doc: Any, *, adjudicate_orders: bool = False) -> Picture:
    """The picture a document describes (see the module docstring)."""
    if not isinstance(doc, dict):
        raise InputError("a map document must be a JSON object")
    extra = set(doc) - KEYS
    if extra:
        raise InputError(f"unknown key(s): {', '.join(sorted(extra))}")
    variant = doc.get("variant", "standard")
    if not isinstance(variant, str):
        raise InputError("'variant' must be a string")
    m = load_map(variant.lower())
    if not isinstance(doc.get("phase"), str):
        raise InputError("'phase' is required, e.g. \"S1901M\"")
    phase = Phase.parse(doc["phase"])
    units = power_map(m, doc.get("units", {}), "units", list)
    centers = board_centers(m, doc)  # none given: each power owns its home centres
    dislodged = power_map(m, doc.get("dislodged", {}), "dislodged", dict)
    orders = power_map(m, doc.get("orders", {}), "orders", list)
    for power, lines in orders.items():
        if not all(isinstance(line, str) for line in lines):
            raise InputError(f"orders of {power} must be strings")
    board = make_position(m, phase, units, centers, dislodged or None)
    outcome = doc.get("outcome")
    if outcome is None and orders and adjudicate_orders:
        outcome = adjudicate_document({k: v for k, v in doc.items() if k in BOARD_KEYS})
    formal = _formal(m, doc["formal"]) if doc.get("formal") is not None else None
    game, note = _text(doc, "game", 32), _text(doc, "note")
    if outcome is None:
        marks = parse_marks(m, phase, {p: [(t, None, False) for t in lines]
                                       for p, lines in orders.items()}, board)
        return Picture(m, phase, board.units, board.centers, marks, waiting=board.dislodged,
                       game=game, note=note, formal=formal)
    return _played(m, board, outcome, game, note, formal)


def _played(m: Map, board: Position, outcome: Any, game: str, note: str,
            formal: Formal | None) -> Picture:
    if not isinstance(outcome, dict):
        raise InputError("'outcome' must be an object, as 'judge adjudicate' prints it")
    results = power_map(m, outcome.get("results", {}), "outcome.results", list)
    entries: dict[str, list[tuple[str, str | None, bool]]] = {}
    for power, items in results.items():
        for item in items:
            if not (isinstance(item, dict) and isinstance(item.get("order"), str)
                    and item.get("result") in CODES
                    and isinstance(item.get("default", False), bool)):
                raise InputError(f"outcome.results of {power}: each must be "
                                 f"{{\"order\": text, \"result\": one of {', '.join(CODES)}}}")
            entries.setdefault(power, []).append((item["order"], item["result"],
                                                  item.get("default", False)))
    marks = parse_marks(m, board.phase, entries, board)
    after_dislodged = power_map(m, outcome.get("dislodged", {}), "outcome.dislodged", dict)
    retreats: dict[str, tuple[str, ...]] = {}
    for power, units in after_dislodged.items():
        for code, where in units.items():
            if not isinstance(code, str) or not isinstance(where, list) \
                    or not all(isinstance(w, str) and m.is_location(w.upper()) for w in where):
                raise InputError(f"outcome.dislodged of {power} must map 'A PAR' to locations")
            retreats[parse_unit_code(code)[1].partition("/")[0]] = tuple(w.upper() for w in where)
    hit = [mk.unit for mk in marks if mk.result == DISLODGED and mk.unit is not None]
    dislodged = tuple(Dislodged(u, retreats.get(u.province, ())) for u in hit)
    after = power_map(m, outcome.get("centers", {}), "outcome.centers", list)
    centers = make_position(m, board.phase, {}, after).centers if "centers" in outcome \
        else board.centers
    return Picture(m, board.phase, board.units, centers, marks, waiting=board.dislodged,
                   dislodged=dislodged, game=game, note=note, formal=formal)


def _formal(m: Map, value: Any) -> Formal:
    if not isinstance(value, dict):
        raise InputError("'formal' must be an object with spheres, wars and points")
    spheres = value.get("spheres", {})
    wars = value.get("wars", [])
    points = value.get("points", {})
    if not isinstance(spheres, dict) or not all(
            isinstance(k, str) and k.upper() in m.provinces and v in m.powers
            for k, v in spheres.items()):
        raise InputError("'formal.spheres' must map provinces to powers")
    if not isinstance(wars, list) or not all(
            isinstance(w, list) and len(w) == 2 and all(p in m.powers for p in w) for w in wars):
        raise InputError("'formal.wars' must be a list of pairs of powers")
    if not isinstance(points, dict) or not all(
            p in m.powers and isinstance(n, int) for p, n in points.items()):
        raise InputError("'formal.points' must map powers to numbers")
    return Formal({k.upper(): v for k, v in spheres.items()},
                  tuple((a, b) for a, b in (sorted(w) for w in wars)), dict(points))


def results_by_power(results: tuple[OrderResult, ...]) -> dict[str, list[dict[str, Any]]]:
    """A phase's results as ``outcome.results``: power → [{"order": text, "result": code}],
    the order in its canonical form (read back the same whatever the player wrote), with
    ``"default": true`` for orders the judge supplied."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        text = r.order.text() if r.order is not None else r.text
        entry: dict[str, Any] = {"order": text, "result": r.code}
        if r.default:
            entry["default"] = True  # supplied by the judge: a hold is not worth a symbol
        out.setdefault(r.power, []).append(entry)
    return out


__all__ = ["KEYS", "picture_from_document", "results_by_power"]
