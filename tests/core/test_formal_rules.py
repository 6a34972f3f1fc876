"""Formal Diplomacy turn processing: every numbered rule of the Formal Diplomacy rules on small positions."""

from judge.core import load_map, make_position
from judge.core.formal import adjudicate_formal, make_formal_state, status_lines, turn_lines

M = load_map("standard")


def pos(phase, units, centers=None, dislodged=None):
    return make_position(M, phase, units, centers=centers or {}, dislodged=dislodged)


def state(**kw):
    return make_formal_state(M, **kw)


def run(position, st, orders):
    return adjudicate_formal(position, st, orders)


def unit_result(res, loc):
    return next(r for r in res.results if r.unit is not None and r.unit.location == loc)


def formal(res, text):
    return next(r for r in res.formal_results if r.text == text)


FR_GE = {"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"]}


# -- rule 3: declarations ---------------------------------------------------------------------
def test_rule3_declaration_makes_symmetric_war_and_costs_one_point():
    res = run(pos("S1901M", FR_GE), state(), {"FRANCE": ["DWO Germany"]})
    assert res.declarations == (("FRANCE", "GERMANY"),)
    assert res.state.at_war("GERMANY", "FRANCE")
    assert res.state.points("FRANCE") == -1 and res.state.points("GERMANY") == 0


def test_rule3_invalid_declarations_cost_nothing():
    p = pos("S1901M", {**FR_GE, "ITALY": ["A VEN"]})
    res = run(p, state(wars=[("FRANCE", "ITALY")]),
              {"FRANCE": ["DWO France", "DWO Italy", "DWO Russia"]})
    assert res.declarations == () and res.state.points("FRANCE") == 0
    assert "yourself" in formal(res, "DWO France").message
    assert "already at war" in formal(res, "DWO Italy").message
    assert "eliminated" in formal(res, "DWO Russia").message  # Russia has nothing here
    assert {r.result for r in res.formal_results} == {"invalid"}


def test_rule3_mutual_declarations_both_pay_and_a_repeat_is_invalid():
    res = run(pos("S1901M", FR_GE), state(),
              {"FRANCE": ["DWO Germany", "Declare War On Germany"], "GERMANY": ["DWO France"]})
    assert res.state.points("FRANCE") == -1 and res.state.points("GERMANY") == -1
    assert "already declared" in formal(res, "Declare War On Germany").message


def test_rule3_formal_orders_only_in_movement_phases():
    p = pos("S1901R", {"FRANCE": ["A PIC"]}, dislodged={"GERMANY": {"A BEL": ["HOL"]}})
    res = run(p, state(), {"FRANCE": ["DWO Germany"]})
    assert not res.state.wars and "movement phases" in res.formal_results[0].message


# -- rule 4: no attack without war ----------------------------------------------------------
def test_rule4_move_into_occupied_province_without_war_is_void_and_holds():
    res = run(pos("S1901M", FR_GE), state(), {"FRANCE": ["A Pic-Bel", "A Bur S A Pic-Bel"]})
    r = unit_result(res, "PIC")
    assert r.result == "void" and "not at war with Germany" in r.message
    assert "Germany's army is in Belgium" in r.message
    assert r.judge_text(M).startswith("France: Army Picardy -> Belgium.  (*void*)")
    assert res.position.unit_at("BEL").power == "GERMANY"
    assert res.position.unit_at("PIC").power == "FRANCE"  # it held
    assert [v.against for v in res.voided] == [("GERMANY",)]
    assert any("Void moves" in line for line in turn_lines(M, res))


def test_rule4_empty_owned_centre_and_sphere_need_war_too():
    p = pos("S1901M", {"FRANCE": ["A BUR", "A PIC"]}, centers={"GERMANY": ["MUN"]})
    res = run(p, state(spheres={"BEL": "ENGLAND"}), {"FRANCE": ["A Bur-Mun", "A Pic-Bel"]})
    assert unit_result(res, "BUR").result == "void"
    assert "supply centre of Germany" in unit_result(res, "BUR").message
    assert "sphere of influence of England" in unit_result(res, "PIC").message
    # empty, unowned, unclaimed: free
    res = run(p, state(), {"FRANCE": ["A Bur-Ruh"]})
    assert unit_result(res, "BUR").result == "ok"


