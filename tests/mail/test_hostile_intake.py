"""Hostile intake: a seeded stream of malformed and hostile SMTP sessions against a running
daemon (SQLite, or PostgreSQL with ``JUDGE_TEST_DATABASE_URL``), with a known-good probe
mailed every so often that must be answered throughout.

The kinds: NUL and other control bytes anywhere, header injection through encoded words,
huge header blocks, long (folded) Message-IDs, many recipients, duplicates, mail without
Message-ID, 8-bit garbage, broken MIME, robots, bad envelopes, garbage commands, sessions cut
off in the middle of DATA, oversize mail, idle sockets and bursts of connections, and mail
whose shape made reading it dear (nested HTML, a From: of thousands of addresses, deep MIME:
hostile_shapes.py).

At the end: the daemon never died; every accepted message is stored once and ends answered
(``done`` with a reply) or deliberately silent (``ignored`` with its reason); none is set aside
or left waiting; and nothing the judge sent holds a control character, an injected header or
more than one recipient.

``JUDGE_HOSTILE_SEED`` and ``JUDGE_HOSTILE_SESSIONS`` choose another stream.
"""

from __future__ import annotations

import email
import os
import random
import re
import smtplib
import socket
import time
from dataclasses import dataclass, field
from email import policy
from typing import Callable

import pytest

from conftest import RunningJudge, body_of, make_mail
from hostile_shapes import deep_mime, many_from, nested_html
from judge.mail.clean import has_control

# Much of this module's time is spent waiting (stalled sessions): it runs first
# (tests/conftest.py).
pytestmark = pytest.mark.waits_long

SEED = int(os.environ.get("JUDGE_HOSTILE_SEED", "5417"))
SESSIONS = int(os.environ.get("JUDGE_HOSTILE_SESSIONS", "300"))
PROBE_EVERY = 30
JUDGE = "judge@example.org"

# What the judge's own mails carry, and nothing else.
JUDGE_HEADERS = {"from", "to", "subject", "date", "message-id", "auto-submitted",
                 "x-judge-version", "content-type", "content-transfer-encoding", "mime-version",
                 "in-reply-to", "references"}
RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|(?<!\r)\n")
CONTROLS = [chr(c) for c in (*range(0, 9), 11, 12, *range(14, 32), 127)] + ["\x85", "\u2028"]


@dataclass
class Session:
    """One SMTP session to play: an envelope and data, or raw command bytes."""

    kind: str
    mail_from: str = "p0@example.org"
    rcpts: list[str] = field(default_factory=lambda: [JUDGE])
    data: bytes | None = None
    message_id: str | None = None  # as the judge keys it: unfolded
    raw: bytes | None = None  # a raw exchange instead of a mail (garbage, cut-off DATA)


@dataclass
class Tally:
    accepted_ids: set[str] = field(default_factory=set)
    accepted_without_id: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    probes: int = 0


# --------------------------------------------------------------------------- the generator


