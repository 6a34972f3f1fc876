"""Impossible orders are refused when they arrive, with the exact error, and the unit keeps
its previous order; a RESIGN or EJECT that leaves every remaining power ordered processes the
phase at once."""

from __future__ import annotations

from gamekit import Judge, signon, start_full_game

MASTER = "master@example.org"


def summary(body: str, power: str, phase: str) -> str:
    return body.split(f"Orders of {power} in war1901 for {phase}:")[1]


def process(j: Judge, phase: str) -> None:
    reply = j.mail(MASTER, "SIGNON Mwar1901 mpw\nPROCESS")
    assert "has been processed;" in reply.body, reply.body
    assert any(m.subject == f"JUDGE:war1901 - {phase} Results" for m in j.last_broadcasts)


def test_impossible_movement_orders_are_refused_and_the_previous_order_kept(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nA Par-Bur\n")
    assert "Accepted: A PAR - BUR" in reply.body
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nA Par-Mos\nF Bre-Mun\n"
                   "A Mar S A Par-Mos\nF Bre C A Par-Lon\nA Par-Bur VIA\nA Mar-Mao\n")
    body = reply.body
    assert "> A Par-Mos\nError: an army in Paris cannot reach Moscow: they are not adjacent.\n" in body
    assert "> F Bre-Mun\nError: a fleet in Brest cannot reach Munich.\n" in body
    assert "> A Mar S A Par-Mos\nError: Army Marseilles cannot reach Moscow.\n" in body
    assert "> F Bre C A Par-Lon\nError: only a fleet at sea can convoy.\n" in body
    assert ("> A Par-Bur VIA\nError: Paris and Burgundy have no coast, so no convoy can go"
            " from Paris to Burgundy.\n") in body
    assert "> A Mar-Mao\nError: an army cannot move to Mid-Atlantic Ocean.\n" in body
    assert "Accepted" not in body
    mine = summary(body, "France", "S1901M")
    assert "  A PAR - BUR\n" in mine and "MOS" not in mine
    assert "Still without orders: Fleet Brest, Army Marseilles." in mine
    # a legal order given after a refused one for the same unit is taken
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nA Mar-Mos\nA Mar S A Par-Bur\n")
    assert "Error: an army in Marseilles cannot reach Moscow: they are not adjacent." in reply.body
    assert "Accepted: A MAR S A PAR - BUR" in reply.body
    # the stored orders are what the results show: Paris moves, nothing was marked invalid
    process(j, "S1901M")
    (results,) = {m.body for m in j.last_broadcasts if "Results" in m.subject}
    assert "France: Army Paris -> Burgundy." in results
    assert "France: Army Marseilles SUPPORT Army Paris -> Burgundy." in results
    assert "invalid" not in results.lower()