def test_rule4_with_war_the_attack_goes_ahead():
    res = run(pos("S1901M", FR_GE), state(wars=[("FRANCE", "GERMANY")]),
              {"FRANCE": ["A Pic-Bel", "A Bur S A Pic-Bel"]})
    assert unit_result(res, "PIC").result == "ok"
    assert unit_result(res, "BEL").dislodged


def test_rule4_supporting_an_attack_needs_no_war():
    p = pos("S1901M", {"FRANCE": ["A PIC"], "ENGLAND": ["A BUR"], "GERMANY": ["A BEL"]})
    res = run(p, state(wars=[("FRANCE", "GERMANY")]),
              {"FRANCE": ["A Pic-Bel"], "ENGLAND": ["A Bur S A Pic-Bel"]})
    assert unit_result(res, "BUR").result == "ok"
    assert unit_result(res, "BEL").dislodged and not res.voided


def test_rule4_convoying_an_attack_needs_no_war():
    p = pos("S1901M", {"FRANCE": ["A BRE"], "ENGLAND": ["F ENG"]})
    res = run(p, state(wars=[("FRANCE", "GERMANY")], spheres={"BEL": "GERMANY"}),
              {"FRANCE": ["A Bre-Bel via convoy"], "ENGLAND": ["F Eng C A Bre-Bel"]})
    assert res.position.unit_at("BEL").power == "FRANCE"
    assert unit_result(res, "ENG").result == "ok"


def test_rule4_retreat_into_foreign_centre_without_war_disbands():
    p = pos("S1901R", {}, centers={"GERMANY": ["HOL"]},
            dislodged={"ENGLAND": {"A BEL": ["HOL", "PIC"]}})
    res = run(p, state(), {"ENGLAND": ["A Bel-Hol"]})
    r = res.results[0]
    assert r.result == "disband" and "not at war with Germany" in r.message
    assert res.position.unit_at("HOL") is None
    res = run(p, state(wars=[("ENGLAND", "GERMANY")]), {"ENGLAND": ["A Bel-Hol"]})
    assert res.position.unit_at("HOL").power == "ENGLAND"


# -- rule 5: surrender ------------------------------------------------------------------------
def test_rule5_surrender_ends_every_war_and_pays_each_enemy():
    p = pos("S1902M", {"FRANCE": ["A PIC"], "GERMANY": ["A RUH"], "ITALY": ["A PIE"]})
    st = state(wars=[("FRANCE", "GERMANY"), ("FRANCE", "ITALY")])
    res = run(p, st, {"FRANCE": ["Uncle!"]})
    assert not res.state.wars and res.surrenders[0].to == ("GERMANY", "ITALY")
    assert [res.state.points(x) for x in ("FRANCE", "GERMANY", "ITALY")] == [-2, 1, 1]
    assert "France surrenders to Germany, Italy." in turn_lines(M, res)[1]


def test_rule5_surrender_refused_when_at_war_with_nobody():
    res = run(pos("S1902M", FR_GE), state(), {"FRANCE": ["SUR"]})
    assert formal(res, "SUR").result == "refused" and "nobody" in formal(res, "SUR").message
    assert res.state.points("FRANCE") == 0


def test_rule5_surrender_refused_while_owning_an_enemy_home_centre():
    p = pos("S1902M", {"FRANCE": ["A PIC"], "GERMANY": ["A RUH"]},
            centers={"FRANCE": ["PAR", "MUN"], "GERMANY": ["BER"]})
    res = run(p, state(wars=[("FRANCE", "GERMANY")]), {"FRANCE": ["SUR"]})
    assert formal(res, "SUR").result == "refused"
    assert "you own Munich, a home centre of Germany" in formal(res, "SUR").message
    assert res.state.at_war("FRANCE", "GERMANY") and res.state.points("FRANCE") == 0


