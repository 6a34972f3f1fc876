"""Composing the judge's mail (docs/mail-format.md): the headers other programs rely on, non-ASCII text
that survives the trip through bytes, and the reply that answers every line in order."""

from __future__ import annotations

import email
from datetime import datetime, timezone
from email import policy
from email.utils import parsedate_to_datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import body_of
from judge.commands.context import Answer
from judge.basics.config import Config, JudgeSection
from judge.mail.writing.compose import Composer, composed

NOW = datetime(2026, 11, 28, 23, 30, 5, tzinfo=timezone.utc)


@pytest.fixture
def composer() -> Composer:
    return Composer(Config(judge=JudgeSection(address="judge@example.org", name="XJUDGE")))


def reparse(msg: email.message.EmailMessage, **kw: object) -> email.message.EmailMessage:
    return email.message_from_bytes(msg.as_bytes(**kw), policy=policy.default)  # type: ignore[arg-type]


def make_reply(composer: Composer, subject: str = "my orders", **kw: object):
    args = dict(to=["alice@example.org"], original_subject=subject, original_id="<orig@example.com>",
                references=["<first@example.com>", "<second@example.com>"],
                body="Hello.\n", now=NOW)
    args.update(kw)
    return composer.reply(**args)  # type: ignore[arg-type]


def test_reply_headers(composer: Composer) -> None:
    msg = reparse(make_reply(composer))
    sender = msg["From"].addresses[0]
    assert sender.addr_spec == "judge@example.org"
    assert sender.display_name == "XJUDGE"
    assert [a.addr_spec for a in msg["To"].addresses] == ["alice@example.org"]
    assert msg["Subject"] == "Re: my orders"
    assert parsedate_to_datetime(msg["Date"]) == NOW
    assert msg["Message-ID"].startswith("<") and msg["Message-ID"].endswith("@example.org>")
    assert msg["In-Reply-To"] == "<orig@example.com>"
    assert msg["References"].split() == ["<first@example.com>", "<second@example.com>",
                                         "<orig@example.com>"]
    assert msg["Auto-Submitted"] == "auto-replied"
    assert body_of(msg) == "Hello.\n"


def test_each_mail_gets_its_own_message_id(composer: Composer) -> None:
    ids = {make_reply(composer)["Message-ID"] for _ in range(5)}
    assert len(ids) == 5


@pytest.mark.parametrize("original,expected", [
    ("Re: my orders", "Re: my orders"),
    ("RE: my orders", "Re: my orders"),
    ("re:my orders", "Re: my orders"),
    ("Re: Re[2]: my orders", "Re: my orders"),
    ("  my orders  ", "Re: my orders"),
    ("", "Re: your mail"),
    ("Regarding Paris", "Re: Regarding Paris"),
    ("[Error Flag] Re: my orders", "Re: my orders"),
    # what mail programs write in other languages, repeated and mixed, with lists' [tags]
    ("AW: my orders", "Re: my orders"),
    ("WG: my orders", "Re: my orders"),
    ("SV: my orders", "Re: my orders"),
    ("VS: my orders", "Re: my orders"),
    ("Rif: my orders", "Re: my orders"),
    ("R: my orders", "Re: my orders"),
    ("Antw: my orders", "Re: my orders"),
    ("Antwort: my orders", "Re: my orders"),
    ("RES: my orders", "Re: my orders"),
    ("TR: my orders", "Re: my orders"),
    ("Fwd: my orders", "Re: my orders"),
    ("Fw: my orders", "Re: my orders"),
    ("Réf. : my orders", "Re: my orders"),
    ("Odp: my orders", "Re: my orders"),
    ("YNT: my orders", "Re: my orders"),
    ("ΑΠ: my orders", "Re: my orders"),
    ("回复：my orders", "Re: my orders"),
    ("RE : my orders", "Re: my orders"),
    ("Re(2): AW[3]: my orders", "Re: my orders"),
    ("[diplomacy] AW: Re: [club] WG: Fwd: SV: my orders", "Re: my orders"),
    ("AW: [club] Re: orders", "Re: orders"),  # docs/mail-format.md's example
    ("Aw: Re: [Error Flag] my orders", "Re: my orders"),
    # a word that only begins like a marker is the sender's
    ("Resume: my orders", "Re: Resume: my orders"),
    ("Aware: my orders", "Re: Aware: my orders"),
    ("Trieste falls", "Re: Trieste falls"),
])
def test_reply_subject_is_re_once(composer: Composer, original: str, expected: str) -> None:
    assert make_reply(composer, subject=original)["Subject"] == expected


