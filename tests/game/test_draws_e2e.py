"""The seed "Draws" replayed by SMTP against a running ``judge serve``: the master sets up a
board where Austria, England and France are the only survivors (POSITION), makes the game
NoDIAS, and the three vote the seed's five examples (Austria, England, then France, so that
each result is reached on the last vote).  Each passed draw or concession is announced to everyone
-- players, the observer
and the master -- under the Judge's subject, with the members named in the body; the master
RESUMEs the game between examples, which also clears the votes."""

from __future__ import annotations

import time

from conftest import RunningJudge, polls
from smtpkit import exchange, observe, text, wait_audience, wait_broadcast

MASTER = "gm@example.org"
OBSERVER = "watcher@example.org"
G = "war1901"

EXAMPLES = [  # (France, England, Austria), the result's subject tail, the members named
    (("SET DRAW AEF", "SET DRAW AEF", "SET DRAW AEF"), "Draw Declared: AEF",
     ["Austria", "England", "France"]),
    (("SET DRAW AE", "SET DRAW AEF", "SET DRAW AEF"), "Draw Declared: AEF",
     ["Austria", "England", "France"]),
    (("SET DRAW AE", "SET DRAW AEF", "SET DRAW AE"), "Draw Declared: AE", ["Austria", "England"]),
    (("SET DRAW AEF", "SET DRAW AE", "SET DRAW AE"), None, []),
    (("SET DRAW A", "SET DRAW A", "SET NODRAW"), "Concession: A", ["Austria"]),
]


def copies_to(judge: RunningJudge, subject: str, address: str) -> int:
    return sum(1 for m in judge.replies()
               if str(m["Subject"]) == subject and str(m["To"]) == address)


def test_the_five_examples_of_the_seed_by_mail(judge: RunningJudge) -> None:
    assert f"Game {G} (Standard) created" in exchange(judge, MASTER, f"CREATE {G} mpw")
    players = [f"p{i}@example.org" for i in range(7)]
    for i, address in enumerate(players):
        assert "You have joined" in exchange(judge, address, f"JOIN {G} pw{i}")
    wait_broadcast(judge, f"JUDGE:{G} - S1901M Game Starting")
    who: dict[str, tuple[str, str]] = {}
    for _ in polls(20):
        for i, address in enumerate(players):
            for m in judge.replies():
                if str(m["To"]) == address and " You are " in str(m["Subject"]):
                    who[str(m["Subject"]).rsplit(" ", 1)[1].upper()] = (address, f"pw{i}")
        if len(who) == 7:
            break
    assert len(who) == 7
    assert "You have asked to observe" in observe(judge, OBSERVER, G)
    everyone = [MASTER, OBSERVER, *players]

    reply = exchange(judge, MASTER, f"SIGNON M{G} mpw\nPAUSE\nPOSITION S1905M\n"
                     "Austria: A Vie; centers Vie Bud Tri\n"
                     "England: F Lon; centers Lon Edi Lvp\n"
                     "France: A Par; centers Par Bre Mar\n"
                     "ENDPOSITION\nRESUME\nSET NODIAS\n")
    assert f"{G} is running again, at S1905M." in reply
    assert f"{G} is now NoDIAS; every vote was cleared." in reply
    nodias = wait_audience(judge, f"JUDGE:{G} - S1905M Draws: NoDIAS", everyone)
    assert "a draw may leave out survivors" in text(nodias[0])

    def vote(power: str, line: str) -> str:
        address, pw = who[power]
        reply = exchange(judge, address, f"SIGNON {power[0]}{G} {pw}\n{line}")
        assert "Error" not in reply, reply
        return reply

    seen: dict[str, int] = {}
    for number, (lines, tail, members) in enumerate(EXAMPLES, 1):
        # Austria first: in example 5 his silence already counts as SET NODRAW, so the
        # concession would pass as soon as England votes, before his SET NODRAW arrives.
        replies = [vote(power, line) for power, line in reversed(list(zip(
            ("FRANCE", "ENGLAND", "AUSTRIA"), lines)))]
        if tail is None:  # example 4: no draw, the game goes on
            assert "The vote lasts until S1905M is processed." in replies[-1], number
            assert "State: active" in exchange(judge, MASTER, f"LIST {G}")
            continue
        assert "The vote has passed" in replies[-1], (number, replies[-1])
        subject = f"JUDGE:{G} - S1905M {tail}"
        seen[subject] = seen.get(subject, 0) + 1
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(
                copies_to(judge, subject, a) < seen[subject] for a in everyone):
            time.sleep(0.05)
        for address in everyone:
            assert copies_to(judge, subject, address) == seen[subject], (number, address)
        mail = [m for m in judge.replies() if str(m["Subject"]) == subject][-1]
        body = text(mail)
        assert body.startswith(f":: Judge: JUDGE  Game: {G}  Variant: Standard\n")
        if tail.startswith("Draw"):
            assert f"The draw is shared by {len(members)} powers:" in body
            for name in members:
                assert f"  {name}\n" in body
            others = {"Austria", "England", "France"} - set(members)
            assert not any(f"  {name}\n" in body for name in others)
        else:
            assert f"it has been conceded to {members[0]}" in body
        if number < len(EXAMPLES):
            reply = exchange(judge, MASTER, f"SIGNON M{G} mpw\nRESUME")
            assert f"{G} is running again, at S1905M." in reply, reply
    reply = exchange(judge, MASTER, f"SIGNON M{G} mpw\nLIST")
    assert "State: finished" in reply and "Ended in S1905M in a concession to Austria." in reply
