"""A Formal Diplomacy game of two years by SMTP against a running ``judge serve``: a void move,
a supported claim winning a sphere against a rival claim, a declaration of war with an
attack that ends the sphere by incursion, a surrender refused and one accepted, and the end
after the Fall of 1902 on victory points.  The results mails, the ending mail and LIST are
read from the judge's Maildir."""

from __future__ import annotations

from conftest import RunningJudge
from smtpkit import exchange, text, wait_assignments, wait_audience, wait_broadcast

MASTER = "gm@example.org"
G = "formal1"


def test_a_formal_game_by_mail(judge: RunningJudge) -> None:
    reply = exchange(judge, MASTER, f"CREATE {G} mpw VARIANT formal TURNS 2")
    assert f"Game {G} (Formal) created" in reply
    assert "it ends after the Fall of 1902, won on victory points" in reply
    players = [f"p{i}@example.org" for i in range(7)]
    for i, address in enumerate(players):
        assert "You have joined" in exchange(judge, address, f"JOIN {G} pw{i}")
    start = wait_broadcast(judge, f"JUDGE:{G} - S1901M Game Starting")
    assert text(start).startswith(f":: Judge: JUDGE  Game: {G}  Variant: Formal\n")
    assigned = wait_assignments(judge, players)
    who = {power: (address, f"pw{players.index(address)}") for address, power in assigned.items()}
    everyone = [MASTER, *players]

    def orders(power: str, *lines: str) -> str:
        address, pw = who[power]
        return exchange(judge, address, f"SIGNON {power[0]}{G} {pw}\n" + "\n".join(lines))

    def results(phase: str) -> str:
        copies = wait_audience(judge, f"JUDGE:{G} - {phase} Results", everyone)
        assert len({text(c) for c in copies}) == 1  # everybody reads the same results
        return text(copies[0])

    def process(phase: str) -> str:
        reply = exchange(judge, MASTER, f"SIGNON M{G} mpw\nPROCESS")
        assert "has been processed;" in reply, reply
        return results(phase)

    # ---- Spring 1901: openings, and an Italian move on Austria without a war
    orders("FRANCE", "A Par-Pic", "A Mar-Bur", "F Bre-Mao")
    orders("GERMANY", "A Mun-Ruh", "F Kie-Hol", "A Ber-Kie")
    reply = orders("ITALY", "A Ven-Tri")
    assert "Accepted: A VEN - TRI" in reply
    r = process("S1901M")
    assert ("Void moves (no war):\n  Italy: Army Venice -> Trieste.  (*void: not at war with "
            "Austria (Austria's fleet is in Trieste; Trieste is a supply centre of Austria)*)"
            ) in r
    assert "Wars (X: at war):" in r and "  France     .   .   -   .   .   .   .\n" in r
    assert "Spheres of influence:\n  none\n" in r
    assert ":: Deadline: F1901M " in r

    # ---- Fall 1901: France's supported claim on Belgium beats Germany's
    reply = orders("FRANCE", "A Pic SOI Bel", "A Bur S A Pic SOI Bel", "F Mao-Por")
    assert "Accepted: A PIC SOI BEL" in reply and "Accepted: A BUR S A PIC SOI BEL" in reply
    assert "Every unit has an order." in reply
    reply = orders("GERMANY", "Sphere of Influence Belgium", "A Kie-Den", "F Hol H")
    assert "Error: several of your units could claim Belgium: name one" in reply
    reply = orders("GERMANY", "A Ruh SOI Bel")
    assert "Accepted: A RUH SOI BEL" in reply
    r = process("F1901M")
    assert ("Spheres of influence:\n"
            "  France: Army Picardy claims Belgium (strength 2): established.\n"
            "  Germany: Army Ruhr claims Belgium (strength 1): beaten.\n") in r
    assert "  France +1: Fall 1901: 1 centre(s) outside home.\n" in r
    assert "  Germany +2: Fall 1901: 2 centre(s) outside home.\n" in r
    assert "  Belgium (BEL): France\n" in r
    assert "Victory points (game ends after Fall 1902):\n  Germany    2\n  France     1\n" in r
    process("W1901A")  # builds are waived

    # ---- Spring 1902: Germany declares war and enters the French sphere
    reply = orders("GERMANY", "DWO France", "A Ruh-Bel", "F Hol S A Ruh-Bel")
    assert "Accepted: DWO FRANCE" in reply
    orders("FRANCE", "A Bur-Mun", "A Pic H")
    r = process("S1902M")
    assert "Declarations of war:\n  Germany declares war on France.\n" in r
    assert "Germany: Army Ruhr -> Belgium." in r
    assert "France: Army Burgundy -> Munich." in r  # at war now: Munich is fair game
    assert "  France loses its sphere Belgium: entered by Germany.\n" in r
    assert "  Germany -1: declared war on France.\n" in r
    assert "  France -1: Germany entered the sphere Belgium.\n" in r
    assert "  France     .   .   -   X   .   .   .\n" in r
    assert "  Germany    .   .   X   -   .   .   .\n" in r
    assert "Spheres of influence:\n  none\n" in r

    # ---- Fall 1902, the last turn: France may not surrender from Munich; Germany does
    reply = orders("FRANCE", "SUR", "A Mun H")
    assert ("Error: you cannot surrender: your unit is in Munich, a home province of "
            "Germany.") in reply
    reply = orders("GERMANY", "Surrender", "A Bel H")
    assert "Accepted: SUR" in reply
    r = process("F1902M")
    assert "Surrenders:\n  Germany surrenders to France.\n" in r
    assert "  Germany -1: surrendered to France.\n  France +1: Germany surrendered.\n" in r
    assert "  France +2: Fall 1902: 2 centre(s) outside home.\n" in r
    assert "  Germany -1: Fall 1902: 1 home centre(s) owned by others.\n" in r
    assert "The game is over: France wins.\n" in r
    assert "  France     .   .   -   .   .   .   .\n" in r
    assert "Victory points (game ends after Fall 1902):\n  France     3\n  Germany    2\n" in r
    assert "The next phase" not in r and ":: Deadline:" not in r

    ended = wait_audience(judge, f"JUDGE:{G} - F1902M Victory: F", everyone)
    body = text(ended[0])
    assert body.startswith(f":: Judge: JUDGE  Game: {G}  Variant: Formal\n")
    assert "France wins with 3 victory points. Congratulations!" in body
    assert "Victory points:\n  France       3\n  Germany      2\n  Austria      0\n" in body

    reply = exchange(judge, "someone@example.org", f"LIST {G}")
    assert "State: finished" in reply
    assert "Won on victory points by France." in reply
    assert "Victory points (game ends after Fall 1902):\n  France     3\n" in reply
    reply = orders("GERMANY", "A Bel-Hol")
    assert f"Error: {G} is finished: no orders are taken." in reply