def test_a_signed_on_reply_strips_foreign_prefixes_before_the_judges_own(
        composer: Composer) -> None:
    msg = make_reply(composer, subject="AW: [club] Re: XJUDGE:g1 - S1901M SV: my orders",
                     game="g1", phase="F1901M", error=True)
    assert msg["Subject"] == "Re: [Error Flag] XJUDGE:g1 - F1901M my orders"


@pytest.mark.parametrize("original,error,expected", [
    ("my orders", False, "Re: XJUDGE:g1 - F1901M my orders"),
    ("Re: XJUDGE:g1 - S1901M my orders", False, "Re: XJUDGE:g1 - F1901M my orders"),
    # the error flag after Re:, where the classic Judge puts it (and taken off either way)
    ("[Error Flag] Re: XJUDGE:g1 - S1901M my orders", True,
     "Re: [Error Flag] XJUDGE:g1 - F1901M my orders"),
    ("Re: [Error Flag] XJUDGE:g1 - S1901M my orders", True,
     "Re: [Error Flag] XJUDGE:g1 - F1901M my orders"),
    ("Re: [Error Flag] XJUDGE:g1 - S1901M my orders", False, "Re: XJUDGE:g1 - F1901M my orders"),
    ("", True, "Re: [Error Flag] XJUDGE:g1 - F1901M"),
    ("Re: XJUDGE:g1 - S1901M Re: XJUDGE:g1 - S1901M my orders", False,
     "Re: XJUDGE:g1 - F1901M my orders"),
    ("Re: XJUDGE:other - W1903A", False, "Re: XJUDGE:g1 - F1901M"),
    # another judge's prefix is the sender's own words
    ("Re: USEF:g1 - S1901M x", False, "Re: XJUDGE:g1 - F1901M USEF:g1 - S1901M x"),
])
def test_a_signed_on_reply_names_game_and_phase_once(composer: Composer, original: str,
                                                     error: bool, expected: str) -> None:
    msg = make_reply(composer, subject=original, game="g1", phase="F1901M", error=error)
    assert msg["Subject"] == expected


def test_reply_references_do_not_repeat_the_original(composer: Composer) -> None:
    msg = make_reply(composer, references=["<orig@example.com>", "<a@x>", "<a@x>"])
    assert msg["References"].split() == ["<a@x>", "<orig@example.com>"]


def test_reply_to_a_mail_without_id_has_no_threading_headers(composer: Composer) -> None:
    msg = make_reply(composer, original_id=None, references=[])
    assert msg["In-Reply-To"] is None and msg["References"] is None
    assert msg["Auto-Submitted"] == "auto-replied"


def test_reply_to_several_addresses_names_each_once(composer: Composer) -> None:
    msg = reparse(make_reply(composer, to=["a@example.org", "b@example.org", "a@example.org"]))
    assert [a.addr_spec for a in msg["To"].addresses] == ["a@example.org", "b@example.org"]


def test_broadcast_headers(composer: Composer) -> None:
    msg = reparse(composer.broadcast(to=["a@example.org", "b@example.org"],
                                     subject="XJUDGE:war1901 - S1901M Results",
                                     body="Results.\n", now=NOW))
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg["From"].addresses[0].addr_spec == "judge@example.org"
    assert msg["Subject"] == "XJUDGE:war1901 - S1901M Results"
    assert msg["Message-ID"].endswith("@example.org>")
    assert parsedate_to_datetime(msg["Date"]) == NOW
    assert msg["In-Reply-To"] is None
    assert body_of(msg) == "Results.\n"


@pytest.mark.parametrize("as_bytes_kw", [{}, {"policy": policy.SMTP}], ids=["default", "smtp"])
def test_non_ascii_subject_and_body_round_trip(composer: Composer, as_bytes_kw: dict) -> None:
    subject = "Zürich und Ελλάδα — Ordres pour la Bourgogne"
    body = "A Zürich hält.\nΕλλάδα: F Αιγαίο S A Σμύρνη\nÇa va? ✓\n"
    msg = make_reply(composer, subject=subject, body=body)
    raw = msg.as_bytes(**as_bytes_kw)
    assert raw.isascii()  # safe over any relay, 8BITMIME or not
    back = email.message_from_bytes(raw, policy=policy.default)
    assert back["Subject"] == f"Re: {subject}"
    # On the wire (policy.SMTP) lines end in CRLF; a reader sees the same text.
    assert body_of(back).replace("\r\n", "\n") == body


def test_ascii_body_stays_readable_in_raw_form(composer: Composer) -> None:
    raw = make_reply(composer, body="A PAR - BUR: accepted.\n").as_bytes()
    assert b"A PAR - BUR: accepted." in raw


