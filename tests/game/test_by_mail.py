"""Games by mail through the real pipeline and store (no SMTP): joining, signing on, orders,
processing, deadlines, repairs."""

from __future__ import annotations

from gamekit import Judge, player, signon, start_full_game


def test_create_join_start_and_first_orders(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    starts = [m for m in j.last_broadcasts if "Game Starting" in m.subject]
    # the players' copy and the master's (which alone names the addresses)
    assert [m.to for m in starts] == [sorted(assigned.values()), ["master@example.org"]]
    for start in starts:
        assert start.subject == "JUDGE:war1901 - S1901M Game Starting"
        assert start.body.startswith(":: Judge: JUDGE  Game: war1901  Variant: Standard\n"
                                     ":: Deadline: S1901M ")
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nA Par-Bur\nF Bre-Mao\n")
    assert "Accepted: A PAR - BUR" in reply.body
    assert "Still without orders: Army Marseilles." in reply.body


def test_wrong_password_stops_the_mail_and_repeated_failures_are_throttled_but_never_the_player(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    reply = j.mail(assigned["FRANCE"], "SIGNON Fwar1901 nope\nA Par-Bur\nLIST\n")
    assert "Error: wrong password for Fwar1901." in reply.body
    assert "The rest of this mail was not executed." in reply.body
    assert reply.body.count("Not executed: the SIGNON on line 1 failed") == 2
    assert "Accepted" not in reply.body
    guesses = [j.mail("mallory@example.org", "SIGNON Fwar1901 guess").body for _ in range(4)]
    assert all("wrong password" in g for g in guesses[:2])
    # after two failures the guesser must wait (doubling) before anything is checked again
    assert "too many failed sign-ons for Fwar1901; try again after" in guesses[2]
    # the right password from the player's own address always works
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nA Par-Bur\n")
    assert "Accepted: A PAR - BUR" in reply.body
    # another role of the same game is not affected
    reply = j.mail(assigned["ENGLAND"], f"{signon(j, 'ENGLAND')}\nF Lon-Nth\n")
    assert "Accepted: F LON - NTH" in reply.body


def test_signon_to_an_unknown_game(judge_in_process: Judge) -> None:
    reply = judge_in_process.mail(player(1), "SIGNON Fnosuch pw\nHELP\n")
    assert 'Error: no game named "nosuch" on this judge.' in reply.body
    assert "Not executed: the SIGNON on line 1 failed" in reply.body


def test_reply_goes_to_sender_and_registered_address(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    reply = j.mail("elsewhere@example.net", f"{signon(j, 'TURKEY')}\nF Ank-Bla\n")
    assert set(reply.to) == {"elsewhere@example.net", assigned["TURKEY"]}


def test_orders_for_another_powers_unit_and_bad_orders_are_refused(judge_in_process: Judge
                                                                    ) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    reply = j.mail(assigned["ENGLAND"], f"{signon(j, 'ENGLAND')}\nA Par-Bur\nA Lvp-Yor\n"
                   "F Lon-Xyz\nBuild A Lon\nF Edi-Nwg\nF Edi-Nth\n")
    body = reply.body
    assert "Error: the Army Paris is France's, not England's." in body
    assert "Accepted: A LVP - YOR" in body
    assert "> F Lon-Xyz\nError: unknown province 'xyz'." in body
    assert "Error: that is an adjustment order, but this is a movement phase." in body
    # the later order for the fleet in Edinburgh replaced the earlier one
    summary = body.split("Orders of England in war1901 for S1901M:")[1]
    assert "F EDI - NTH" in summary and "F EDI - NWG" not in summary
    assert "Still without orders: Fleet London." in summary


def test_processing_when_all_orders_are_in_and_results_mail(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    # SET WAIT holds the phase even when every order is in
    j.mail(assigned["AUSTRIA"], f"{signon(j, 'AUSTRIA')}\nSET WAIT\n")
    for power, orders in ALL_HOLD.items():
        j.mail(assigned[power], f"{signon(j, power)}\n" + "\n".join(orders))
    assert not [m for m in j.last_broadcasts if "Results" in m.subject]
    reply = j.mail(assigned["AUSTRIA"], f"{signon(j, 'AUSTRIA')}\nSET NOWAIT\n")
    assert "S1901M has been processed" in reply.body
    (results,) = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert results.subject == "JUDGE:war1901 - S1901M Results"
    assert results.body.startswith(":: Judge: JUDGE  Game: war1901  Variant: Standard\n"
                                   ":: Deadline: F1901M ")
    assert "France: Army Paris -> Burgundy." in results.body
    assert "Germany: Army Munich -> Burgundy.  (*bounce*)" in results.body
    assert set(results.to) == {"master@example.org", *assigned.values()}


ALL_HOLD = {
    "AUSTRIA": ["A Vie H", "A Bud H", "F Tri H"],
    "ENGLAND": ["F Lon H", "F Edi H", "A Lvp H"],
    "FRANCE": ["A Par-Bur", "A Mar S A Par-Bur", "F Bre H"],
    "GERMANY": ["A Mun-Bur", "A Ber H", "F Kie H"],
    "ITALY": ["A Ven H", "A Rom H", "F Nap H"],
    "RUSSIA": ["A War H", "A Mos H", "F Sev H", "F StP/SC H"],
    "TURKEY": ["A Con H", "A Smy H", "F Ank H"],
}