def test_rule5_surrender_refused_with_a_unit_in_an_enemy_home_province():
    p = pos("S1902M", {"FRANCE": ["A KIE"], "GERMANY": ["A RUH"], "ITALY": ["A ROM"]},
            centers={"FRANCE": ["PAR"], "GERMANY": ["KIE"]})
    res = run(p, state(wars=[("FRANCE", "GERMANY"), ("FRANCE", "ITALY")]), {"FRANCE": ["SUR"]})
    assert "your unit is in Kiel, a home province of Germany" in formal(res, "SUR").message
    assert len(res.state.wars) == 2  # no partial surrender to Italy either


# -- rule 6: spheres of influence -------------------------------------------------------------
def test_rule6_claim_from_inside_and_from_next_door():
    p = pos("S1901M", {"FRANCE": ["A PIC", "F MAO"]})
    res = run(p, state(), {"FRANCE": ["A Pic SOI Pic", "F MAO SOI Por"]})
    assert dict(res.state.spheres) == {"PIC": "FRANCE", "POR": "FRANCE"}
    assert {c.outcome for c in res.claims} == {"established"}
    assert unit_result(res, "PIC").text == "A PIC SOI PIC"


def test_rule6_claim_without_unit_uses_the_only_unit_that_can():
    p = pos("S1901M", {"FRANCE": ["A PIC", "A MAR"]})
    assert run(p, state(), {"FRANCE": ["SOI Bel"]}).state.spheres == {"BEL": "FRANCE"}
    p = pos("S1901M", {"FRANCE": ["A PIC", "A BUR"]})
    res = run(p, state(), {"FRANCE": ["SOI Bel"]})
    assert not res.state.spheres and "name one" in res.formal_results[0].message


def test_rule6_invalid_claims():
    p = pos("S1901M", {"FRANCE": ["A PIC", "F MAO", "A BUR"], "GERMANY": ["A RUH"]},
            centers={"GERMANY": ["HOL"]})
    res = run(p, state(spheres={"BEL": "ENGLAND"}),
              {"FRANCE": ["A Pic SOI Bel", "F MAO SOI Gas", "A Bur SOI Ruh"],
               "GERMANY": ["A Ruh SOI Hol"]})
    assert "sphere of influence of England" in formal(res, "A Pic SOI Bel").message
    assert res.state.spheres == {"GAS": "FRANCE", "HOL": "GERMANY"}  # vacant, unowned
    res2 = run(p, state(), {"FRANCE": ["F MAO SOI Par", "A Bur SOI Ruh", "A Pic SOI Hol"]})
    assert "neither in nor next to Paris" in formal(res2, "F MAO SOI Par").message
    assert "not vacant" in formal(res2, "A Bur SOI Ruh").message
    assert "neither in nor next to Holland" in formal(res2, "A Pic SOI Hol").message
    p = pos("S1901M", {"FRANCE": ["A BUR"]}, centers={"GERMANY": ["MUN"]})
    res3 = run(p, state(), {"FRANCE": ["A Bur SOI Mun"]})
    assert "supply centre of Germany" in res3.formal_results[0].message
    res4 = run(p, state(wars=[("FRANCE", "GERMANY")]), {"FRANCE": ["A Bur SOI Mun"]})
    assert res4.state.spheres == {"MUN": "FRANCE"}


def test_rule6_the_claiming_unit_does_nothing_else():
    p = pos("S1901M", {"FRANCE": ["A PIC"]})
    res = run(p, state(), {"FRANCE": ["A Pic-Bel", "A Pic SOI Bel"]})
    assert res.position.unit_at("PIC") is not None and res.state.spheres == {"BEL": "FRANCE"}
    assert any("replaced by a later order" in r.message for r in res.results)
    res = run(p, state(), {"FRANCE": ["A Pic SOI Bel", "A Pic-Bel"]})
    assert not res.state.spheres and res.position.unit_at("BEL") is not None
    assert "replaced by a later order" in formal(res, "A Pic SOI Bel").message


def test_rule6_rival_claims_of_equal_strength_stand_off():
    p = pos("S1901M", {"FRANCE": ["A PIC"], "GERMANY": ["A RUH"]})
    res = run(p, state(), {"FRANCE": ["A Pic SOI Bel"], "GERMANY": ["A Ruh SOI Bel"]})
    assert not res.state.spheres
    assert [c.outcome for c in res.claims] == ["standoff", "standoff"]


