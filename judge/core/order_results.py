"""Order results: a small code vocabulary, structured records and the Judge's wording.

Result codes (``OrderResult.result``; the JSON contract uses the same strings):

========== =====================================================================
ok         movement: the move/support/convoy/hold worked; retreats: the unit retreated
bounce     a move or retreat failed against other units (a retreat bounce disbands)
cut        a support that was cut (also by dislodgement)
void       a support or convoy that matched no order of the unit it names
no_convoy  a convoyed move without an intact convoy route; a convoy that carried nobody
dislodged  the unit was dislodged (JSON: takes precedence over the other codes)
invalid    an illegal or unparseable order: ignored, the unit holds / nothing built
disband    a dislodged unit disbanded (ordered, or by default)
build      a unit was built
remove     a unit was removed in an adjustment phase (ordered, or civil disorder)
waive      a build was waived (ordered, or by default)
========== =====================================================================
"""

from __future__ import annotations

import msgspec

from judge.core.board import Dislodged, Unit
from judge.core.maps import ARMY, Map
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
)

OK, BOUNCE, CUT, VOID, NO_CONVOY, DISLODGED, INVALID = (
    "ok", "bounce", "cut", "void", "no_convoy", "dislodged", "invalid")
DISBAND, BUILD, REMOVE, WAIVE = "disband", "build", "remove", "waive"
CODES = (OK, BOUNCE, CUT, VOID, NO_CONVOY, DISLODGED, INVALID, DISBAND, BUILD, REMOVE, WAIVE)
_MARKS = {BOUNCE: "bounce", CUT: "cut", VOID: "void", NO_CONVOY: "no convoy",
          DISLODGED: "dislodged", INVALID: "invalid", DISBAND: "disbanded"}


class OrderResult(msgspec.Struct, frozen=True, gc=False):
    """What happened to one order (or to one unit left without orders).

    A frozen value built in C (msgspec): one is made per unit of every phase.  ``gc=False``:
    it holds strings, units and orders only, never part of a reference cycle.
    """

    power: str
    unit: Unit | None  # the unit ordered, when there is one
    order: Order | None  # the order as understood (None if it did not parse)
    text: str  # the order as written, or the default the judge supplied
    result: str  # one of CODES
    dislodged: bool = False
    default: bool = False  # supplied by the judge (civil disorder), not written by the player
    message: str = ""  # why an order was invalid

    @property
    def code(self) -> str:
        """The single code of the JSON contract: ``dislodged`` wins over the rest."""
        return DISLODGED if self.dislodged else self.result

    def marks(self) -> list[str]:
        """The codes the results line marks the order with (``bounce``, ``dislodged``…); none
        for an order that simply worked, or for a unit disbanded as ordered."""
        if self.result == DISBAND and isinstance(self.order, Disband):
            return []
        codes = [c for c in (self.result,) if c in _MARKS]
        if self.dislodged and DISLODGED not in codes:
            codes.append(DISLODGED)
        return codes

    def judge_text(self, m: Map, target: Unit | None = None) -> str:
        """``Austria: Army Vienna -> Galicia.  (*bounce*)`` — the classic results line."""
        body = describe(m, self.power, self.unit, self.order, self.text, target)
        marks = [_MARKS[c] for c in self.marks()]
        tail = f"  (*{', '.join(marks)}*)" if marks else ""
        return f"{self.power.capitalize()}: {body}{tail}"


class PhaseOutcome(msgspec.Struct, frozen=True, gc=False):
    """What adjudicating the orders of one phase gives: a result per order and per unit left
    without orders, the board after the phase and the units dislodged (movement only)."""

    results: tuple[OrderResult, ...]
    units: tuple[Unit, ...]  # in province order, dislodged units excluded
    dislodged: tuple[Dislodged, ...] = ()


def _unit_words(m: Map, kind: str | None, location: str) -> str:
    word = {ARMY: "Army", None: "Unit"}.get(kind, "Fleet")
    return f"{word} {m.location_text(location)}"


def describe(m: Map, power: str, unit: Unit | None, order: Order | None, text: str,
             target: Unit | None = None) -> str:
    """The Judge's wording of an order, ending with a full stop."""
    if order is None:
        return f"{text}."
    if isinstance(order, Waive):
        return "Build waived."
    if isinstance(order, Build):
        kind = order.unit.kind
        what = "an army" if kind == ARMY else "a fleet" if kind else "a unit"
        return f"Builds {what} in {m.location_text(order.unit.location)}."
    who = (unit.text(m) if unit else _unit_words(m, order.unit.kind, order.unit.location))
    if isinstance(order, Remove):
        kind = unit.kind if unit else order.unit.kind
        what = "the army" if kind == ARMY else "the fleet" if kind else "the unit"
        loc = unit.location if unit else order.unit.location
        return f"Removes {what} in {m.location_text(loc)}."
    if isinstance(order, Hold):
        return f"{who} HOLD."
    if isinstance(order, Disband):
        return f"{who} DISBAND."
    if isinstance(order, (Move, Retreat)):
        stops = (*getattr(order, "route", ()), order.dest)
        return who + "".join(f" -> {m.location_text(s)}" for s in stops) + "."
    if isinstance(order, (Support, Convoy)):
        t = (target.text(m) if target and target.province == order.target.province
             else _unit_words(m, order.target.kind, order.target.location))
        verb = "SUPPORT" if isinstance(order, Support) else "CONVOY"
        dest = f" -> {m.location_text(order.dest)}" if order.dest else ""
        return f"{who} {verb} {t}{dest}."
    return f"{text}."