class Hostile:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.n = 0
        self.sent: list[Session] = []

    def sender(self) -> str:
        return f"p{self.r.randrange(20)}@example.org"

    def junk(self, length: int, controls: float = 0.2) -> str:
        alphabet = "abcdefghij KLMNOP 0123 .,;:<>@=?\"'()[]\\/Ωλ€"
        return "".join(self.r.choice(CONTROLS) if self.r.random() < controls
                       else self.r.choice(alphabet) for _ in range(length))

    def msgid(self) -> str:
        self.n += 1
        return f"<hostile-{SEED}-{self.n}@example.org>"

    def mail(self, kind: str, *, headers: list[tuple[str, str]] | None = None,
             body: str = "VERSION\n", msgid: str | None = "", sender: str | None = None,
             extra: bytes = b"") -> Session:
        sender = sender or self.sender()
        msgid = self.msgid() if msgid == "" else msgid
        lines = [("From", sender), ("To", JUDGE), ("Subject", kind)]
        if msgid is not None:
            lines.append(("Message-ID", msgid))
        lines += headers or []
        head = "".join(f"{k}: {v}\r\n" for k, v in lines).encode("utf-8", "surrogateescape")
        data = head + extra + b"\r\n" + body.replace("\n", "\r\n").encode("utf-8",
                                                                          "surrogateescape")
        key = None if msgid is None else "".join(msgid.split())
        return Session(kind, mail_from=sender, data=data, message_id=key)

    # each kind ----------------------------------------------------------------------------

    def plain(self) -> Session:
        words = ["VERSION", "GET DRAWS", "frobnicate", "LIST", "SIGNON Xnone pw", "# comment"]
        return self.mail("plain", body="\n".join(self.r.choices(words, k=self.r.randint(1, 6))))

    def control_bytes(self) -> Session:
        subject = self.junk(self.r.randint(1, 80), 0.3)
        body = "\n".join(self.junk(self.r.randint(0, 120), 0.15) for _ in range(5))
        name = self.junk(12, 0.5).replace('"', "")
        return self.mail("control", headers=[("Subject", subject),
                                             ("Reply-To", f'"{name}" <{self.sender()}>')],
                         body="VERSION\n" + body)

    def header_injection(self) -> Session:
        tricks = ["=?utf-8?q?hi=0D=0ABcc:_victim@example.org?=",
                  "=?utf-8?b?" + __import__("base64").b64encode(
                      b"x\r\nTo: victim@example.org\r\n\r\nforged body").decode() + "?=",
                  "ok\r\n Bcc: victim@example.org",  # a folded line, no injection
                  "=?iso-8859-1?q?=00=1B[2J=07?="]
        return self.mail("injection", headers=[("Subject", self.r.choice(tricks)),
                                               ("X-Note", self.r.choice(tricks))])

    def huge_header(self) -> Session:
        pad = "".join(f"X-Pad-{i}: {'y' * 900}\r\n" for i in range(self.r.randint(20, 200)))
        folded = "X-Folded: start" + "".join(f"\r\n {'z' * 200}"
                                              for _ in range(self.r.randint(10, 300))) + "\r\n"
        return self.mail("huge header", extra=(pad + folded).encode())

    def long_message_id(self) -> Session:
        left = "".join(self.r.choice("abcdefghijklmnop0123456789.")
                       for _ in range(self.r.randint(990, 4000)))
        folded = "<" + "\r\n ".join(left[i:i + 700] for i in range(0, len(left), 700)) + \
            f"{self.n}@example.org>"
        self.n += 1
        return self.mail("long id", msgid=folded)

    def many_rcpts(self) -> Session:
        session = self.mail("many recipients")
        session.rcpts = [f"judge+{i}@example.org" for i in range(self.r.randint(2, 140))]
        return session

    def duplicate(self) -> Session:
        earlier = [s for s in self.sent if s.data and s.message_id]
        if not earlier:
            return self.plain()
        again = self.r.choice(earlier)
        return Session("duplicate", again.mail_from, list(again.rcpts), again.data,
                       again.message_id)

    def no_message_id(self) -> Session:
        return self.mail("no id", msgid=None)

    def eight_bit(self) -> Session:
        garbage = bytes(self.r.randrange(128, 256) for _ in range(40))
        session = self.mail("8-bit", body="VERSION\n")
        assert session.data is not None
        session.data = session.data.replace(b"Subject: 8-bit", b"Subject: " + garbage[:20])
        session.data += garbage + b"\r\n"
        return session

    def broken_mime(self) -> Session:
        parts = [
            [("MIME-Version", "1.0"), ("Content-Type", "multipart/mixed")],
            [("MIME-Version", "1.0"), ("Content-Type", 'multipart/alternative; boundary="b"')],
            [("Content-Type", "text/plain; charset=x-no-such-charset"),
             ("Content-Transfer-Encoding", "base64")],
            [("Content-Type", "text/html"), ("Content-Transfer-Encoding", "quoted-printable")],
            [("Content-Type", "message/rfc822")],
            [("Content-Type", "text/plain; charset=utf-8; charset=latin1; format=\x00")],
        ]
        nested = "".join(f"--b{i}\r\nContent-Type: multipart/mixed; boundary=b{i + 1}\r\n\r\n"
                         for i in range(60))
        body = self.r.choice(["VERSION\n", "=00=1B=0D=0A=ZZ VERSION\n", "!!!not base64!!!\n",
                              "<script>alert(1)</script><p>VERSION</p>\n", nested])
        return self.mail("broken mime", headers=self.r.choice(parts), body=body)

    def robot(self) -> Session:
        session = self.mail("robot", headers=[self.r.choice(
            [("Auto-Submitted", "auto-replied"), ("Precedence", "bulk"),
             ("List-Id", "<x.example.org>")])])
        if self.r.random() < 0.3:
            session.mail_from = ""  # the null sender
        return session

    def bad_envelope(self) -> Session:
        session = self.mail("bad envelope")
        choice = self.r.randrange(4)
        if choice == 0:
            session.mail_from = "s" * self.r.randint(255, 400) + "@example.org"
        elif choice == 1:
            session.rcpts = ["judge+" + "t" * self.r.randint(250, 400) + "@example.org"]
        elif choice == 2:
            session.rcpts = ["stranger@example.org"]
        else:
            session.rcpts = ["judge+\x00x@example.org", "judge+\x1bx@example.org"]
        return session

    def garbage(self) -> Session:
        lines = [bytes(self.r.randrange(256) for _ in range(self.r.randint(1, 600)))
                 .replace(b"\n", b"") for _ in range(self.r.randint(1, 20))]
        return Session("garbage", raw=b"\r\n".join(lines) + b"\r\nQUIT\r\n")

    def cut_off(self) -> Session:
        return Session("cut off", raw=b"EHLO x\r\nMAIL FROM:<p1@example.org>\r\nRCPT TO:<"
                       + JUDGE.encode() + b">\r\nDATA\r\nSubject: half\r\n\r\nVERSI")

    def oversize(self) -> Session:
        return self.mail("oversize", body="VERSION\n" + ("x" * 900 + "\n") * 400)

    def long_line(self) -> Session:
        return self.mail("long line", body="VERSION\n" + "y" * self.r.randint(1001, 5000))

    def awkward_shape(self) -> Session:
        sender, message_id = self.sender(), self.msgid()
        kind, data = self.r.choice([
            ("nested html", lambda: nested_html(sender, message_id)),
            ("many from", lambda: many_from(sender, message_id)),
            ("deep mime", lambda: deep_mime(sender, message_id)),
            ("deep robot mime", lambda: deep_mime(sender, message_id,
                                                  headers=(("Precedence", "bulk"),)))])
        return Session(kind, mail_from=sender, data=data(), message_id=message_id)

    def next(self) -> Session:
        kinds: list[tuple[Callable[[], Session], int]] = [
            (self.plain, 6), (self.control_bytes, 8), (self.header_injection, 4),
            (self.huge_header, 3), (self.long_message_id, 3), (self.many_rcpts, 3),
            (self.duplicate, 3), (self.no_message_id, 2), (self.eight_bit, 3),
            (self.broken_mime, 5), (self.robot, 2), (self.bad_envelope, 3), (self.garbage, 2),
            (self.cut_off, 1), (self.oversize, 1), (self.long_line, 1),
            (self.awkward_shape, 2)]
        make = self.r.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        session = make()
        self.sent.append(session)
        return session