def test_reply_template_lists_every_answer_in_order(composer: Composer) -> None:
    answers = [Answer(1, "HELP", "Here is the help."),
               Answer(3, "FROB", 'Error: unknown command "FROB".', ok=False),
               Answer(4, "VERSION", "XJUDGE is judge version 0.1.0."),
               Answer(6, "GET nothing", 'Error: no help topic "nothing".', ok=False)]
    body = composer.render("reply.txt", answers=answers, problems=[], judge_name="XJUDGE",
                           judge_address="judge@example.org", mail=None, limit=50)
    assert body.startswith(":: Judge: XJUDGE\n")
    positions = [body.index(f"> {a.text}\n{a.response}\n") for a in answers]
    assert positions == sorted(positions)
    assert "4 lines read, 2 errors." in body


def test_reply_template_counts_in_the_singular(composer: Composer) -> None:
    body = composer.render("reply.txt", answers=[Answer(1, "VERSION", "v")], problems=[],
                           judge_name="XJUDGE", judge_address="judge@example.org", mail=None,
                           limit=50)
    assert "1 line read, 0 errors." in body


def test_reply_template_for_a_mail_without_commands(composer: Composer) -> None:
    body = composer.render("reply.txt", answers=[], problems=["the mail had no text part"],
                           judge_name="XJUDGE", judge_address="judge@example.org", mail=None,
                           limit=50)
    assert "no commands" in body and "HELP" in body and "judge@example.org" in body
    assert "the mail had no text part" in body


@pytest.mark.parametrize("body", ["Spring 1901 results.\nA PAR - BUR.\n",
                                  "Résultats: Ünïcode, and a line " + "x" * 1200 + "\n"])
def test_a_broadcast_built_once_gives_each_recipient_the_mail_built_for_them(
        composer: Composer, body: str) -> None:
    from email.policy import SMTP
    copies = composer.broadcast_copies(subject="XJUDGE:war - S1901M Results", body=body, now=NOW)
    recipients = ["alice@example.org", "b" * 60 + "@" + "c" * 50 + ".example.org"]
    ids = set()
    for to in recipients:
        raw, message_id = copies.copy_for(to)
        alone = composer.broadcast(to=[to], subject="XJUDGE:war - S1901M Results", body=body,
                                   now=NOW)
        alone.replace_header("Message-ID", message_id)
        assert raw == alone.as_bytes(policy=SMTP)  # byte for byte, but for its own id
        msg = email.message_from_bytes(raw, policy=policy.default)
        assert str(msg["To"]) == to and str(msg["Message-ID"]) == message_id
        ids.add(message_id)
    assert len(ids) == len(recipients)  # every copy is a mail of its own


@pytest.mark.parametrize("to", ["alice@example.org", "a.b+c@x-y.example.org", "a..b@example.org",
                                ".a@example.org", "a@b", "Ünï@exämple.org",
                                "x" * 70 + "@example.org", "<a@example.org>"])
def test_each_copy_names_its_recipient_as_the_email_package_would(composer: Composer,
                                                                  to: str) -> None:
    from email.policy import SMTP
    copies = composer.broadcast_copies(subject="S", body="B\n", now=NOW)
    raw, message_id = copies.copy_for(to)
    alone = composer.broadcast(to=[to], subject="S", body="B\n", now=NOW)
    alone.replace_header("Message-ID", message_id)
    assert raw == alone.as_bytes(policy=SMTP)


# --------------------------------------------------------------------------- replies written directly

_ASCII_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=120)
_ANY_TEXT = st.one_of(_ASCII_TEXT, st.text(max_size=120))
_IDS = st.one_of(st.none(), st.sampled_from(["<orig@example.com>", "orig@example.com", "<a b@c>",
                                             "<" + "i" * 80 + "@example.com>", "<=?x?=@y>", ""]))
_RECIPIENTS = st.sampled_from(["alice@example.org", "a.b+c@x-y.example.org", "a..b@example.org",
                               "Ünï@exämple.org", "x" * 70 + "@example.org", "<a@example.org>",
                               "Alice <alice@example.org>", "a@b"])


@settings(max_examples=300, deadline=None)
@given(subject=_ANY_TEXT, body=st.one_of(_ASCII_TEXT, _ANY_TEXT,
                                         st.just("a line " + "x" * 1000 + "\nnext\n")),
       to=_RECIPIENTS, original_id=_IDS,
       references=st.lists(st.sampled_from(["<r1@example.com>", "<r2@x>", "junk", "<a b@c>"]),
                           max_size=25),
       game=st.sampled_from([None, "war", "ünï"]), error=st.booleans(),
       when=st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1),
                         timezones=st.just(timezone.utc)))
