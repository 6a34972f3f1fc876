"""Game test kit: a real SQLite store and the real mail pipeline without SMTP, so service and
command tests run fast; plus helpers to read what the judge queued."""

from __future__ import annotations

import email
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email import policy
from email.header import decode_header, make_header
from typing import Iterator

import pytest
from sqlalchemy import Row, select

from conftest import JUDGE_ADDRESS, body_of, make_mail
from judge.basics.config import Config, JudgeSection
from judge.mail.intake.accept import Arrival, message_id_of, store_arrivals
from judge.pipeline.stages import Pipeline
from judge.pipeline.worker import process_pending
from judge.store.db import Store
from judge.store.models import OutboxMessage
from judge.store.schema import ensure_schema

POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]


@dataclass
class Sent:
    to: list[str]
    subject: str
    body: str
    # a reply to the mail sent (Auto-Submitted: auto-replied), whatever its subject says
    reply: bool = False


@dataclass
class Judge:
    """The judge without its daemon: mail in through the pipeline, outbox rows out."""

    store: Store
    config: Config
    last_row: int = 0
    counter: int = 0
    passwords: dict[str, str] = field(default_factory=dict)
    _pipeline: Pipeline | None = None
    _read: dict[int, Sent] = field(default_factory=dict)

    @property
    def pipeline(self) -> Pipeline:
        """One pipeline for every mail, as the daemon has (built again when a test changed
        the configuration): building one for each mail cost more than many a mail."""
        if self._pipeline is None or self._pipeline.config is not self.config:
            self._pipeline = Pipeline(self.config)
        return self._pipeline

    def mail(self, sender: str, body: str, subject: str = "orders") -> Sent:
        """Send one mail; returns the reply to it (other new mail in ``self.new``)."""
        replies = self.mail_copies(sender, body, subject)
        assert len(replies) == 1, [(m.to, m.subject) for m in replies]
        return replies[0]

    def mail_copies(self, sender: str, body: str, subject: str = "orders") -> list[Sent]:
        """Send one mail; returns the copies of the reply that differ (the sender's first;
        a role's registered address reads only what was done as that role)."""
        self.counter += 1
        raw = make_mail(body, sender=sender, subject=subject).as_bytes()
        store_arrivals(self.store, [Arrival(JUDGE_ADDRESS, sender, raw, message_id_of(raw))])
        process_pending(self.store, self.config, self.pipeline)
        out = self.new()
        self.last_broadcasts = [m for m in out if not m.reply]
        return [m for m in out if m.reply]

    def outbox(self, after: int = 0) -> list[Sent]:
        """The queued mails (those with a row id above ``after``), oldest first."""
        with self.store.transaction() as s:
            # the three columns read, not whole ORM objects: game tests read thousands
            rows = s.execute(select(OutboxMessage.id, OutboxMessage.raw, OutboxMessage.recipients)
                             .where(OutboxMessage.id > after).order_by(OutboxMessage.id)).all()
            out: list[Sent] = []
            for r in rows:
                sent = self._read_row(r)
                # A broadcast (or a reply) is queued as one copy per recipient, one after
                # another: read the run of identical copies as one mail to all of them.
                last = out[-1] if out else None
                if last and (last.reply, last.subject, last.body) == (
                        sent.reply, sent.subject, sent.body):
                    last.to.extend(sent.to)
                else:
                    out.append(sent)
                self.last_row = max(self.last_row, r.id)
        return out

    def _read_row(self, row: Row[tuple[int, bytes, str]]) -> Sent:
        """A queued mail as a test reads it (each row parsed once: a row's mail never
        changes, and tests read the outbox again and again)."""
        known = self._read.get(row.id)
        if known is None:
            to, subject, body, auto = read_queued(row.raw)
            known = Sent(row.recipients.split(","), subject, body.replace("\r\n", "\n"),
                         reply=auto == "auto-replied")
            # Every mail, replies too, is a copy for one reader: nobody's copy names
            # another address.
            assert len(known.to) == 1 and to == known.to[0], (to, known.to)
            self._read[row.id] = known
        # a copy: outbox() joins runs of copies into one Sent by extending its list
        return Sent(list(known.to), known.subject, known.body, known.reply)

    def new(self) -> list[Sent]:
        """The mails queued since the last call (read once each: long games stay fast)."""
        return self.outbox(after=self.last_row)


