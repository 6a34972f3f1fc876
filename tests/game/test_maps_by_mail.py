"""Map pictures by mail through the real pipeline, store and sender (no SMTP): the results
carry the map of the phase, SET MAP OFF takes it off one role's copies, MAP answers with a
picture, and nothing is drawn before the mail is sent."""

from __future__ import annotations

import email
import io
import json
from email import policy
from email.message import EmailMessage
from pathlib import Path

from PIL import Image
from sqlalchemy import select

from conftest import read_maildir
from gamekit import Judge, observe, signon, start_full_game
from judge.mail.sending.sender import deliver_due
from judge.mail.sending.transports import MaildirTransport
from judge.store.models import OutboxMessage

MASTER = "master@example.org"
WATCHER = "watcher@example.org"


def _send_all(j: Judge, maildir: Path) -> list[EmailMessage]:
    deliver_due(j.store, MaildirTransport(maildir), j.config)
    return read_maildir(maildir)


def _pictures(msg: EmailMessage) -> list[bytes]:
    return [part.get_content() for part in msg.iter_attachments()
            if part.get_content_type() == "image/png"]


def _rows(j: Judge, subject: str) -> list[OutboxMessage]:
    with j.store.transaction() as s:
        rows = list(s.scalars(select(OutboxMessage).where(OutboxMessage.subject == subject)))
        s.expunge_all()
    return rows


def test_results_carry_the_map_and_set_map_off_is_respected(judge_in_process: Judge,
                                                            tmp_path: Path) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    # France wants no pictures; so does the master (a role of its own)
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nSET MAP OFF\nA Par-Bur")
    assert "come without the map" in reply.body
    reply = j.mail(MASTER, "SIGNON Mwar1901 mpw\nSET MAP OFF\nSET MAP ON\nSET MAP OFF")
    assert reply.body.count("come without the map") == 2
    reply = j.mail(MASTER, "SET MAP OFF")
    assert "SET MAP needs a SIGNON first" in reply.body
    j.mail(assigned["GERMANY"], f"{signon(j, 'GERMANY')}\nA Mun-Bur")
    reply = j.mail(MASTER, "SIGNON Mwar1901 mpw\nPROCESS")
    assert "has been processed;" in reply.body

    rows = _rows(j, "JUDGE:war1901 - S1901M Results")
    assert len(rows) == 8
    # the rows keep what to draw, not a picture: nothing was drawn while processing
    with_map = {r.recipients for r in rows if r.attachment}
    assert with_map == {a for p, a in assigned.items() if p != "FRANCE"}
    for r in rows:
        assert b"image/png" not in r.raw
    doc = json.loads(rows[0].attachment or next(r.attachment for r in rows if r.attachment))
    drawn = doc["maps"][0]["document"]
    assert drawn["phase"] == "S1901M" and drawn["game"] == "war1901"
    assert {"order": "A MUN - BUR", "result": "bounce"} in drawn["outcome"]["results"]["GERMANY"]

    sent = [m for m in _send_all(j, tmp_path / "mail")
            if str(m["Subject"]) == "JUDGE:war1901 - S1901M Results"]
    assert len(sent) == 8
    for msg in sent:
        to = str(msg["To"])
        pictures = _pictures(msg)
        body = msg.get_body(("plain",))
        assert body is not None and "Germany: Army Munich -> Burgundy.  (*bounce*)" in \
            body.get_content()
        if to in (assigned["FRANCE"], MASTER):
            assert not msg.is_multipart() and pictures == []
            continue
        # the text first and complete, then the picture, inline
        assert msg.get_content_type() == "multipart/mixed"
        parts = list(msg.iter_parts())
        assert parts[0].get_content_type() == "text/plain"
        assert parts[1].get_content_type() == "image/png"
        assert parts[1].get_content_disposition() == "inline"
        assert parts[1].get_filename() == "war1901-S1901M.png"
        assert len(pictures) == 1 and len(pictures[0]) <= 200_000
        image = Image.open(io.BytesIO(pictures[0]))
        assert image.format == "PNG" and image.width >= 900
    # every copy carries the same picture (drawn once)
    assert len({_pictures(m)[0] for m in sent if _pictures(m)}) == 1