# --------------------------------------------------------------------------- playing it


def play(judge: RunningJudge, session: Session, tally: Tally) -> None:
    if session.raw is not None:
        try:
            with socket.create_connection(("127.0.0.1", judge.port), timeout=10) as s:
                s.recv(1024)
                s.sendall(session.raw)
                s.settimeout(0.2)
                try:
                    while s.recv(4096):
                        pass
                except OSError:
                    pass
        except OSError:
            pass
        return
    code = 0
    try:
        with smtplib.SMTP("127.0.0.1", judge.port, timeout=20) as smtp:
            smtp.ehlo()
            if smtp.mail(session.mail_from)[0] == 250:
                taken = [r for r in session.rcpts if smtp.rcpt(r)[0] == 250]
                if taken:
                    assert session.data is not None
                    code = smtp.data(session.data)[0]
    except (smtplib.SMTPException, OSError) as exc:
        code = getattr(exc, "smtp_code", -1)
    if code == 250:
        if session.message_id is None:
            tally.accepted_without_id += 1
        else:
            tally.accepted_ids.add(session.message_id)
    else:
        tally.refused[session.kind] = tally.refused.get(session.kind, 0) + 1


def probe(judge: RunningJudge, n: int, timeout: float = 30) -> None:
    """A player's plain mail: accepted (tried again on 421, as an MTA does) and answered."""
    msg = make_mail("VERSION", sender="probe@example.org", msgid=f"<probe-{SEED}-{n}@example.org>")
    deadline = time.monotonic() + timeout
    while True:
        try:
            judge.send(msg, mail_from="probe@example.org")
            break
        except smtplib.SMTPConnectError as exc:
            assert exc.smtp_code == 421 and time.monotonic() < deadline, exc
            time.sleep(0.1)
    while not any(r["In-Reply-To"] == msg["Message-ID"] for r in judge.replies()):
        assert judge.proc.poll() is None, f"the daemon died (seed {SEED}):\n{judge.log()[-3000:]}"
        assert time.monotonic() < deadline, f"probe {n} not answered (seed {SEED})"
        time.sleep(0.05)


