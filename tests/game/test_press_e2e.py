"""Press by SMTP against a running ``judge serve``: a private press reaches only its recipients
and the master, each in a copy of its own with the game's header; a grey broadcast reaches
everyone else without its sender's name (the master's copy names it); a NO_PRESS refusal
sends nothing; HISTORY shows each reader what they may see."""

from __future__ import annotations


from conftest import RunningJudge, polls
from smtpkit import audience, exchange, observe, text, wait_audience, wait_broadcast

MASTER = "gm@example.org"
OBSERVER = "watcher@example.org"
G = "chat1901"


def test_press_by_smtp(judge: RunningJudge) -> None:
    assert f"Game {G} (Standard) created" in exchange(judge, MASTER, f"CREATE {G} mpw")
    players = [f"p{i}@example.org" for i in range(7)]
    for i, address in enumerate(players):
        assert "You have joined" in exchange(judge, address, f"JOIN {G} pw{i}")
    wait_broadcast(judge, f"JUDGE:{G} - S1901M Game Starting")
    who: dict[str, tuple[str, str]] = {}  # power -> (address, password)
    for _ in polls(20):
        for i, address in enumerate(players):
            for m in judge.replies():
                if str(m["To"]) == address and " You are " in str(m["Subject"]):
                    who[str(m["Subject"]).rsplit(" ", 1)[1].upper()] = (address, f"pw{i}")
        if len(who) == 7:
            break
    assert len(who) == 7
    assert "You have asked to observe" in observe(judge, OBSERVER, G)

    def mail(power: str, body: str) -> str:
        address, pw = who[power]
        return exchange(judge, address, f"SIGNON {power[0]}{G} {pw}\n{body}")

    reply = mail("FRANCE", "PRESS TO England, Germany\nLet us share Belgium.\nENDPRESS")
    assert "Press of 1 line sent to England and Germany." in reply
    subject = f"JUDGE:{G} - S1901M Press from France"
    copies = wait_audience(judge, subject, [who["ENGLAND"][0], who["GERMANY"][0], MASTER])
    for copy in copies:
        body = text(copy)
        assert body.startswith(f":: Judge: JUDGE  Game: {G}  Variant: Standard\n"
                               ":: Deadline: S1901M ")
        assert "Press from France to England and Germany, during S1901M:" in body
        assert "Let us share Belgium." in body
        assert str(copy["Auto-Submitted"]) == "auto-generated"
        # nobody's copy shows another reader's address
        assert not [a for a in [*players, MASTER] if a != str(copy["To"]) and a in body]

    reply = mail("ITALY", "BROADCAST GREY\nTrust no one.\nENDPRESS")
    assert "Grey broadcast of 1 line sent to everyone in chat1901." in reply
    everyone_else = [a for p, (a, _) in who.items() if p != "ITALY"] + [OBSERVER]
    for grey in wait_audience(judge, f"JUDGE:{G} - S1901M Broadcast from someone",
                              everyone_else):
        assert "Broadcast from someone to everyone in chat1901" in text(grey)
        assert "Italy" not in text(grey)
    master_copy = wait_broadcast(judge, f"JUDGE:{G} - S1901M Grey broadcast from Italy")
    assert str(master_copy["To"]) == MASTER

    # NO_PRESS from now on, set in the store (changing rules by mail is SET RULES' business):
    # a refused press sends nothing, press to the master still goes
    judge.sql("UPDATE games SET rules = 'NO_PRESS'")
    reply = mail("RUSSIA", "PRESS TO T\nAn alliance?\nENDPRESS\nPRESS TO M\nHelp!\nENDPRESS")
    assert "Error: chat1901 is a NO_PRESS game: press may only go to the master" in reply
    wait_audience(judge, f"JUDGE:{G} - S1901M Press from Russia", [MASTER])
    assert audience(judge, f"JUDGE:{G} - S1901M Press from Russia") == [MASTER]
    assert judge.sql("SELECT sender, recipients, grey FROM press ORDER BY id") == [
        ("FRANCE", "ENGLAND GERMANY", False), ("ITALY", "", True), ("RUSSIA", "MASTER", False)]

    history = mail("GERMANY", f"HISTORY {G}")
    assert "Press from France to England and Germany" in history
    assert "Broadcast from someone to everyone in chat1901" in history
    assert "Help!" not in history
    history = exchange(judge, MASTER, f"SIGNON M{G} mpw\nHISTORY {G}")
    assert "Grey broadcast from Italy" in history and "Help!" in history
