"""A whole game by SMTP against a running ``judge serve``: CREATE, seven JOINs, orders (with
mistakes) through three game years with retreats and adjustments, then a victory set up by
the master with POSITION.  Results are read from the judge's Maildir."""

from __future__ import annotations

from conftest import RunningJudge
from smtpkit import exchange, text, wait_assignments, wait_audience, wait_broadcast

MASTER = "gm@example.org"
G = "war1901"


def test_a_full_game_by_mail(judge: RunningJudge) -> None:
    reply = exchange(judge, MASTER, f"CREATE {G} mpw DEADLINE 48h GRACE 12h")
    assert f"Game {G} (Standard) created" in reply
    players = [f"p{i}@example.org" for i in range(7)]
    for i, address in enumerate(players):
        reply = exchange(judge, address, f"JOIN {G} pw{i}" if i % 2 else f"SIGNON ?{G} pw{i}")
        assert "You have joined" in reply
    start = wait_broadcast(judge, f"JUDGE:{G} - S1901M Game Starting")
    assert text(start).startswith(f":: Judge: JUDGE  Game: {G}  Variant: Standard\n"
                                  ":: Deadline: S1901M ")
    # the first copy of "Game Starting" can be in the Maildir before the "You are" mails
    assigned = wait_assignments(judge, players)
    who = {power: (address, f"pw{players.index(address)}") for address, power in assigned.items()}
    assert len(who) == 7
    for address in players:
        assert len([m for m in judge.replies() if str(m["To"]) == address
                    and " You are " in str(m["Subject"])]) == 1

    def orders(power: str, *lines: str) -> str:
        address, pw = who[power]
        return exchange(judge, address, f"SIGNON {power[0]}{G} {pw}\n" + "\n".join(lines))

    def process(phase: str) -> str:
        reply = exchange(judge, MASTER, f"SIGNON M{G} mpw\nPROCESS")
        assert f"Signed on as the master of {G} ({phase}, deadline" in reply, reply
        assert "has been processed;" in reply, reply
        return results(phase)

    def results(phase: str) -> str:
        copies = wait_audience(judge, f"JUDGE:{G} - {phase} Results", [MASTER, *players])
        assert all(c["Auto-Submitted"] == "auto-generated" for c in copies)
        assert len({text(c) for c in copies}) == 1  # everybody reads the same results
        return text(copies[0])

    # ---- Spring 1901, with mistakes
    reply = orders("ENGLAND", "A Par-Bur", "A Lvp-Xyz", "Build A Lon", "F Lon-Nth")
    assert "Error: the Army Paris is France's, not England's." in reply
    assert "Error: unknown province 'xyz'." in reply
    assert "Error: that is an adjustment order, but this is a movement phase." in reply
    assert "Accepted: F LON - NTH" in reply
    assert "Still without orders: Fleet Edinburgh, Army Liverpool." in reply
    reply = orders("FRANCE", "A Par-Bur", "A Mar S A Par-Bur", "F Bre-Mao")
    assert "Every unit has an order." in reply
    orders("GERMANY", "A Mun-Bur")
    orders("ITALY", "A Ven-Tyr")
    r = process("S1901M")
    assert ":: Deadline: F1901M " in r
    assert "France: Army Paris -> Burgundy." in r
    assert "Germany: Army Munich -> Burgundy.  (*bounce*)" in r
    assert "England: Fleet London -> North Sea." in r

    # ---- Fall 1901: Munich is dislodged
    orders("FRANCE", "A Bur-Mun", "F Mao-Por", "A Mar H")
    orders("ITALY", "A Tyr S A Bur-Mun")
    orders("GERMANY", "A Mun H")
    r = process("F1901M")
    assert "Germany: Army Munich HOLD.  (*dislodged*)" in r
    assert "The German Army in Munich can retreat to" in r and "Ruhr" in r
    assert ":: Deadline: F1901R " in r

    # ---- Fall 1901 retreats, with a wrong-phase order; the only retreat completes the phase
    reply = orders("GERMANY", "Build A Ber", "A Mun-Ruh")
    assert "Error: that is an adjustment order, but this is a retreat phase." in reply
    assert "Accepted: A MUN R RUH" in reply
    assert "F1901R has been processed" in reply
    r = results("F1901R")
    assert "Germany: Army Munich -> Ruhr." in r
    assert "Ownership of supply centers:" in r
    assert "France:" in r and "Munich" in r.split("France:")[1].split("\n")[0]
    assert "Builds   2 units." in r and "Removes  1 unit." in r

    # ---- Winter 1901 adjustments
    reply = orders("FRANCE", "A Par-Bur", "Build A Par", "Build F Bre")
    assert "Error: that is a movement order, but this is an adjustment phase." in reply
    assert "Builds complete: 2 of 2 ordered." in reply and "Every unit" not in reply
    reply = orders("GERMANY", "Remove A Ruh")
    assert "W1901A has been processed" in reply
    r = results("W1901A")
    assert "France: Builds an army in Paris." in r
    assert "France: Builds a fleet in Brest." in r
    assert "Germany: Removes the army in Ruhr." in r
    assert ":: Deadline: S1902M " in r

    # ---- 1902 and 1903: the master moves things along
    orders("ITALY", "A Tyr-Vie")
    process("S1902M")
    r = process("F1902M")
    assert ":: Deadline: S1903M " in r  # nothing to adjust: the winter is skipped
    r = process("S1903M")
    assert ":: Deadline: F1903M " in r

    reply = exchange(judge, MASTER, f"SIGNON M{G} mpw\nHISTORY {G}\nSUMMARY {G}\nLIST {G}")
    assert "Spring of 1901. Movement results for S1901M" in reply
    assert "Germany: Army Munich -> Ruhr." in reply

    # ---- a victory set up with POSITION on a paused game
    reply = exchange(judge, MASTER, f"SIGNON M{G} mpw\nPOSITION F1903M\n"
                     "France: A Tyr, A Par; centers Par Bre Mar Spa Por Bel Hol Mun Ber Kie "
                     "Den Lon Edi Lvp Ven Rom Nap\nENDPOSITION\n")
    assert "POSITION cannot be used while the game is active" in reply
    reply = exchange(judge, MASTER, f"SIGNON M{G} mpw\nPAUSE\nPOSITION F1903M\n"
                     "France: A Tyr, A Par; centers Par Bre Mar Spa Por Bel Hol Mun Ber Kie "
                     "Den Lon Edi Lvp Ven Rom Nap\n"
                     "Austria: A Bud; centers Vie Bud Tri\n"
                     "Russia: A Mos; centers Mos War Sev Stp\n"
                     "ENDPOSITION\nRESUME\n")
    assert f"The board of {G} is set at F1903M." in reply
    assert f"{G} is running again, at F1903M." in reply
    orders("FRANCE", "A Tyr-Vie", "A Par H")
    r = process("F1903M")
    assert "France: Army Tyrolia -> Vienna." in r
    assert "The game is over: France has won." in r
    victory = wait_broadcast(judge, f"JUDGE:{G} - F1903M Victory: F")
    assert "France has won a solo victory" in text(victory)
    reply = exchange(judge, MASTER, f"LIST {G}")
    assert "State: finished" in reply and "Won by France." in reply
    reply = orders("FRANCE", "A Vie-Boh")
    assert "no orders are taken" in reply
