"""The reply cap: one address gets at most N replies a UTC day, then one last notice
(its mail not executed), then silence; other addresses are unaffected; the next day resets."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import select

from conftest import JUDGE_ADDRESS, body_of, make_mail, read_maildir
from judge.basics.config import Config, JudgeSection, OutboundSection
from judge.pipeline import stages as pipeline
from judge.cli.inject import inject
from judge.mail.guards.reply_cap import Verdict, take_reply
from judge.store.db import Store
from judge.store.models import InboundMessage
from judge.store.schema import ensure_schema

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=timezone.utc)
LIMIT = 2
NOTICE = "as many as it answers for one address in a day"


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(judge=JudgeSection(address=JUDGE_ADDRESS, replies_per_day=LIMIT),
                  outbound=OutboundSection(transport=f"maildir:{tmp_path / 'mail'}"))


@pytest.fixture
def store(migrated_db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    # The cap counts per UTC day: pin the pipeline's clock so the test never straddles midnight.
    monkeypatch.setattr(pipeline, "utcnow", lambda: NOW)
    s = Store(migrated_db_url)
    ensure_schema(s.engine)
    yield s
    s.dispose()


def replies_by_original(maildir: Path) -> dict[str, object]:
    return {m["In-Reply-To"]: m for m in read_maildir(maildir)}


def test_cap_then_last_notice_then_silence(store: Store, config: Config, tmp_path: Path) -> None:
    mails = [make_mail("VERSION", sender="alice@example.org", subject=f"mail {n}",
                       msgid=f"<alice{n}@example.org>") for n in range(1, 5)]
    bob = make_mail("VERSION", sender="bob@example.org", subject="bob's",
                    msgid="<bob1@example.org>")
    report = inject(store, config, [m.as_bytes() for m in mails] + [bob.as_bytes()])
    assert report.stored == 5

    replies = replies_by_original(tmp_path / "mail")
    assert set(replies) == {"<alice1@example.org>", "<alice2@example.org>",
                            "<alice3@example.org>", "<bob1@example.org>"}

    for n in (1, 2):
        reply = replies[f"<alice{n}@example.org>"]
        text = body_of(reply)  # type: ignore[arg-type]
        assert "judge version" in text  # executed and answered
        assert NOTICE not in text
        assert reply["Subject"] == f"Re: mail {n}"  # type: ignore[index]

    notice = replies["<alice3@example.org>"]
    text = body_of(notice)  # type: ignore[arg-type]
    assert NOTICE in text
    assert "alice@example.org" in text
    assert "judge version" not in text  # not executed
    assert notice["Auto-Submitted"] == "auto-replied"  # type: ignore[index]
    assert [a.addr_spec for a in notice["To"].addresses] == ["alice@example.org"]  # type: ignore[index]

    assert "judge version" in body_of(replies["<bob1@example.org>"])  # type: ignore[arg-type]

    with store.transaction() as s:
        inbound = {r.message_id: r for r in s.scalars(select(InboundMessage))}
    assert inbound["<alice1@example.org>"].status == "done"
    assert inbound["<alice3@example.org>"].status == "done"
    assert "not executed" in (inbound["<alice3@example.org>"].note or "")
    fourth = inbound["<alice4@example.org>"]
    assert fourth.status == "ignored"
    assert "reply cap" in (fourth.note or "") and "alice@example.org" in (fourth.note or "")
    assert inbound["<bob1@example.org>"].status == "done"


def test_the_cap_survives_separate_batches(store: Store, config: Config, tmp_path: Path) -> None:
    # The count lives in the store: mail arriving later in the day is still counted.
    for n in range(1, 5):
        inject(store, config, [make_mail("VERSION", msgid=f"<later{n}@example.org>").as_bytes()])
    replies = replies_by_original(tmp_path / "mail")
    assert set(replies) == {f"<later{n}@example.org>" for n in (1, 2, 3)}
    assert NOTICE in body_of(replies["<later3@example.org>"])  # type: ignore[arg-type]


def test_take_reply_counts_per_address_and_resets_the_next_utc_day(store: Store) -> None:
    late = datetime(2026, 11, 28, 23, 59, 59, tzinfo=timezone.utc)
    next_day = datetime(2026, 11, 29, 0, 0, 0, tzinfo=timezone.utc)
    with store.transaction() as s:
        verdicts = [take_reply(s, "carol@example.org", late, LIMIT) for _ in range(5)]
        other = take_reply(s, "dave@example.org", late, LIMIT)
        tomorrow = [take_reply(s, "carol@example.org", next_day, LIMIT) for _ in range(3)]
    assert verdicts == [Verdict.REPLY, Verdict.REPLY, Verdict.LAST_NOTICE, Verdict.SILENCE,
                        Verdict.SILENCE]
    assert other is Verdict.REPLY
    assert tomorrow == [Verdict.REPLY, Verdict.REPLY, Verdict.LAST_NOTICE]


def test_mail_the_next_utc_day_is_answered_again(store: Store, config: Config, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    inject(store, config, [make_mail("VERSION", msgid=f"<day1-{n}@example.org>").as_bytes()
                           for n in range(1, 5)])
    monkeypatch.setattr(pipeline, "utcnow",
                        lambda: datetime(2026, 11, 29, 0, 0, 1, tzinfo=timezone.utc))
    inject(store, config, [make_mail("VERSION", msgid="<day2@example.org>").as_bytes()])
    reply = replies_by_original(tmp_path / "mail")["<day2@example.org>"]
    assert "judge version" in body_of(reply)  # type: ignore[arg-type]


def test_the_cap_counts_one_address_however_its_case_is_written(
        store: Store, config: Config, tmp_path: Path) -> None:
    senders = ["alice@example.org", "Alice@Example.org", "ALICE@EXAMPLE.ORG", "alice@example.ORG"]
    inject(store, config, [make_mail("VERSION", sender=s, msgid=f"<case{n}@example.org>").as_bytes()
                           for n, s in enumerate(senders, 1)])
    replies = replies_by_original(tmp_path / "mail")
    assert set(replies) == {"<case1@example.org>", "<case2@example.org>", "<case3@example.org>"}
    assert NOTICE in body_of(replies["<case3@example.org>"])  # type: ignore[arg-type]


def test_a_raised_limit_is_asked_for_only_once_the_count_passes_the_limit(store: Store) -> None:
    asked: list[int] = []

    def masters_limit() -> int:
        asked.append(1)
        return LIMIT + 2

    with store.transaction() as s:
        verdicts = [take_reply(s, "gm@example.org", NOW, LIMIT, raised=masters_limit)
                    for _ in range(6)]
        plain = [take_reply(s, "eve@example.org", NOW, LIMIT, raised=lambda: LIMIT - 1)
                 for _ in range(4)]
    assert verdicts == [Verdict.REPLY] * 4 + [Verdict.LAST_NOTICE, Verdict.SILENCE]
    assert len(asked) == 4  # not for the first LIMIT mails
    # a "raised" limit below the plain one lowers nothing
    assert plain == [Verdict.REPLY, Verdict.REPLY, Verdict.LAST_NOTICE, Verdict.SILENCE]