def test_map_by_mail(judge_in_process: Judge, tmp_path: Path) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nA Par-Bur\nF Bre-Mao")
    j.mail(MASTER, "SIGNON Mwar1901 mpw\nPROCESS")
    j.mail(assigned["ITALY"], f"{signon(j, 'ITALY')}\nA Ven-Tyr")

    # those who follow the game: the board now, and a phase played
    observe(j, WATCHER, "war1901")
    reply = j.mail(WATCHER, "MAP war1901\nMAP war1901 S1901M\nMAP war1901 F1903M"
                   "\nMAP nowhere\nMAP war1901 X1901")
    assert "The map of the board of war1901 at F1901M is attached" in reply.body
    assert "The map of war1901 in S1901M" in reply.body
    assert "F1903M has not been played in war1901 (played: S1901M)." in reply.body
    assert 'no game named "nowhere"' in reply.body
    assert '"X1901" is not a phase' in reply.body
    row = next(r for r in reversed(_rows(j, "Re: [Error Flag] orders")) if r.recipients ==
               WATCHER)
    docs = [item["document"] for item in json.loads(row.attachment or "")["maps"]]
    assert [d["phase"] for d in docs] == ["F1901M", "S1901M"]
    assert "orders" not in docs[0]  # an observer does not see the orders given
    # a stranger is told where to see the map, and gets no picture
    reply = j.mail("stranger@example.org", "MAP war1901\nMAP war1901 S1901M")
    assert reply.body.count("no picture comes with this reply") == 2
    assert "observe it: OBSERVE war1901 <password>" in reply.body
    assert _rows(j, "Re: orders")[-1].attachment is None

    # the master sees the orders received so far; a player only the power's own
    reply = j.mail(MASTER, "SIGNON Mwar1901 mpw\nMAP war1901")
    assert "with the orders received so far" in reply.body
    row = _rows(j, "Re: JUDGE:war1901 - F1901M orders")[-1]
    doc = json.loads(row.attachment or "")["maps"][0]["document"]
    assert doc["orders"] == {"ITALY": ["A VEN - TYR"]}
    assert doc["note"] == "orders received so far"
    j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nA Bur-Mun\nMAP war1901")
    row = _rows(j, "Re: JUDGE:war1901 - F1901M orders")[-1]
    doc = json.loads(row.attachment or "")["maps"][0]["document"]
    assert doc["orders"] == {"FRANCE": ["A BUR - MUN"]}

    # at most three pictures a reply
    reply = j.mail(WATCHER, "MAP war1901\n" * 4)
    assert reply.body.count("is attached") == 3
    assert "a reply carries at most 3 maps" in reply.body

    sent = _send_all(j, tmp_path / "mail")
    mine = [m for m in sent if str(m["To"]) == WATCHER
            and "MAP war1901 S1901M" in (m.get_body(("plain",)) or m).get_content()]
    assert len(mine) == 1
    assert [p.get_filename() for p in mine[0].iter_attachments()] == [
        "war1901-F1901M.png", "war1901-S1901M.png"]


def test_a_picture_that_cannot_be_drawn_does_not_hold_the_mail_back(
        judge_in_process: Judge, tmp_path: Path) -> None:
    j = judge_in_process
    start_full_game(j)
    j.mail(MASTER, "MAP war1901")
    with j.store.transaction() as s:
        row = s.scalars(select(OutboxMessage).order_by(OutboxMessage.id.desc())).first()
        assert row is not None and row.attachment
        row.attachment = json.dumps({"maps": [{"name": "x.png", "document": {"phase": "?"}}]})
    sent = _send_all(j, tmp_path / "mail")
    last = [m for m in sent if str(m["To"]) == MASTER
            and "> MAP war1901" in (m.get_body(("plain",)) or m).get_content()]
    assert len(last) == 1 and not last[0].is_multipart()
    assert "is attached" in email.message_from_bytes(
        last[0].as_bytes(), policy=policy.default).get_content()  # type: ignore[attr-defined]


def test_a_formal_game_s_results_picture_shows_wars_and_spheres(judge_in_process: Judge,
                                                                 tmp_path: Path) -> None:
    j = judge_in_process
    assigned = start_full_game(j, "f1", "VARIANT formal")
    j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE', 'f1')}\nDWO Germany\nF Bre SOI MAO\n"
           "A Par-Bur")
    reply = j.mail(MASTER, "SIGNON Mf1 mpw\nPROCESS")
    assert "has been processed;" in reply.body
    row = next(r for r in _rows(j, "JUDGE:f1 - S1901M Results") if r.attachment)
    doc = json.loads(row.attachment or "")["maps"][0]["document"]
    assert doc["formal"]["wars"] == [["FRANCE", "GERMANY"]]
    assert doc["formal"]["spheres"] == {"MAO": "FRANCE"}
    assert doc["formal"]["points"]["FRANCE"] == -1
    sent = [m for m in _send_all(j, tmp_path / "mail")
            if str(m["Subject"]) == "JUDGE:f1 - S1901M Results"]
    assert sent and all(len(_pictures(m)) == 1 for m in sent)