def test_rule6_supported_claim_beats_a_rival():
    p = pos("S1901M", {"FRANCE": ["A PIC"], "GERMANY": ["A RUH"], "ENGLAND": ["F NTH"]})
    res = run(p, state(), {"FRANCE": ["A Pic SOI Bel"], "GERMANY": ["A Ruh SOI Bel"],
                           "ENGLAND": ["F Nth S A Pic SOI Bel"]})
    assert res.state.spheres == {"BEL": "FRANCE"}
    outcome = {c.power: (c.strength, c.outcome) for c in res.claims}
    assert outcome == {"FRANCE": (2, "established"), "GERMANY": (1, "beaten")}


def test_rule6_cut_support_gives_a_standoff_and_a_void_support_counts_nothing():
    p = pos("S1901M", {"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A RUH", "A MUN"]})
    orders = {"FRANCE": ["A Pic SOI Bel", "A Bur S A Pic SOI Bel"],
              "GERMANY": ["A Ruh SOI Bel", "A Mun-Bur"]}
    res = run(p, state(wars=[("FRANCE", "GERMANY")]), orders)
    assert not res.state.spheres and formal(res, "A Bur S A Pic SOI Bel").result == "cut"
    res = run(p, state(), {"FRANCE": ["A Pic SOI Bel", "A Bur S A Pic SOI Hol"]})
    assert formal(res, "A Bur S A Pic SOI Hol").result == "void"


def test_rule6_claim_fails_if_its_unit_is_dislodged():
    p = pos("S1901M", {"FRANCE": ["A PIC"], "GERMANY": ["A BEL", "A BUR"]})
    res = run(p, state(wars=[("FRANCE", "GERMANY")]),
              {"FRANCE": ["A Pic SOI Pic"], "GERMANY": ["A Bel-Pic", "A Bur S A Bel-Pic"]})
    assert res.claims[0].outcome == "dislodged" and not res.state.spheres


def test_rule6_claim_fails_if_a_foreign_unit_ends_the_turn_there():
    p = pos("S1901M", {"FRANCE": ["A PIC"], "GERMANY": ["A RUH"]})
    res = run(p, state(), {"FRANCE": ["A Pic SOI Bel"], "GERMANY": ["A Ruh-Bel"]})
    assert res.claims[0].outcome == "occupied" and not res.state.spheres


def test_rule6_claims_wait_for_the_retreats():
    p = pos("S1901M", {"FRANCE": ["A PIC", "A BUR", "A GAS"], "GERMANY": ["A MAR"]})
    st = state(wars=[("FRANCE", "GERMANY")])
    res = run(p, st, {"FRANCE": ["A Pic SOI Bel", "A Bur-Mar", "A Gas S A Bur-Mar"]})
    assert res.position.phase.type == "R" and res.claims[0].outcome == "pending"
    assert not res.state.spheres and len(res.state.pending_claims) == 1
    res2 = run(res.position, res.state, {"GERMANY": ["A Mar-Spa"]})
    assert res2.state.spheres == {"BEL": "FRANCE"} and not res2.state.pending_claims
    assert res2.claims[0].outcome == "established"


# -- rule 7: ending spheres, elimination ----------------------------------------------------
def test_rule7_undo_costs_nothing():
    res = run(pos("S1901M", FR_GE), state(spheres={"PIC": "FRANCE"}),
              {"FRANCE": ["Undo SOI in Pic"], "GERMANY": ["Undo SOI in Pic"]})
    assert not res.state.spheres and res.state.points("FRANCE") == 0
    assert "not your sphere" in res.formal_results[-1].message or \
        "not your sphere" in res.formal_results[0].message
    assert res.spheres_ended[0].reason == "undo"


