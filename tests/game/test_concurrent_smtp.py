"""Two mails for the same game delivered at the same moment over two SMTP connections: both
are applied, the phase is processed once, nothing is corrupted."""

from __future__ import annotations

import threading

from conftest import RunningJudge, make_mail
from smtpkit import exchange, one_copy_each, text, wait_assignments, wait_broadcast


def test_two_players_complete_a_phase_at_the_same_moment(judge: RunningJudge) -> None:
    exchange(judge, "gm@example.org", "CREATE war1901 mpw")
    exchange(judge, "a@example.org", "JOIN war1901 pa")
    exchange(judge, "b@example.org", "JOIN war1901 pb")
    exchange(judge, "gm@example.org", "SIGNON Mwar1901 mpw\nSTART")
    mine = wait_assignments(judge, ["a@example.org", "b@example.org"])
    units = {"AUSTRIA": "A Vie H\nA Bud H\nF Tri H", "ENGLAND": "F Lon H\nF Edi H\nA Lvp H",
             "FRANCE": "A Par H\nA Mar H\nF Bre H", "GERMANY": "A Mun H\nA Ber H\nF Kie H",
             "ITALY": "A Ven H\nA Rom H\nF Nap H", "RUSSIA": "A War H\nA Mos H\nF Sev H\nF StP/SC H",
             "TURKEY": "A Con H\nA Smy H\nF Ank H"}
    mails = [make_mail(f"SIGNON {power[0]}war1901 p{addr[0]}\n{units[power]}", sender=addr)
             for addr, power in mine.items()]
    barrier = threading.Barrier(len(mails))

    def deliver(msg) -> None:
        with judge.smtp() as s:
            barrier.wait()
            s.sendmail(str(msg["From"]), ["judge@example.org"], msg.as_bytes())

    threads = [threading.Thread(target=deliver, args=(m,)) for m in mails]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    results = text(wait_broadcast(judge, "JUDGE:war1901 - S1901M Results"))
    judge.settle()
    one_copy_each(judge, "JUDGE:war1901 - S1901M Results")
    for power in mine.values():
        # every order of the powers that ordered worked (the others are in civil disorder)
        lines = [x for x in results.split("\n") if x.startswith(f"{power.capitalize()}: ")]
        assert lines and not [x for x in lines if "(*" in x], results
    reply = exchange(judge, "gm@example.org", "LIST war1901")
    assert "Phase: F1901M" in reply