def idle_sockets(judge: RunningJudge, count: int) -> list[socket.socket]:
    out = []
    for _ in range(count):
        try:
            out.append(socket.create_connection(("127.0.0.1", judge.port), timeout=5))
        except OSError:
            break
    return out


def check_sent_mail(judge: RunningJudge) -> int:
    files = [p for sub in ("new", "cur") if (judge.maildir / sub).is_dir()
             for p in (judge.maildir / sub).iterdir()]
    for path in files:
        raw = path.read_bytes().replace(b"\n", b"\r\n")  # the Maildir keeps bare LF lines
        assert not RAW_CONTROL.search(raw), (path.name, raw[:2000])
        msg = email.message_from_bytes(raw, policy=policy.default)
        names = [k.lower() for k in msg.keys()]
        assert set(names) <= JUDGE_HEADERS and len(names) == len(set(names)), names
        assert len(msg["To"].addresses) == 1, msg["To"]
        assert not has_control(str(msg["Subject"])), msg["Subject"]
        assert not has_control(body_of(msg), multiline=True), body_of(msg)[:2000]
    return len(files)


# --------------------------------------------------------------------------- the test


def test_hostile_sessions_never_stop_the_judge(judge_factory):
    judge = judge_factory(JUDGE_JUDGE_REPLIES_PER_DAY="100000",
                          JUDGE_INTAKE_MAX_CONNECTIONS="40", JUDGE_INTAKE_SESSION_TIMEOUT="4",
                          JUDGE_INTAKE_IDLE_TIMEOUT="1")
    hostile, tally = Hostile(SEED), Tally()
    held = idle_sockets(judge, 10)
    for n in range(SESSIONS):
        if n % PROBE_EVERY == 0:
            probe(judge, tally.probes)
            tally.probes += 1
            # A burst of idle connections now and then: the cap answers 421, time ends them.
            held += idle_sockets(judge, hostile.r.choice([0, 0, 5, 45]))
        play(judge, hostile.next(), tally)
        assert judge.proc.poll() is None, f"the daemon died (seed {SEED}):\n{judge.log()[-3000:]}"
    probe(judge, tally.probes)
    for s in held:
        s.close()
    judge.settle(60)

    rows = judge.sql("SELECT id, status, note FROM inbound")
    expected = len(tally.accepted_ids) + tally.accepted_without_id + tally.probes + 1
    assert len(rows) == expected, (len(rows), expected, tally.refused)
    by_status: dict[str, int] = {}
    for _, status, _ in rows:
        by_status[status] = by_status.get(status, 0) + 1
    assert set(by_status) <= {"done", "ignored"}, (by_status, [r for r in rows
                                                                if r[1] not in ("done", "ignored")])
    assert all(note for _, status, note in rows if status == "ignored")
    answered = {i for (i,) in judge.sql("SELECT DISTINCT inbound_id FROM outbox")}
    assert {i for i, status, _ in rows if status == "done"} <= answered
    assert judge.sql("SELECT DISTINCT status FROM outbox") == [("sent",)]
    assert check_sent_mail(judge) >= by_status["done"]
    # Enough of the stream got through to mean something.
    assert by_status["done"] > SESSIONS // 3 and sum(tally.refused.values()) > 10, by_status
