"""The pure Diplomacy core: map, positions, order parser, adjudicator (no I/O).

Nothing here imports SQLAlchemy, email, click or the rest of ``judge``; everything is frozen
values in and out (msgspec structs for what is made by the dozen each phase: units, orders,
results, phases, positions; dataclasses for the rest), deterministic, and fast.  The service
layer uses it like this::

    from judge.core import (load_map, initial_position, make_position, parse_order,
                            adjudicate, Phase, InputError)

    m = load_map("standard")                      # Map, loaded once and cached
    pos = initial_position(m)                     # Position at S1901M
    pos = make_position(m, "F1905M",              # or any position from plain codes
                        {"FRANCE": ["A PAR", "F STP/NC"]},
                        centers={"FRANCE": ["PAR", "BRE"]},
                        dislodged=None)           # retreat phases: {power: {unit: [locs]}}

    o = parse_order(m, "F Lon S A Yor-Nwy", pos.phase.type)  # Order | OrderError (a value)
    if isinstance(o, OrderError): reply(o.message)           # e.g. names ambiguous candidates

    res = adjudicate(pos, {"FRANCE": ["A Par-Bur", ...]},   # power → lines (or Order values);
                     skip_empty=True)                        # missing orders: civil disorder
    res.results            # tuple[OrderResult]: power, unit, order, text, result code,
                           #   dislodged, default, message; r.judge_text(m) gives the
                           #   classic line "France: Army Paris -> Burgundy.  (*bounce*)"
    res.units              # board right after the phase; res.dislodged: units to retreat
    nxt = res.position     # Position at the next phase to play (empty phases skipped unless
    nxt.phase              #   skip_empty=False; centres updated after the Fall turn)
    nxt.center_counts()    # {power: n};  nxt.survivors() → powers with a centre or a unit
    nxt.winner()           # power with ≥ 18 centres and a unique lead, else None

Signatures:

* ``load_map(name="standard") -> Map``
* ``initial_position(m) -> Position``;
  ``make_position(m, phase, units, centers=None, dislodged=None) -> Position``
  (``centers=None`` means home centres; raises ``InputError``)
* ``parse_order(m, text, phase_type="M") -> Order | OrderError`` with ``phase_type`` one of
  ``"M"``, ``"R"``, ``"A"``; orders: ``Hold Move Support Convoy Retreat Disband Build Remove
  Waive``, each with ``.text()`` in canonical MILA form
* ``adjudicate(position, orders, *, skip_empty=True) -> PhaseResult``
* ``check_order(position, power, order) -> OrderError | None`` — why an order (parsed, for
  the phase of ``position``) is illegal whatever the other orders are, or ``None``: the
  legality rules of the adjudicator, for refusing an impossible order when it is given;
  ``as_understood(position, order) -> Order`` the order with the unit types and coasts the
  board settles (``F StP-Bot`` is ``F STP/SC - BOT``), for echoing it back
  ``OrderError`` (text, message) is the core's one refusal: the parser and every check
  return it, never raise it
* ``Phase.parse("S1901M")``, ``str(phase)``, ``phase.successor()``
* ``Position.center_counts() / survivors() / winner() / units_of(power) / unit_at(province)``
* ``judge.core.jsonio.adjudicate_document(doc: dict) -> dict`` and ``adjudicate_json(line)
  -> bytes`` — the JSON contract of ``judge adjudicate``
* Result codes: see :mod:`judge.core.order_results`; rule choices: see
  :mod:`judge.core.adjudicator`.
"""

from judge.core.adjudicator import PhaseResult, adjudicate, as_understood, check_order
from judge.core.board import Dislodged, Position, Unit, initial_position, make_position
from judge.core.errors import InputError
from judge.core.maps import Map, load_map
from judge.core.orders import (
                               Build,
                               Convoy,
                               Disband,
                               Hold,
                               Move,
                               Order,
                               OrderError,
                               Remove,
                               Retreat,
                               Support,
                               UnitSpec,
                               Waive,
                               parse_order,
)
from judge.core.phases import Phase
from judge.core.order_results import CODES, OrderResult

__all__ = [
                               "CODES",
                               "Build",
                               "Convoy",
                               "Disband",
                               "Dislodged",
                               "Hold",
                               "InputError",
                               "Map",
                               "Move",
                               "Order",
                               "OrderError",
                               "OrderResult",
                               "Phase",
                               "PhaseResult",
                               "Position",
                               "Remove",
                               "Retreat",
                               "Support",
                               "Unit",
                               "UnitSpec",
                               "Waive",
                               "adjudicate",
                               "as_understood",
                               "check_order",
                               "initial_position",
                               "load_map",
                               "make_position",
                               "parse_order",
]