@pytest.fixture
def judge_in_process(migrated_db_url: str) -> Iterator[Judge]:
    store = Store(migrated_db_url)
    ensure_schema(store.engine)
    config = Config(judge=JudgeSection(address=JUDGE_ADDRESS, replies_per_day=10_000))
    yield Judge(store, config)
    store.dispose()


def read_queued(raw: bytes) -> tuple[str, str, str, str | None]:
    """To, Subject, the plain-text body and Auto-Submitted of a queued mail, as a mail program
    shows them.  A single text/plain part (what the judge writes but for the map pictures) is
    read with the email package's compat32 policy, which leaves headers unparsed: a tenth of
    the default policy's cost (0.05 against 0.6 ms a mail), and game tests read thousands of
    mails.  Anything else is read with the default policy."""
    msg = email.message_from_bytes(raw, policy=policy.compat32)
    if msg.is_multipart() or msg.get_content_type() != "text/plain":
        full = email.message_from_bytes(raw, policy=policy.default)
        auto = full["Auto-Submitted"]
        return str(full["To"]), str(full["Subject"]), body_of(full), \
            None if auto is None else str(auto)

    def header(name: str) -> str | None:
        value = msg[name]
        if value is None:
            return None
        # unfolded (RFC 5322 2.2.3), encoded words decoded (RFC 2047)
        return str(make_header(decode_header(_FOLD.sub("", str(value)))))

    payload = msg.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return header("To") or "", header("Subject") or "", \
        payload.decode(msg.get_content_charset() or "ascii", errors="replace"), \
        header("Auto-Submitted")  # undecodable bytes replaced, as the default policy does


_FOLD = re.compile(r"\r?\n(?=[ \t])")


def player(i: int) -> str:
    return f"player{i}@example.org"


def start_full_game(j: Judge, name: str = "war1901", extra: str = "") -> dict[str, str]:
    """CREATE by the master and seven JOINs; returns power → player address."""
    reply = j.mail("master@example.org", f"CREATE {name} mpw {extra}".strip())
    assert "created" in reply.body, reply.body
    for i in range(7):
        reply = j.mail(player(i), f"JOIN {name} pw{i}")
        assert "You have joined" in reply.body, reply.body
    assigned: dict[str, str] = {}
    for m in j.last_broadcasts:
        if " You are " in m.subject:
            assigned[m.subject.rsplit(" ", 1)[1].upper()] = m.to[0]
    assert sorted(assigned) == POWERS
    j.passwords = {p: f"pw{int(a[6])}" for p, a in assigned.items()}
    return assigned


# The code a mail asks its reader to send back (judge.service.access.confirmations).
CONFIRM_CODE = re.compile(r"CONFIRM ([A-Z0-9]{5}-[A-Z0-9]{5})")


def code_in(text: str) -> str:
    """The code in a mail that asks for one (the last, should it hold several)."""
    found = CONFIRM_CODE.findall(text)
    assert found, text
    return str(found[-1])


def code_for(j: Judge, address: str) -> str:
    """The code in the last mail the last mail sent made the judge write to ``address`` (a
    REPLACE's, a SET ADDRESS's)."""
    asking = [m for m in j.last_broadcasts if address in m.to and CONFIRM_CODE.search(m.body)]
    assert asking, [(m.to, m.subject) for m in j.last_broadcasts]
    return code_in(asking[-1].body)


def observe(j: Judge, address: str, game: str, password: str = "opw", extra: str = "") -> Sent:
    """OBSERVE, then CONFIRM with the code of its answer: ``address`` observes ``game``, and
    gets its mail.  Returns the answer to OBSERVE."""
    reply = j.mail(address, f"OBSERVE {game} {password} {extra}".strip())
    confirmed = j.mail(address, f"CONFIRM {code_in(reply.body)}")
    assert "Confirmed:" in confirmed.body, confirmed.body
    return reply


def signon(j: Judge, power: str, game: str = "war1901") -> str:
    return f"SIGNON {power[0]}{game} {j.passwords[power]}"


def force_due(j: Judge, game: str, when: datetime) -> None:
    """Move a game's stored clock so its deadline is ``when`` (what a long wait would do)."""
    from judge.service.clock import game_clock as clock
    from judge.store.models import Game
    with j.store.transaction() as s:
        g = s.scalars(select(Game).where(Game.name_key == game)).one()
        g.deadline = when
        g.reminder_at = when - timedelta(minutes=1)
        clock.schedule_next(g)


UTC = timezone.utc
