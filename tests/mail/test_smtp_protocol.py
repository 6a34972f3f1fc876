"""Intake's SMTP protocol reads an envelope address of the common shape itself: the same
address and the same rest of the line as aiosmtpd's reading, for any input; and an address
aiosmtpd's reading fails on is malformed, never a 500 with a traceback in the log."""

from __future__ import annotations

from typing import Any

import pytest
from aiosmtpd.smtp import SMTP
from hypothesis import example, given, settings
from hypothesis import strategies as st

from judge.mail.intake import smtp_protocol
from judge.mail.intake.smtp_protocol import JudgeLMTP, JudgeSMTP


class _Handler:
    pass


def _protocols(local_part_limit: int = 0) -> tuple[Any, Any]:
    ours, theirs = JudgeSMTP(_Handler()), SMTP(_Handler())
    ours.local_part_limit = theirs.local_part_limit = local_part_limit
    return ours, theirs


_ATOM = st.text("abcXYZ019!#$%&'*+/=?^_`{|}~-", min_size=1, max_size=6)
_DOT_ATOM = st.lists(_ATOM, min_size=1, max_size=3).map(".".join)
_PLAIN = st.builds(lambda local, domain, rest: f"<{local}@{domain}>{rest}",
                   _DOT_ATOM, _DOT_ATOM,
                   st.sampled_from(["", " SIZE=1000", "  BODY=8BITMIME", "\tX", " (c) Y",
                                    "x", " ", ">"]))
# anything an SMTP client may put after MAIL FROM: or RCPT TO:, odd shapes most of all
_ODD = st.text("ab.@<>()\"\\[]:;, \t\x00é-_+=", max_size=30)


@settings(max_examples=500, deadline=None)
@given(arg=st.one_of(_PLAIN, _ODD, st.builds("{}{}".format, _PLAIN, _ODD)),
       limit=st.sampled_from([0, 3, 64]))
@example(arg="<a@b>", limit=0)
@example(arg="<a.b@c.d> SIZE=10", limit=0)
@example(arg="<\"a b\"@c>", limit=0)
@example(arg=" <a@b>", limit=0)
@example(arg="<a@[127.0.0.1]>", limit=0)
@example(arg="<@x,@y:a@b>", limit=0)
@example(arg="<a@b> (comment) SIZE=1", limit=0)
@example(arg="<a..b@c>", limit=0)
@example(arg="<>", limit=0)
@example(arg="<abcd@b>", limit=3)
@example(arg="<", limit=0)
def test_an_address_read_directly_is_the_address_aiosmtpd_reads(arg: str, limit: int) -> None:
    ours, theirs = _protocols(limit)
    theirs_read = _outcome(theirs, arg)
    # where aiosmtpd's reading raises, ours says "malformed"
    assert _outcome(ours, arg) == (("read", (None, None)) if theirs_read[0] == "raised"
                                   else theirs_read)


def _outcome(protocol: Any, arg: str) -> tuple[Any, ...]:
    """What reading ``arg`` gives, or the exception it raises (aiosmtpd's reading raises on
    some broken input, such as a lone "<", and answers the client 500 for it)."""
    try:
        return ("read", protocol._getaddr(arg))
    except Exception as exc:
        return ("raised", type(exc))


@pytest.mark.parametrize("arg", ["<player1@example.org>", "<a.b+tag@mail.example.co.uk> SIZE=99"])
def test_a_plain_address_never_reaches_the_email_package(
        arg: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The common shape takes the direct path (else the test above compares aiosmtpd with
    itself)."""
    def fail(self: Any, arg: str) -> None:
        raise AssertionError("read by aiosmtpd's parser")

    monkeypatch.setattr(SMTP, "_getaddr", fail)
    ours, theirs = _protocols()
    assert ours._getaddr(arg)[0] == arg[1:arg.index(">")]
    assert smtp_protocol._PLAIN_PATH.match(arg)


def test_lmtp_reads_addresses_the_same_way() -> None:
    assert JudgeLMTP(_Handler())._getaddr("<a@b> X") == ("a@b", "X")


def test_a_broken_address_over_smtp_is_malformed_and_logs_no_traceback(
        shared_judge: Any) -> None:
    with shared_judge.smtp() as smtp:
        smtp.ehlo()
        assert smtp.docmd("MAIL", "FROM:<") == (553, b"5.1.3 Error: malformed address")
        assert smtp.docmd("MAIL", "FROM:<player1@example.org>")[0] == 250
        assert smtp.docmd("RCPT", "TO:<")[0] == 553
        assert smtp.docmd("RCPT", "TO:<judge@example.org>")[0] == 250
    assert "Traceback" not in shared_judge.log()
