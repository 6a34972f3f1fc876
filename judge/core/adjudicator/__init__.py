"""Adjudication of one phase: movement, retreats or adjustments (DATC v3.0).

``adjudicate(position, orders)`` takes a dict power → order lines (strings in any syntax of
the mail language, or parsed orders); powers or units without orders get the civil-disorder
defaults (units hold, dislodged units disband, builds are waived, removals are chosen by the
2023 rule).  It returns a :class:`PhaseResult` with one result per order and per defaulted
unit, and the position at the next phase to play.

Rule choices (DATC v3.0 chapter 4, preferred answers throughout):

* 4.A.1 a convoy is disrupted only when every route is;  4.A.2 Szykman rule for convoy
  paradoxes (the convoying fleets of the paradox hold), circular movement succeeds;
  4.A.3 an adjacent move goes by convoy only with "via convoy" or a legal convoy order of a
  fleet of the same power — no fall-back to the land route;  4.A.4 a convoyed attack from the
  supported move's destination does not cut the support;  4.A.5 a unit dislodged by a convoyed
  army may retreat to that army's origin;  4.A.6 convoy routes in orders are checked but not
  required;  4.A.7 a dislodged unit loses its effect on the attacker's origin only in a
  head-to-head battle.
* 4.B.1 fleet move to a split-coast province without a coast where both coasts are reachable
  is illegal;  4.B.2 with one reachable coast it goes there;  4.B.3 an unreachable coast makes
  the move illegal;  4.B.4 supports match on provinces (coasts in support orders not needed);
  4.B.5 a wrong coast for the ordered fleet is ignored;  4.B.6 unknown or irrelevant coasts are
  ignored;  4.B.7 a fleet build on a split coast needs the coast.
* 4.C.1/4.C.2 a missing or wrong unit type is ignored;  4.C.3 a build without unit type makes an
  army inland, a fleet when a coast is given, and fails otherwise;  4.C.4 a fleet build inland
  fails;  4.C.5/4.C.6 nationality in supports is ignored.
* 4.D.3 a later order to the same unit replaces the earlier one (the mail language's rule,
  allowed by 4.D.3 for automatic judges);  4.D.4–4.D.6 builds and removals are taken one at a
  time in the order given;  4.D.7 builds may be waived;  4.D.8 civil-disorder removal by the
  2023 rule (distance to the nearest owned centre over land and sea, fleets first, then
  alphabetical);  4.D.9 a unit in civil disorder may receive support to hold.
* 4.E.1 illegal orders are ignored and the unit holds;  4.E.3 no implicit orders.

``check_order(position, power, order)`` applies the same legality rules to one order as it is
given (see :mod:`.checking`), so a judge can refuse it at once; ``as_understood(position,
order)`` is the order with the types and coasts the board settles, to echo back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from judge.core.adjudicator.adjustments import adjudicate_adjustments
from judge.core.adjudicator.binding import OrdersIn
from judge.core.adjudicator.checking import as_understood, check_order
from judge.core.adjudicator.movement import adjudicate_movement
from judge.core.adjudicator.retreats import adjudicate_retreats
from judge.core.adjudicator.sequence import next_position
from judge.core.board import Dislodged, Position, Unit
from judge.core.phases import ADJUSTMENTS, MOVEMENT, Phase
from judge.core.order_results import OrderResult, PhaseOutcome


@dataclass(frozen=True, slots=True)
class PhaseResult:
    """What a phase did and where the game goes next."""

    phase: Phase
    results: tuple[OrderResult, ...]
    units: tuple[Unit, ...]  # board right after this phase (dislodged units excluded)
    dislodged: tuple[Dislodged, ...]  # units to retreat (movement phases only)
    position: Position  # the position at the next phase to play

    @property
    def next_phase(self) -> Phase:
        return self.position.phase

    def results_of(self, power: str) -> tuple[OrderResult, ...]:
        return tuple(r for r in self.results if r.power == power)


def adjudicate(position: Position, orders: OrdersIn | None = None, *,
               skip_empty: bool = True, build_any: bool = False,
               random_removals_seed: str | None = None,
               multiple_orders_hold: bool = False) -> PhaseResult:
    """Adjudicate the phase of ``position`` with ``orders`` (power → lines); see module doc.

    Game rules change it: ``skip_empty=False`` (DONT_SKIP_PHASES) plays empty retreat
    and adjustment phases, ``build_any=True`` (BUILD_ANY) allows builds in any owned centre,
    ``random_removals_seed`` (CIVIL_DISORDER) picks unordered removals at random, and
    ``multiple_orders_hold`` (NO_CHECK) makes a unit given two different orders in a movement
    phase hold, both orders reported invalid (instead of 4.D.3's later order replacing).
    """
    done, nxt = adjudicate_phase(position, orders or {}, skip_empty, build_any,
                                 random_removals_seed, multiple_orders_hold)
    return PhaseResult(position.phase, _by_power(position.map.powers, done.results), done.units,
                       done.dislodged, nxt)


def adjudicate_phase(position: Position, orders: OrdersIn, skip_empty: bool = True,
                     build_any: bool = False, random_removals_seed: str | None = None,
                     multiple_orders_hold: bool = False) -> tuple[PhaseOutcome, Position]:
    """What :func:`adjudicate` works out: the outcome of the phase (results in the order the
    phase type makes them, not grouped by power) and the position at the next phase."""
    phase = position.phase
    if phase.type == MOVEMENT:
        done = adjudicate_movement(position, orders, multiple_orders_hold)
    elif phase.type == ADJUSTMENTS:
        done = adjudicate_adjustments(position, orders, build_any, random_removals_seed)
    else:
        done = adjudicate_retreats(position, orders)
    # A dislodged unit with nowhere to go is destroyed now: no retreat phase waits for it, and
    # a retreat phase in which nobody has a choice is skipped like any empty phase.
    must_retreat = tuple([d for d in done.dislodged if d.retreats]) if done.dislodged else ()
    return done, next_position(position, done.units, must_retreat, skip_empty, build_any)


def _by_power(powers: Iterable[str], results: Iterable[OrderResult]) -> tuple[OrderResult, ...]:
    """Results grouped by power in map order, as the results mail lists them (unknown powers
    last), each group in the order given: a stable sort by power, done by bucketing."""
    groups: dict[str, list[OrderResult]] = {p: [] for p in powers}
    strays: list[OrderResult] = []
    for r in results:
        groups.get(r.power, strays).append(r)
    return tuple(chain(*groups.values(), strays))


__all__ = ["PhaseResult", "adjudicate", "adjudicate_phase", "as_understood", "check_order"]