def test_convoys_at_entry(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    eng = f"{signon(j, 'ENGLAND')}\n"
    reply = j.mail(assigned["ENGLAND"], eng + "A Lvp-Nwy\n")  # no fleet at sea yet
    assert "> A Lvp-Nwy\nError: no convoy could take Liverpool to Norway.\n" in reply.body
    reply = j.mail(assigned["ENGLAND"], eng + "F Lon-Nth\nF Edi-Nwg\nA Lvp-Edi\n")
    assert reply.body.count("Accepted") == 3
    process(j, "S1901M")
    # with fleets in the North Sea and the Norwegian Sea, a convoy route to Norway exists
    reply = j.mail(assigned["ENGLAND"], eng + "A Edi-Nwy\nF Nth C A Edi-Nwy\n"
                   "F Nwg C A Edi-Bel\nF Nwg C A Edi-Nwy\n")
    body = reply.body
    assert "Accepted: A EDI - NWY" in body
    assert "Accepted: F NTH C A EDI - NWY" in body
    assert ("> F Nwg C A Edi-Bel\nError: Norwegian Sea is on no convoy route from Edinburgh"
            " to Belgium.\n") in body
    assert "Accepted: F NWG C A EDI - NWY" in body


def test_impossible_retreats_and_builds_are_refused(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)

    def orders(power: str, *lines: str) -> str:
        return j.mail(assigned[power], f"{signon(j, power)}\n" + "\n".join(lines)).body

    orders("FRANCE", "A Par-Bur", "A Mar S A Par-Bur")
    orders("ITALY", "A Ven-Tyr")
    process(j, "S1901M")
    orders("FRANCE", "A Bur-Mun")
    orders("ITALY", "A Tyr S A Bur-Mun")
    process(j, "F1901M")

    # retreats: Germany waits so that its first retreat does not complete the phase
    body = orders("GERMANY", "SET WAIT", "A Mun-Ruh", "A Mun-Bur", "A Ber-Sil", "A Mun-Tyr")
    assert "Accepted: A MUN R RUH" in body
    assert ("> A Mun-Bur\nError: the Army Munich cannot retreat to Burgundy; it may retreat to"
            " Bohemia, Ruhr, Silesia.\n") in body
    assert "> A Ber-Sil\nError: no dislodged unit in Berlin must retreat.\n" in body
    assert "> A Mun-Tyr\nError: the Army Munich cannot retreat to Tyrolia; it may" in body
    assert "  A MUN R RUH\n" in summary(body, "Germany", "F1901R")
    body = orders("GERMANY", "SET NOWAIT")
    assert "F1901R has been processed" in body

    # adjustments: France has one build, Germany one removal
    body = orders("FRANCE", "Build A Mar", "Build A Mun", "Build F Par", "Build A Par")
    assert "> Build A Mar\nError: Marseilles is occupied.\n" in body
    assert "> Build A Mun\nError: Munich is not a home centre of France.\n" in body
    assert "> Build F Par\nError: a fleet cannot be built in Paris.\n" in body
    assert "Accepted: A PAR B" in body
    assert "  A PAR B\n" in summary(body, "France", "W1901A")
    body = orders("GERMANY", "Remove A Par", "Build A Ber")
    assert "> Remove A Par\nError: Germany has no unit in Paris.\n" in body
    assert "> Build A Ber\nError: Germany has no builds this winter.\n" in body
    assert "Still without orders: 1 removal." in body


def test_the_hook_for_no_check_defers_errors_to_the_results(judge_in_process: Judge) -> None:
    from judge.core import initial_position, load_map
    from judge.service.orders import submit_line
    from judge.store.models import Seat
    seat = Seat(power="FRANCE", orders="{}")
    pos = initial_position(load_map())
    assert submit_line(seat, pos, "A Par-Mos", check_legality=False) == "A PAR - MOS"
    assert "A PAR - MOS" in seat.orders


ALL_BUT_TURKEY = {
    "AUSTRIA": ["A Vie H", "A Bud H", "F Tri H"],
    "ENGLAND": ["F Lon H", "F Edi H", "A Lvp H"],
    "FRANCE": ["A Par-Bur", "A Mar H", "F Bre H"],
    "GERMANY": ["A Mun H", "A Ber H", "F Kie H"],
    "ITALY": ["A Ven H", "A Rom H", "F Nap H"],
    "RUSSIA": ["A War H", "A Mos H", "F Sev H", "F StP/SC H"],
}


def _all_order_but_turkey(j: Judge, assigned: dict[str, str], skip: str = "") -> None:
    for power, lines in ALL_BUT_TURKEY.items():
        if power == skip:
            continue
        reply = j.mail(assigned[power], f"{signon(j, power)}\n" + "\n".join(lines))
        assert "Every unit has an order." in reply.body
    assert not any("Results" in m.subject for m in j.last_broadcasts)


def test_resign_of_the_last_power_without_orders_processes_the_phase(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    # while another power still owes orders, a RESIGN does not process anything
    reply = j.mail(assigned["AUSTRIA"], f"{signon(j, 'AUSTRIA')}\nRESIGN\n")
    assert "You have resigned from war1901." in reply.body
    assert "has been processed" not in reply.body
    _all_order_but_turkey(j, assigned, skip="AUSTRIA")
    reply = j.mail(assigned["TURKEY"], f"{signon(j, 'TURKEY')}\nRESIGN\n")
    assert "You have resigned from war1901." in reply.body
    assert "S1901M has been processed" in reply.body
    (results,) = {m.body for m in j.last_broadcasts if m.subject == "JUDGE:war1901 - S1901M"
                  " Results"}
    assert "France: Army Paris -> Burgundy." in results
    assert "Turkey: Army Constantinople HOLD." in results
    assert ":: Deadline: F1901M " in results


def test_eject_of_the_last_power_without_orders_processes_the_phase(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    _all_order_but_turkey(j, assigned)
    reply = j.mail(MASTER, "SIGNON Mwar1901 mpw\nEJECT Turkey\n")
    assert "Ejected TURKEY." in reply.body
    assert "S1901M has been processed" in reply.body
    assert any(m.subject == "JUDGE:war1901 - S1901M Results" for m in j.last_broadcasts)


def test_a_waiting_power_still_holds_the_phase_after_a_resign(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    j.mail(assigned["AUSTRIA"], f"{signon(j, 'AUSTRIA')}\nSET WAIT\n")
    _all_order_but_turkey(j, assigned)
    reply = j.mail(assigned["TURKEY"], f"{signon(j, 'TURKEY')}\nRESIGN\n")
    assert "has been processed" not in reply.body
    reply = j.mail(assigned["AUSTRIA"], f"{signon(j, 'AUSTRIA')}\nSET NOWAIT\n")
    assert "S1901M has been processed" in reply.body