def test_rule7_incursion_ends_the_sphere_and_costs_its_owner():
    res = run(pos("S1901M", FR_GE), state(wars=[("FRANCE", "GERMANY")], spheres={"RUH": "FRANCE"}),
              {"GERMANY": ["A Bel-Ruh"]})
    assert not res.state.spheres and res.state.points("FRANCE") == -1
    assert res.spheres_ended[0].by == "GERMANY"
    # a bounce is no incursion
    p = pos("S1901M", {**FR_GE, "ITALY": ["A ROM"]})
    res = run(p, state(wars=[("FRANCE", "GERMANY")], spheres={"RUH": "ITALY"}),
              {"GERMANY": ["A Bel-Ruh"]})
    assert res.state.spheres == {"RUH": "ITALY"} and res.voided  # no war with Italy: void
    res = run(p, state(wars=[("FRANCE", "GERMANY"), ("ITALY", "GERMANY")],
                       spheres={"BUR": "ITALY"}), {"GERMANY": ["A Bel-Bur"]})
    assert res.state.spheres == {"BUR": "ITALY"}  # bounced off the French army: no incursion


def test_rule7_wars_and_spheres_of_an_eliminated_power_lapse():
    p = pos("F1901M", {"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"]},
            centers={"FRANCE": ["PAR"]})
    st = state(wars=[("FRANCE", "GERMANY")], spheres={"HOL": "GERMANY"})
    res = run(p, st, {"FRANCE": ["A Pic-Bel", "A Bur S A Pic-Bel"], "GERMANY": ["A Bel H"]})
    assert res.state.wars  # dislodged, still in the game until its retreat
    res2 = run(res.position, res.state, {})  # civil disorder: the German army disbands
    assert not res2.state.wars and not res2.state.spheres
    assert res2.spheres_ended[0].reason == "eliminated"


# -- rule 9: order of processing ---------------------------------------------------------------
def test_rule9_surrender_then_declaration_in_the_same_turn():
    st = state(wars=[("FRANCE", "GERMANY")])
    res = run(pos("S1902M", FR_GE), st,
              {"FRANCE": ["DWO Germany", "SUR", "A Pic-Bel", "A Bur S A Pic-Bel"]})
    # the surrender ends the war, the declaration starts a new one before the moves
    assert res.state.at_war("FRANCE", "GERMANY")
    assert res.state.points("FRANCE") == -2 and res.state.points("GERMANY") == 1
    assert res.position.unit_at("BEL").power == "FRANCE"


def test_rule9_a_surrender_takes_effect_before_the_moves():
    st = state(wars=[("FRANCE", "GERMANY")])
    res = run(pos("S1902M", FR_GE), st, {"FRANCE": ["SUR", "A Pic-Bel", "A Bur S A Pic-Bel"]})
    assert unit_result(res, "PIC").result == "void"


def test_rule9_undo_comes_before_the_moves():
    p = pos("S1901M", {"FRANCE": ["A PIC"], "GERMANY": ["A RUH"]})
    res = run(p, state(spheres={"BEL": "FRANCE"}),
              {"FRANCE": ["Undo SOI in Bel"], "GERMANY": ["A Ruh-Bel"]})
    assert res.position.unit_at("BEL").power == "GERMANY" and res.state.points("FRANCE") == 0


def test_rule9_an_incursion_makes_room_for_a_new_claim_only_after_it():
    p = pos("S1901M", {"FRANCE": ["A PIC"], "GERMANY": ["A RUH", "A HOL"]})
    st = state(wars=[("FRANCE", "GERMANY")], spheres={"BEL": "GERMANY"})
    res = run(p, st, {"FRANCE": ["A Pic-Bel"], "GERMANY": ["A Hol SOI Bel"]})
    # France entered the German sphere: it ends; the German re-claim fails (French unit there)
    assert res.spheres_ended[0].reason == "incursion" and not res.state.spheres
    assert [c.outcome for c in res.claims] == ["occupied"]


# -- rules 1 and 2: victory points and the end of the game ------------------------------------
def test_rule2_points_after_fall_only():
    units = {"FRANCE": ["A BEL"], "GERMANY": ["A RUH"]}
    centers = {"FRANCE": ["PAR", "BEL", "MUN"], "GERMANY": ["BER", "KIE", "HOL"]}
    res = run(pos("S1901M", units, centers), state(), {})
    assert not res.vp_changes
    res = run(pos("F1901M", units, centers), state(), {})
    assert res.state.points("FRANCE") == 2  # Belgium, Munich
    assert res.state.points("GERMANY") == 0  # +1 Holland, -1 Munich
    assert res.turn_complete and not res.game_over


