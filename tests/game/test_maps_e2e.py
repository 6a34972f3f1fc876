"""Map pictures by SMTP against a running ``judge serve``: the results of a phase reach every
player with the map attached (text first), except the player who sent SET MAP OFF; MAP by
mail answers with the picture (to those who follow the game).  Mail is read from the judge's
Maildir."""

from __future__ import annotations

import io
from email.message import EmailMessage

from PIL import Image

from conftest import RunningJudge, header_of, make_mail, polls
from smtpkit import exchange, observe, text, wait_assignments, wait_audience

MASTER = "gm@example.org"
G = "maps1901"


def _pictures(msg: EmailMessage) -> list[bytes]:
    return [p.get_content() for p in msg.iter_attachments()
            if p.get_content_type() == "image/png"]


def test_results_and_map_by_smtp(judge: RunningJudge) -> None:
    assert "created" in exchange(judge, MASTER, f"CREATE {G} mpw")
    players = [f"p{i}@example.org" for i in range(7)]
    for i, address in enumerate(players):
        assert "You have joined" in exchange(judge, address, f"JOIN {G} pw{i}")
    assigned = wait_assignments(judge, players)
    who = {power: address for address, power in assigned.items()}
    pw = {address: f"pw{players.index(address)}" for address in players}

    quiet = who["FRANCE"]
    reply = exchange(judge, quiet, f"SIGNON F{G} {pw[quiet]}\nSET MAP OFF\nA Par-Bur")
    assert "come without the map" in reply
    exchange(judge, who["GERMANY"], f"SIGNON G{G} {pw[who['GERMANY']]}\nA Mun-Bur")
    assert "has been processed;" in exchange(judge, MASTER, f"SIGNON M{G} mpw\nPROCESS")

    copies = wait_audience(judge, f"JUDGE:{G} - S1901M Results", [MASTER, *players])
    for msg in copies:
        assert "Germany: Army Munich -> Burgundy.  (*bounce*)" in text(msg)
        pictures = _pictures(msg)
        if str(msg["To"]) == quiet:
            assert pictures == [] and not msg.is_multipart()
            continue
        assert [p.get_content_type() for p in msg.iter_parts()] == ["text/plain", "image/png"]
        assert len(pictures) == 1 and len(pictures[0]) <= 200_000
        assert Image.open(io.BytesIO(pictures[0])).format == "PNG"

    # MAP by mail, to an observer; a stranger is told where the map is
    observe(judge, "curious@example.org", G)
    msg = make_mail(f"MAP {G} S1901M", sender="curious@example.org")
    judge.send(msg, mail_from="curious@example.org")
    reply = _wait_reply(judge, msg)
    assert f"The map of {G} in S1901M" in text(reply)
    assert len(_pictures(reply)) == 1
    msg = make_mail(f"MAP {G} S1901M", sender="stranger@example.org")
    judge.send(msg, mail_from="stranger@example.org")
    reply = _wait_reply(judge, msg)
    assert "no picture comes with this reply" in text(reply)
    assert _pictures(reply) == [] and not reply.is_multipart()


def _wait_reply(judge: RunningJudge, msg: EmailMessage, timeout: float = 20) -> EmailMessage:
    for _ in polls(timeout):
        for reply in judge.replies():
            if header_of(reply, "In-Reply-To") == msg["Message-ID"]:
                return reply
    raise AssertionError(f"no reply:\n{judge.log()[-2000:]}")
