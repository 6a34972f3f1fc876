"""Games by mail through the real pipeline and store (no SMTP): joining, signing on, orders,
processing, deadlines, repairs."""

from __future__ import annotations

from gamekit import Judge, judge_in_process, player, signon, start_full_game  # noqa: F401


def test_create_join_start_and_first_orders(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    starts = [m for m in j.last_broadcasts if "Game Starting" in m.subject]
    assert len(starts) == 1 and starts[0].subject == "JUDGE:war1901 - S1901M Game Starting"
    assert starts[0].body.startswith(":: Judge: JUDGE  Game: war1901  Variant: Standard\n"
                                     ":: Deadline: S1901M ")
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nA Par-Bur\nF Bre-Mao\n")
    print(reply.body)
    assert "Accepted: A PAR - BUR" in reply.body
    assert "Still without orders: Army Marseilles." in reply.body