def test_a_reply_written_directly_is_the_mail_the_email_package_writes(
        subject: str, body: str, to: str, original_id: str | None, references: list[str],
        game: str | None, error: bool, when: datetime) -> None:
    """reply_mail writes the bytes itself in the common case; whatever the subject, body,
    recipient and threading ids, they are the bytes the email package writes, and the outbox
    row records the same id, sender, recipients and subject."""
    composer = Composer(Config(judge=JudgeSection(address="judge@example.org", name="XJUDGE")))
    ids = iter(range(10**6))

    def same_ids(domain: str | None = None) -> str:
        return f"<fixed.{next(ids)}@{domain}>"

    args = dict(original_subject=subject, original_id=original_id, references=references,
                body=body, now=when, game=game, phase="S1901M" if game else None, error=error)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("judge.mail.writing.compose.make_msgid", same_ids)
        direct = composer.reply_mail(to=to, **args)  # type: ignore[arg-type]
        ids = iter(range(10**6))
        reference = composed(composer.reply(to=[to], **args))  # type: ignore[arg-type]
    assert direct == reference


def test_a_plain_reply_is_written_without_the_email_package(
        composer: Composer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The common reply (ASCII subject and body, a plain address) takes the direct path: the
    test above compares that path with the email package, not the package with itself."""
    monkeypatch.setattr(Composer, "reply", lambda *a, **k: pytest.fail("composed by the package"))
    mail = composer.reply_mail(to="alice@example.org", original_subject="orders",
                               original_id="<orig@example.com>", references=[],
                               body="Hello.\n" * 40, now=NOW, game="war", phase="S1901M")
    msg = email.message_from_bytes(mail.raw, policy=policy.default)
    assert msg["Subject"] == mail.subject == "Re: XJUDGE:war - S1901M orders"
    assert body_of(msg).replace("\r\n", "\n") == "Hello.\n" * 40


# --------------------------------------------------------------------------- a long subject

_WORD = st.one_of(
    st.sampled_from(["Re:", "AW:", "orders", "XJUDGE:war1901", "-", "S1901M", "für", "Ελλάδα",
                     "Frühling", "a:b", "=?utf-8?q?x?=", "x" * 70, "y" * 120, "ü" * 50]),
    st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1,
            max_size=30))


def _subject_lines(raw: bytes) -> list[str]:
    """The Subject header's lines as written, the first with its name."""
    head = raw.split(b"\r\n\r\n", 1)[0].decode("ascii").split("\r\n")
    first = next(i for i, line in enumerate(head) if line.startswith("Subject:"))
    rest = [line for line in head[first + 1:]]
    return [head[first], *rest[:next((i for i, line in enumerate(rest)
                                       if not line.startswith(" ")), len(rest))]]


@settings(max_examples=300, deadline=None)
@given(words=st.lists(_WORD, min_size=1, max_size=30), game=st.sampled_from([None, "war1901"]),
       error=st.booleans())
def test_a_long_subject_is_folded_after_a_word_and_never_after_a_colon(
        words: list[str], game: str | None, error: bool) -> None:
    composer = Composer(Config(judge=JudgeSection(address="judge@example.org", name="XJUDGE")))
    mail = composer.reply_mail(to="alice@example.org", original_subject=" ".join(words),
                               original_id=None, references=[], body="B\n", now=NOW,
                               game=game, phase="S1901M" if game else None, error=error)
    lines = _subject_lines(mail.raw)
    # read back, it is the subject the outbox row records, word for word
    assert email.message_from_bytes(mail.raw, policy=policy.default)["Subject"] == mail.subject
    for line in lines[:-1]:
        assert not line.endswith(":"), lines  # neither "Subject:" nor "Re:" ends a line
    for line in lines:
        assert len(line) <= 998
        if len(line) > 78:  # only where no fold may be made: after a colon, or in one word
            assert all(word.endswith(":") for word in line.split(" ")[:-1] if word), lines


def test_a_long_subject_keeps_the_judges_prefix_on_the_first_line(composer: Composer) -> None:
    # the email package wrote "Subject:" alone on the first line
    mail = composer.reply_mail(to="alice@example.org",
                               original_subject="my orders for the spring campaign",
                               original_id=None, references=[], body="B\n", now=NOW,
                               game="war1901", phase="S1901M", error=True)
    assert _subject_lines(mail.raw) == [
        "Subject: Re: [Error Flag] XJUDGE:war1901 - S1901M my orders for the spring",
        " campaign"]