def test_rule2_fall_points_counted_after_the_fall_retreats():
    p = pos("F1901M", {"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL", "A HOL"]},
            centers={"FRANCE": ["PAR"], "GERMANY": ["HOL", "BEL"]})
    res = run(p, state(wars=[("FRANCE", "GERMANY")]),
              {"FRANCE": ["A Pic-Bel", "A Bur S A Pic-Bel"]})
    assert not res.vp_changes and not res.turn_complete
    res2 = run(res.position, res.state, {"GERMANY": ["A Bel-Ruh"]})
    assert res2.turn_complete
    assert res2.state.points("FRANCE") == 1 and res2.state.points("GERMANY") == 1


def test_rule1_game_ends_after_the_fall_of_the_last_year_and_ties_share():
    units = {"FRANCE": ["A BEL"], "GERMANY": ["A HOL"], "ENGLAND": ["A YOR"]}
    centers = {"FRANCE": ["BEL"], "GERMANY": ["HOL"], "ENGLAND": ["LON"]}
    st = state(turns=2)
    res = run(pos("F1901M", units, centers), st, {})
    assert not res.game_over
    res = run(pos("F1902M", units, centers), st, {})
    assert res.game_over and res.winners == ("FRANCE", "GERMANY") and res.state.over
    assert "France and Germany share the victory." in turn_lines(M, res)[-1]
    res = run(pos("F1910M", units, centers), state(vp={"ENGLAND": 5}), {})
    assert res.winners == ("ENGLAND",) and "England wins." in turn_lines(M, res)[-1]
    assert not run(pos("F1909M", units, centers), state(), {}).game_over


# -- rule 10: what the mail shows ----------------------------------------------------------------
def test_rule10_status_lines_show_wars_spheres_and_points():
    st = state(wars=[("FRANCE", "GERMANY")], spheres={"BEL": "FRANCE"}, vp={"FRANCE": 3})
    lines = status_lines(M, st)
    assert "  France     .   .   -   X   .   .   ." in lines
    assert "  Belgium (BEL): France" in lines
    assert lines[lines.index("Victory points (game ends after Fall 1910):") + 1] == \
        "  France     3"



def test_rule6_a_foreign_retreat_into_a_waiting_claim_makes_it_fail():
    p = pos("S1901M", {"FRANCE": ["A BUR", "A GAS", "A PIE"], "GERMANY": ["A MAR"]})
    st = state(wars=[("FRANCE", "GERMANY")])
    res = run(p, st, {"FRANCE": ["A Gas SOI Spa", "A Bur-Mar", "A Pie S A Bur-Mar"]})
    assert [c.outcome for c in res.claims] == ["pending"]
    res2 = run(res.position, res.state, {"GERMANY": ["A Mar-Spa"]})
    assert not res2.state.spheres and [c.outcome for c in res2.claims] == ["occupied"]
    assert res2.position.unit_at("SPA").power == "GERMANY"


def test_the_report_is_in_map_order_whatever_the_order_of_the_powers_given():
    """The mail layer hands the orders over in the order the players joined: the same orders
    must give the same report."""
    p = pos("S1901M", {"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A RUH"],
                       "ENGLAND": ["F LON"]})
    orders = {"GERMANY": ["A Ruh SOI Bel", "DWO England"],
              "FRANCE": ["A Pic SOI Bel", "A Bur S A Pic SOI Bel", "DWO England"],
              "ENGLAND": ["DWO Germany"]}
    forward = run(p, state(), orders)
    backward = run(p, state(), dict(reversed(list(orders.items()))))
    assert turn_lines(M, forward) == turn_lines(M, backward)
    assert [c.power for c in forward.claims] == ["FRANCE", "GERMANY"]
    assert forward.declarations == (("ENGLAND", "GERMANY"), ("FRANCE", "ENGLAND"),
                                    ("GERMANY", "ENGLAND"))
