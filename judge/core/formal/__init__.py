"""The Formal Diplomacy variant (E. Sabatine's rules): a pure layer around standard
adjudication.

Wars must be declared before attacking, ended only by surrender, provinces can be claimed as
spheres of influence, and the game ends after a fixed number of years with victory points::

    from judge.core import load_map, initial_position
    from judge.core.formal import (initial_formal_state, adjudicate_formal, status_lines,
                                   turn_lines, may_send_private_press)

    m = load_map("standard")
    state = initial_formal_state(m, turns=10)           # game ends after Fall 1910
    res = adjudicate_formal(initial_position(m), state,
                            {"FRANCE": ["DWO Germany", "A Par-Bur", "F Bre SOI MAO"]})
    res.position, res.state                              # next phase, next FormalState
    res.results                                          # per unit (void moves: "void")
    res.formal_results                                   # per formal order line
    res.declarations, res.surrenders, res.voided, res.claims, res.spheres_created,
    res.spheres_ended, res.vp_changes, res.game_over, res.winners
    turn_lines(m, res) + status_lines(m, res.state)      # Judge-style text for the mail
    may_send_private_press(res.state, "FRANCE", "GERMANY")   # rule 8

Orders (see :mod:`judge.core.formal.orders`): ``DWO <power>`` / ``Declare War On <power>``,
``SUR`` / ``Surrender`` / ``Uncle!``, ``[<unit>] SOI <province>`` / ``Sphere of Influence
<province>``, ``<unit> S <unit> SOI <province>``, ``Undo SOI in <province>``; mixed freely with
standard orders in ``adjudicate_formal``'s order lists.  The turn sequence (rule 9) is in
:mod:`judge.core.formal.turn`; the position-dependent checks in :mod:`judge.core.formal.rules`.

Choices where the rules are silent:

* A "home province" of a power (surrender refusal, rule 5) is one of its home supply centres,
  the only home territory the map data records; "home country" (rule 2) likewise.
* Surrenders of one turn are judged together against the wars at the start of the step;
  declarations against the wars after the surrenders, so two powers declaring on each other in
  the same turn both pay 1 VP.  A second ``DWO`` of the same power on the same target is invalid.
* Occupation for rule 4 is the occupation at the start of the phase.  A void move is reported
  with result code ``void`` and the reason; a void retreat disbands the unit (result
  ``disband``).  A move void for lack of war is reported as such even if it is also illegal.
* Claims: a supporter must be able to move to the claimed province; its support is cut like a
  support of a move (dislodged, or attacked by another power's unit from anywhere but the
  claimed province).  Claims are contested among all valid claims; the winner then still fails
  if its unit was dislodged or a foreign unit ends the turn there, and nobody else gets the
  province.  When the turn has retreats the winner waits for them (``pending``).  A claim
  without a unit is made by the power's unit in the province, or its only unit next to it.
* Formal orders are accepted only in movement phases; a later order for a unit replaces an
  earlier one, standard or formal.
* The game ends after the Fall turn of ``first_year + turns - 1``; the winners are the
  surviving powers with the most victory points (eliminated powers keep their points but do
  not win).  Fall points are counted for every power.
"""

from judge.core.formal.orders import (ClaimSphere, DeclareWar, FormalOrder, SupportClaim,
                                      Surrender, UndoSphere, find_power, parse_formal_order)
from judge.core.formal.press import may_send_private_press, press_refusals
from judge.core.formal.report import (sphere_list, status_lines, turn_lines, unit_lines,
                                      vp_table, war_matrix)
from judge.core.formal.rules import (can_reach, claim_problem, claim_reach_problem,
                                     claiming_unit, entry_blockers, surrender_refusal)
from judge.core.formal.state import (DEFAULT_TURNS, FormalState, PendingClaim,
                                     initial_formal_state, make_formal_state)
from judge.core.formal.turn import (ClaimOutcome, FormalOrderResult, FormalResult,
                                    SphereEnded, Surrendered, VoidedMove, VPChange,
                                    adjudicate_formal)

__all__ = [
    "ClaimSphere", "DeclareWar", "FormalOrder", "SupportClaim", "Surrender", "UndoSphere",
    "find_power", "parse_formal_order", "may_send_private_press", "press_refusals",
    "sphere_list", "status_lines", "turn_lines", "unit_lines", "vp_table", "war_matrix",
    "can_reach", "claim_problem", "claim_reach_problem", "claiming_unit", "entry_blockers",
    "surrender_refusal", "DEFAULT_TURNS", "FormalState", "PendingClaim",
    "initial_formal_state", "make_formal_state", "ClaimOutcome", "FormalOrderResult",
    "FormalResult", "SphereEnded", "Surrendered", "VoidedMove", "VPChange",
    "adjudicate_formal",
]
