"""Tests for judge.mail.reading.message: what the judge reads from received mail."""

from __future__ import annotations

import base64
import sys
from dataclasses import replace
from email.message import EmailMessage

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.basics.config import LimitsSection
from judge.mail.reading.body_lines import read_body
from judge.mail.reading.message import ReadMail, body_lines, read_message

JUDGE = "judge@example.net"
PLAYER = "player@example.org"


def read(raw: bytes | EmailMessage, envelope: str | None = PLAYER) -> ReadMail:
    if isinstance(raw, EmailMessage):
        raw = raw.as_bytes()
    return read_message(raw, envelope_sender=envelope, judge_address=JUDGE)


def plain(body: str = "SIGNON Fwar1901 secret\nA Par-Bur\n", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = headers.pop("From", f"Pat Player <{PLAYER}>")
    msg["To"] = JUDGE
    msg["Subject"] = headers.pop("Subject", "orders")
    msg["Message-ID"] = headers.pop("Message_ID", "<abc.123@example.org>")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


# ----------------------------------------------------------------------- basics


def test_plain_text_mail() -> None:
    mail = read(plain())
    assert mail.lines == ("SIGNON Fwar1901 secret", "A Par-Bur")
    assert mail.sender == PLAYER
    assert mail.from_header == PLAYER
    assert mail.subject == "orders"
    assert mail.message_id == "<abc.123@example.org>"
    assert mail.robot_reason is None
    assert mail.problems == ()


def test_reply_to_is_preferred_and_domain_lower_cased() -> None:
    mail = read(plain(From="Pat <Pat@Example.ORG>", Reply_To="Other <Other.Box@Mail.Example.COM>"))
    assert mail.sender == "Other.Box@mail.example.com"
    assert mail.from_header == "Pat@example.org"


def test_missing_headers_give_empty_values() -> None:
    mail = read(b"From: a@example.org\n\nLIST\n")
    assert mail.subject == ""
    assert mail.message_id is None
    assert mail.references == ()
    assert mail.lines == ("LIST",)


def test_folded_message_id_and_references() -> None:
    raw = (
        b"From: a@example.org\nMessage-ID:\n <x.1@example.org>\n"
        b"References: <r1@example.net>\n <r2@example.net>\n"
        b"In-Reply-To: <r2@example.net> (Judge's message)\n\nLIST\n"
    )
    mail = read(raw)
    assert mail.message_id == "<x.1@example.org>"
    assert mail.references == ("<r1@example.net>", "<r2@example.net>")


def test_rfc2047_subject() -> None:
    raw = (
        b"From: a@example.org\n"
        b"Subject: =?utf-8?q?Z=C3=BCrich_und?=\n =?utf-8?b?zpXOu867zqzOtM6x?=\n\nx\n"
    )
    assert read(raw).subject == "Zürich undΕλλάδα"  # no space between adjacent encoded words


def test_raw_8bit_subject_is_decoded() -> None:
    assert read("From: a@example.org\nSubject: Ελλάδα\n\nx\n".encode()).subject == "Ελλάδα"
    assert read(b"From: a@example.org\nSubject: caf\xe9\n\nx\n").subject == "café"


def test_crlf_and_trailing_whitespace_and_tabs() -> None:
    raw = b"From: a@example.org\r\n\r\nA Par-Bur   \r\n\tF Bre H\t\r\n\r\n\r\n"
    assert read(raw).lines == ("A Par-Bur", "\tF Bre H")


# ----------------------------------------------------------------------- MIME and charsets


def test_multipart_alternative_prefers_plain() -> None:
    msg = plain("A Par-Bur\n")
    msg.add_alternative("<p>A Mar-Spa</p>", subtype="html")
    mail = read(msg)
    assert mail.lines == ("A Par-Bur",)
    assert mail.problems == ()


def test_plain_attachment_is_not_the_body() -> None:
    msg = EmailMessage()
    msg["From"] = PLAYER
    msg.set_content("<div>A Par-Bur</div>", subtype="html")
    msg.add_attachment("F Bre-Mao\n", filename="old-orders.txt")
    assert read(msg).lines == ("A Par-Bur",)


def test_attached_message_is_not_read() -> None:
    inner = plain("A Mar-Spa\n")
    msg = EmailMessage()
    msg["From"] = PLAYER
    msg.set_content("A Par-Bur\n")
    msg.add_attachment(inner)
    assert read(msg).lines == ("A Par-Bur",)


def test_html_only_with_br_and_p() -> None:
    msg = EmailMessage()
    msg["From"] = PLAYER
    html = (
        "<html><head><title>t</title><style>p {color: red}</style></head><body>"
        "<p>SIGNON Fwar1901 secret</p>\n<p>A Par-Bur<br>A Mar-Spa</p>"
        "<div>F   Bre\n  H</div><div><br></div><div>A&nbsp;Mun&nbsp;H</div>"
        "<script>alert(1)</script>"
        "<div class=gmail_quote>On Mon, 1 Jan 2024, X wrote:<blockquote>old</blockquote></div>"
        "</body></html>"
    )
    msg.set_content(html, subtype="html")
    mail = read(msg)
    assert mail.lines == (
        "SIGNON Fwar1901 secret",
        "A Par-Bur",
        "A Mar-Spa",
        "F Bre H",
        "",
        "A Mun H",
    )
    assert any("HTML" in p for p in mail.problems)


def test_html_table_cells_and_lists() -> None:
    msg = EmailMessage()
    msg["From"] = PLAYER
    msg.set_content(
        "<table><tr><td>A</td><td>Par-Bur</td></tr></table><ul><li>F Bre H</li></ul>"
        "<pre>A Mun H\nA Kie H</pre>",
        subtype="html",
    )
    assert read(msg).lines == ("A Par-Bur", "F Bre H", "A Mun H", "A Kie H")


@pytest.mark.parametrize("cte", ["quoted-printable", "base64"])
def test_transfer_encodings(cte: str) -> None:
    msg = EmailMessage()
    msg["From"] = PLAYER
    msg.set_content("A Zürich-Ελλάδα\n" + "x" * 100 + "\n", charset="utf-8", cte=cte)
    assert read(msg).lines == ("A Zürich-Ελλάδα", "x" * 100)


def test_iso_8859_1_body() -> None:
    raw = (
        b"From: a@example.org\nMIME-Version: 1.0\n"
        b"Content-Type: text/plain; charset=ISO-8859-1\n"
        b"Content-Transfer-Encoding: quoted-printable\n\nZ=FCrich\n"
    )
    mail = read(raw)
    assert mail.lines == ("Zürich",)
    assert mail.problems == ()


def test_utf8_8bit_body() -> None:
    raw = (
        "From: a@example.org\nContent-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: 8bit\n\nΕλλάδα\n"
    ).encode()
    assert read(raw).lines == ("Ελλάδα",)


def test_unknown_charset_is_survived_and_noted() -> None:
    raw = (
        "From: a@example.org\nContent-Type: text/plain; charset=x-unknown-123\n"
        "Content-Transfer-Encoding: 8bit\n\nZürich\n"
    ).encode()
    mail = read(raw)
    assert mail.lines == ("Zürich",)
    assert any("x-unknown-123" in p for p in mail.problems)


def test_mislabelled_charset_falls_back() -> None:
    # labelled utf-8 but really latin-1
    raw = (
        b"From: a@example.org\nContent-Type: text/plain; charset=utf-8\n"
        b"Content-Transfer-Encoding: 8bit\n\nZ\xfcrich\n"
    )
    mail = read(raw)
    assert mail.lines == ("Zürich",)
    assert any("utf-8" in p for p in mail.problems)


def test_non_mime_8bit_body() -> None:
    mail = read("From: a@example.org\n\nΕλλάδα\n".encode())
    assert mail.lines == ("Ελλάδα",)


def test_non_text_codec_label_is_survived() -> None:
    raw = b"From: a@example.org\nContent-Type: text/plain; charset=base64\n\nA Par H\n"
    assert read(raw).lines == ("A Par H",)


def test_multipart_without_boundary_is_read_as_text() -> None:
    raw = b"From: a@example.org\nContent-Type: multipart/mixed\n\nA Par-Bur\n"
    mail = read(raw)
    assert mail.lines == ("A Par-Bur",)
    assert mail.problems


def test_multipart_with_wrong_boundary() -> None:
    raw = b"From: a@example.org\nContent-Type: multipart/mixed; boundary=zz\n\nA Par-Bur\n--yy\n"
    mail = read(raw)
    assert mail.lines[0] == "A Par-Bur"
    assert any("MIME" in p for p in mail.problems)


def test_multipart_without_parts() -> None:
    raw = b"From: a@example.org\nContent-Type: multipart/mixed; boundary=zz\n\n--zz--\n"
    mail = read(raw)
    assert mail.lines == ()
    assert mail.problems


def test_garbage_base64() -> None:
    raw = (
        b"From: a@example.org\nContent-Type: text/plain\n"
        b"Content-Transfer-Encoding: base64\n\n!!!not base64 at all\xff\n"
    )
    mail = read(raw)
    assert isinstance(mail.lines, tuple)


def test_garbage_bytes() -> None:
    mail = read(b"\x00\xff\xfe garbage\n\n\x80\x81", envelope=None)
    assert mail.robot_reason == "no usable From address"


def test_base64_html_only() -> None:
    body = base64.b64encode("<p>A Par-Bur</p><p>Zürich</p>".encode()).decode()
    raw = (
        "From: a@example.org\nContent-Type: text/html; charset=utf-8\n"
        f"Content-Transfer-Encoding: base64\n\n{body}\n"
    ).encode()
    assert read(raw).lines == ("A Par-Bur", "Zürich")


# ----------------------------------------------------------------------- line filter


def test_quoted_lines_are_skipped_and_blank_lines_kept() -> None:
    text = "A Par-Bur\n> old order\n   > also old\n\nF Bre H\n\n\n"
    assert body_lines(text) == ["A Par-Bur", "", "F Bre H"]


@pytest.mark.parametrize("sig", ["-- ", "--"])
def test_signature_stops_reading(sig: str) -> None:
    assert body_lines(f"A Par-Bur\n{sig}\nPat\nA Mar-Spa\n") == ["A Par-Bur"]


def test_signoff_is_kept_as_last_line() -> None:
    assert body_lines("A Par-Bur\nsignoff\nA Mar-Spa\n") == ["A Par-Bur", "signoff"]
    assert body_lines("LIST\n  SIGNOFF  // thanks\nmore") == ["LIST", "  SIGNOFF  // thanks"]


@pytest.mark.parametrize(
    "marker",
    [
        "On Mon, 1 Jan 2024 at 10:00, Judge <judge@example.net> wrote:",
        "On Mon, 1 Jan 2024 at 10:00, Judge <\njudge@example.net> wrote:",
        "-----Original Message-----",
        "________________________________\nFrom: Judge",
        "Begin forwarded message:",
        "From: Judge\nSent: Monday",
    ],
)
def test_quoted_original_stops_reading(marker: str) -> None:
    assert body_lines(f"A Par-Bur\n{marker}\nA Mar-Spa\n") == ["A Par-Bur"]


@pytest.mark.parametrize("line", [
    "From Paris to Burgundy:", "To: Germany, I support you", "Subject: my orders",
    "--- Spring 1901 orders ---", "Von Kiel nach Holland", "On Monday I attack:",
    "A: Par-Bur", "De Paris: A Par-Bur", "France writes: A Par-Bur", "Date: 1901",
    "_" * 40,
])
def test_a_players_own_lines_do_not_end_the_reading(line: str) -> None:
    """Only what mail programs write above an original ends the reading: a line of the
    player's with a colon, a dashed heading, one header-like line alone are read."""
    lines = ["A Par-Bur", line, "A Mar-Spa"]
    assert read_body("\n".join(lines)) == (lines, 0, "")


def test_what_ends_the_reading_is_named_and_counted() -> None:
    text = "A Par-Bur\nVon: Judge\nGesendet: Montag\n\nGermany: Army Ruhr.\n> x\n"
    assert read_body(text) == (["A Par-Bur"], 4, "Von: Judge")
    # a phone's signature ends it as "-- " does: nothing after it is counted or read
    assert read_body("A Par-Bur\nSent from my iPhone\n\nOn Mon, X wrote:\n> x") == \
        (["A Par-Bur"], 0, "")


def test_a_line_longer_than_mail_programs_write_is_not_taken_for_their_header() -> None:
    """No pattern goes over a huge line: beyond the length of the lines mail programs write
    above an original, a line is the writer's."""
    huge = "On Mon, " + "x" * 500 + " wrote:"
    assert read_body(f"A Par-Bur\n{huge}\nA Mar-Spa") == (["A Par-Bur", huge, "A Mar-Spa"], 0, "")
    dashes = "-----Original Message" + "-" * 500
    assert body_lines(f"A Par-Bur\n{dashes}\nA Mar-Spa") == ["A Par-Bur", dashes, "A Mar-Spa"]
@pytest.mark.parametrize(
    "reply",
    [
        "SIGNON Og pw\n\nOn Mon, the judge wrote:\n> answer with this line:\n>\n>   CONFIRM K7QM2-XPDA9\n",
        "SIGNON Og pw\n-----Original Message-----\nanswer with this line:\n  CONFIRM K7QM2-XPDA9\n",
        "SIGNON Og pw\n-- \nPat\n> > CONFIRM K7QM2-XPDA9\n",
        "CONFIRM k7qm2-xpda9\nSIGNON Og pw\n\n> CONFIRM K7QM2-XPDA9\n",
    ],
)
def test_a_confirm_line_is_read_wherever_the_answer_has_it(reply: str) -> None:
    """The code the judge mailed comes back however the mail program answers: quoted, below a
    signature, in an unquoted original; once, whatever the case of its letters."""
    lines = [line for line in body_lines(reply) if line.strip()]
    assert sorted(line.upper() for line in lines) == ["CONFIRM K7QM2-XPDA9", "SIGNON OG PW"]


def test_a_confirm_line_after_signoff_is_not_read() -> None:
    assert body_lines("LIST\nSIGNOFF\n> CONFIRM K7QM2-XPDA9") == ["LIST", "SIGNOFF"]
    assert body_lines("> CONFIRM K7QM2 please") == []  # not a line the judge asked for


def test_underscore_rule_alone_does_not_stop() -> None:
    lines = ["A Par-Bur", "__________", "A Mar-Spa"]
    assert body_lines("\n".join(lines)) == lines


def test_filter_applies_to_mail() -> None:
    mail = read(plain("A Par-Bur\n\n> F Bre H\n-- \nPat\n"))
    assert mail.lines == ("A Par-Bur",)


# ----------------------------------------------------------------------- robots


def test_normal_mail_is_not_a_robot() -> None:
    assert read(plain(Auto_Submitted="no", Precedence="first-class")).robot_reason is None


@pytest.mark.parametrize("envelope", ["", "<>", " <> "])
def test_null_envelope_sender(envelope: str) -> None:
    assert read(plain(), envelope=envelope).robot_reason == "null sender"


def test_unknown_envelope_is_not_a_robot() -> None:
    assert read(plain(), envelope=None).robot_reason is None


def test_no_from() -> None:
    assert read(b"Subject: hi\n\nLIST\n").robot_reason == "no usable From address"


@pytest.mark.parametrize("value", ["auto-replied", "auto-generated", "auto-notified; owner=x"])
def test_auto_submitted(value: str) -> None:
    assert read(plain(Auto_Submitted=value)).robot_reason == f"Auto-Submitted: {value}"


@pytest.mark.parametrize("value", ["bulk", "junk", "List"])
def test_precedence(value: str) -> None:
    assert read(plain(Precedence=value)).robot_reason == f"Precedence: {value.lower()}"


@pytest.mark.parametrize("name", ["List-Id", "List-Unsubscribe", "List-Post", "List-Archive"])
def test_list_headers(name: str) -> None:
    reason = read(plain(**{name.replace("-", "_"): "<x>"})).robot_reason
    assert reason is not None and name in reason


@pytest.mark.parametrize("name", ["X-Autoreply", "X-Autorespond"])
def test_autoreply_headers(name: str) -> None:
    assert read(plain(**{name.replace("-", "_"): "yes"})).robot_reason is not None


@pytest.mark.parametrize(
    "subject", ["Auto-Reply: orders", "Automatic reply: orders", "Out of Office"]
)
def test_autoreply_subjects(subject: str) -> None:
    assert read(plain(Subject=subject)).robot_reason == "auto-reply subject"


@pytest.mark.parametrize(
    "address",
    ["MAILER-DAEMON@example.org", "postmaster@example.org", "NoReply@x.org", "no-reply@x.org"],
)
def test_robot_local_parts(address: str) -> None:
    assert read(plain(From=address)).robot_reason is not None
    assert read(plain(), envelope=address).robot_reason is not None


def test_delivery_report() -> None:
    msg = EmailMessage()
    msg["From"] = "Mail System <mail@example.org>"
    msg.set_content("Your mail could not be delivered.\n")
    msg.make_mixed()
    msg.set_type("multipart/report")
    msg.set_param("report-type", "delivery-status")
    raw = msg.as_bytes()
    assert b"multipart/report" in raw
    assert read(raw).robot_reason == "delivery report (multipart/report)"


@pytest.mark.parametrize("address", ["judge@example.net", "JUDGE+war1901@Example.NET"])
def test_judge_own_address(address: str) -> None:
    assert read(plain(From=address)).robot_reason == "mail from the judge's own address"
    assert read(plain(), envelope=address).robot_reason == "mail from the judge's own address"


def test_judge_address_with_display_name_in_config() -> None:
    mail = read_message(
        plain(From="judge+x@example.net").as_bytes(),
        envelope_sender=None,
        judge_address="JUDGE <Judge@Example.net>",
    )
    assert mail.robot_reason == "mail from the judge's own address"


def test_other_address_at_judge_domain_is_not_robot() -> None:
    assert read(plain(From="judgement@example.net")).robot_reason is None


# ----------------------------------------------------------------------- never raises


def test_falls_back_to_compat32_when_the_default_policy_fails(monkeypatch) -> None:
    import judge.mail.reading.message as reading

    real = reading.body_text
    calls: list[int] = []

    def flaky(msg, problems, *limits):  # fails on the first (policy.default) attempt only
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("boom")
        return real(msg, problems, *limits)

    monkeypatch.setattr(reading, "body_text", flaky)
    mail = read(plain(Subject="=?utf-8?q?Z=C3=BCrich?=", Reply_To="r@example.org"))
    assert mail.lines == ("SIGNON Fwar1901 secret", "A Par-Bur")
    assert mail.subject == "Zürich"
    assert mail.sender == "r@example.org"
    assert mail.from_header == PLAYER
    assert any("ValueError" in p for p in mail.problems)


def test_a_mail_no_parser_reads_is_never_read_as_commands(monkeypatch) -> None:
    """Reading its raw text as lines once made its headers and MIME boundaries commands, past
    the robot checks: now it is unreadable, and its headers alone are read for the checks."""
    import judge.mail.reading.message as reading

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(reading, "_read", broken)
    mail = read_message(b"From: a@example.org\n\nLIST\n", envelope_sender="", judge_address=JUDGE)
    assert mail.robot_reason == "null sender"
    assert mail.lines == ()
    assert mail.unreadable is not None and mail.unreadable.code == "not_parsed"
    assert mail.unreadable.facts == {"error": "RuntimeError"}
    mail = read_message(b"From: a@example.org\n\nLIST\n", envelope_sender="a@example.org",
                        judge_address=JUDGE)
    assert (mail.lines, mail.robot_reason, mail.robot_checked, mail.sender) == \
        ((), None, True, "a@example.org")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    mail = read_message(raw, envelope_sender=None, judge_address=JUDGE)
    assert isinstance(mail, ReadMail)
    for text in (mail.sender, mail.from_header, mail.subject, *mail.lines, *mail.problems,
                 *mail.references, mail.message_id or ""):
        text.encode("utf-8")  # no lone surrogates leak out


_HEADERISH = st.lists(
    st.sampled_from(
        [
            b"From: a@example.org\n",
            b"From: =?x?q?\xff?= <@@>\n",
            b"Content-Type: multipart/mixed; boundary=b\n",
            b"Content-Type: multipart/alternative; boundary=\"\n",
            b"Content-Type: text/html; charset=x-unknown-123\n",
            b"Content-Type: message/rfc822\n",
            b"Content-Transfer-Encoding: base64\n",
            b"Content-Transfer-Encoding: quoted-printable\n",
            b"Subject: =?utf-8?b?////?=\n",
            b"Message-ID: <\n",
            b"\n",
            b"--b\n",
            b"--b--\n",
            b"<p>A Par<br>\n",
            b"=E9=\n",
            b"Zm9v\n",
        ]
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(_HEADERISH, st.binary(max_size=50))
def test_never_raises_on_mime_like_input(chunks: list[bytes], tail: bytes) -> None:
    mail = read_message(b"".join(chunks) + tail, envelope_sender="", judge_address=JUDGE)
    assert mail.robot_reason == "null sender"
    for text in (mail.sender, mail.from_header, mail.subject, *mail.lines, *mail.problems,
                 *mail.references, mail.message_id or ""):
        text.encode("utf-8")


def _work_of_reading(text: str) -> int:
    """How many string operations reading ``text``'s lines takes (counted, not timed)."""
    calls = 0

    def count(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal calls
        if event == "c_call":
            calls += 1

    sys.setprofile(count)
    try:
        read_body(text)
    finally:
        sys.setprofile(None)
    return calls


def test_reading_a_mail_of_many_lines_takes_work_in_proportion_to_them() -> None:
    # Looking ahead from every line to the next non-blank one once made a full-size mail of
    # one-letter lines (125,000 of them) cost two minutes of the worker.
    small, large = (_work_of_reading(("x\n" * n) + ("On Monday, X wrote:\n\n" * n)) for n in
                    (1_000, 4_000))
    assert large < 4.5 * small, (small, large)


@pytest.mark.parametrize("text, lines, quoted, original", [
    ("On Mon, X wrote:\n\n\n> old\nA Par H\n", ["", "", "A Par H"], 1, ""),
    # an unquoted original: reading stops, and its lines are counted with the quoted ones
    ("On Mon, X wrote:\n\n\nA Par H\n", [], 2, "On Mon, X wrote:"),
    ("A Par H\nOn Mon, X\nwrote:\n   \n> old\n> older\n\nF Bre H", ["A Par H", "", "", "F Bre H"], 2,
     ""),
    ("On Mon, X wrote:", [], 1, "On Mon, X wrote:"),
    ("On Mon, X wrote:\n\n\n", [], 1, "On Mon, X wrote:"),
])
def test_an_attribution_is_skipped_only_when_a_quote_follows_it(
        text: str, lines: list[str], quoted: int, original: str) -> None:
    assert read_body(text) == (lines, quoted, original)


# --------------------------------------------------------------------------- addresses read directly

_WORD = st.text(st.sampled_from("abcXYZ09_'-.\"=?,:;()<>@\\ é"), min_size=0, max_size=8)
_LOCAL = st.text(st.sampled_from("abcXY09.+-_!#=?\"é "), min_size=0, max_size=10)
_DOMAIN = st.text(st.sampled_from("abcXY09.-_[]é"), min_size=0, max_size=12)


@st.composite
def _address_headers(draw: st.DrawFn) -> str:
    address = f"{draw(_LOCAL)}@{draw(_DOMAIN)}" if draw(st.booleans()) else draw(_LOCAL)
    name = " ".join(draw(st.lists(_WORD, max_size=3)))
    shape = draw(st.sampled_from(["bare", "bracketed", "named", "two", "spaced"]))
    if shape == "bare":
        return address
    if shape == "bracketed":
        return f"<{address}>"
    if shape == "named":
        return f"{name} <{address}>"
    if shape == "two":
        return f"{name} <{address}>, other@example.org"
    return f"  {name}  <{address}>  "


@settings(max_examples=500, deadline=None)
@given(value=st.one_of(_address_headers(),
                       st.sampled_from(["Player 0 <player0@bench.example.org>", "a@B.Example.COM",
                                        "O'Brien-Smith <o.b+x@ex-ample.org>", "<a@b>", "a@b",
                                        "a.@b.org", ".a@b.org", "a..b@c.org", "a@-b.org"])),
       name=st.sampled_from(["From", "Reply-To"]))
def test_an_address_read_directly_is_the_one_the_header_parser_reads(value: str,
                                                                    name: str) -> None:
    """first_address reads the common shapes of an address header without the email package's
    parser; whatever the header holds, it finds what the parser finds, and notes the same."""
    from email import message_from_bytes

    from judge.mail.reading.headers import first_address, parsed_first_address
    from judge.mail.reading.bounds import _READING

    raw = f"{name}: {value}\r\nTo: judge@example.org\r\n\r\nVERSION\r\n".encode("utf-8")
    msg = message_from_bytes(raw, policy=_READING)
    direct: list[str] = []
    parsed: list[str] = []
    assert first_address(msg, name, direct) == parsed_first_address(msg, name, parsed)
    assert direct == parsed


@pytest.mark.parametrize("value,expected", [
    ("Player 0 <player0@bench.example.org>", "player0@bench.example.org"),
    ("O'Brien-Smith <O.B+x@Ex-Ample.ORG>", "O.B+x@ex-ample.org"),
    ("a@B.Example.COM", "a@b.example.com"), ("<a@b>", "a@b")])
def test_the_common_address_shapes_are_read_without_the_header_parser(
        value: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The property test above compares the direct reading with the parser; these shapes take
    the direct one (so it does not merely compare the parser with itself)."""
    from judge.mail.reading import headers

    monkeypatch.setattr(headers, "parsed_first_address",
                        lambda *a: pytest.fail("read by the header parser"))
    assert read(f"From: {value}\r\nTo: judge@example.org\r\n\r\nVERSION\r\n".encode(),
                envelope=None).sender == expected


@settings(max_examples=500, deadline=None)
@given(value=st.one_of(_address_headers(),
                       st.sampled_from(["player0@bench.example.org", "<a@B.Example.COM>", "<>",
                                        "", "  a@b  ", "a.@b.org", "Name <a@b.org>"])))
def test_an_envelope_address_read_directly_is_the_one_parseaddr_reads(value: str) -> None:
    """envelope_address reads the common shapes without email.utils.parseaddr; whatever the
    envelope holds, the result is the one parseaddr gives."""
    import email.utils

    from judge.mail.reading.headers import envelope_address, normalise_addr_spec

    stripped = value.strip()
    by_parseaddr = "" if stripped in ("", "<>") else (
        normalise_addr_spec(email.utils.parseaddr(stripped)[1]) or stripped)
    assert envelope_address(value) == by_parseaddr


@pytest.mark.parametrize("value,expected", [("Player0@Bench.Example.ORG", "Player0@bench.example.org"),
                                            ("<o.b+x@ex-ample.org>", "o.b+x@ex-ample.org")])
def test_a_plain_envelope_address_is_read_without_parseaddr(
        value: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The property test above compares the two readings; these shapes take the direct one."""
    from judge.mail.reading import headers

    monkeypatch.setattr(headers.email.utils, "parseaddr",
                        lambda *a: pytest.fail("read by parseaddr"))
    assert headers.envelope_address(value) == expected


def test_raw_bytes_in_a_header_become_characters_and_other_text_stays() -> None:
    from judge.mail.reading.headers import fix_surrogates

    assert fix_surrogates("caf\udcc3\udca9") == "café"  # utf-8 bytes
    assert fix_surrogates("caf\udce9") == "caf\xe9"  # latin-1 when not utf-8
    for text in ("plain", "café €", "", "\ud7ff\ue000"):
        assert fix_surrogates(text) is text


_SUBJECT_PIECE = st.one_of(
    st.text(st.sampled_from("abcXYZ09_'-.\"=?,:;()<>@\\[]~!é \t"), max_size=8),
    st.sampled_from(["=?utf-8?q?caf=C3=A9?=", "=?iso-8859-1?b?6Q==?=", "=?", "?=", "=?x?q?",
                     "\r\n ", "\r\n\t", "  ", "Re: ", "=?utf-8?q?broken", "\u20ac"]))


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(_SUBJECT_PIECE, max_size=6),
       name=st.sampled_from(["Subject", "Auto-Submitted", "Precedence"]))
def test_a_header_decoded_directly_is_the_text_the_header_classes_give(pieces: list[str],
                                                                      name: str) -> None:
    """decoded_header reads plain ASCII text without the email package's header classes;
    whatever the header holds, it gives what they give."""
    from email import message_from_bytes

    from judge.mail.reading.headers import decoded_header, parsed_decoded_header, raw_header
    from judge.mail.reading.bounds import _READING

    value = "".join(pieces).strip("\r\n")
    raw = f"{name}: {value}\r\nTo: judge@example.org\r\n\r\nVERSION\r\n".encode("utf-8")
    msg = message_from_bytes(raw, policy=_READING)
    found = raw_header(msg, name)
    expected = None if found is None else parsed_decoded_header(found, name)
    assert decoded_header(msg, name) == expected


@pytest.mark.parametrize("subject,expected", [
    ("Orders for S1901M", "Orders for S1901M"), ("Re:  folded\r\n  subject", "Re: folded subject"),
    ("", ""), ("a (b) <c> \"d\" e@f", "a (b) <c> \"d\" e@f")])
def test_a_plain_subject_is_read_without_the_header_classes(
        subject: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The property test above compares the direct reading with the header classes; these
    subjects take the direct one (so it does not merely compare the classes with themselves)."""
    from judge.mail.reading import headers

    monkeypatch.setattr(headers, "parsed_decoded_header",
                        lambda *a: pytest.fail("read by the header classes"))
    mail = read(f"From: a@example.org\r\nSubject: {subject}\r\nTo: judge@example.org\r\n\r\n"
                "VERSION\r\n".encode(), envelope=None)
    assert mail.subject == expected


# --------------------------------------------------------------------------- bounds

def _nested(depth: int, *headers: str) -> bytes:
    """A mail of ``depth`` multiparts, each the first part of the last, and a text part."""
    body = "".join(f"--b{n}\nContent-Type: multipart/mixed; boundary=b{n + 1}\n\n"
                   for n in range(1, depth))
    return ("From: a@example.org\n" + "".join(f"{h}\n" for h in headers) +
            "Content-Type: multipart/mixed; boundary=b1\n\n" + body +
            f"--b{depth}\nContent-Type: text/plain\n\nA Par H\n").encode()


def _limits(**bounds: int) -> LimitsSection:
    return replace(LimitsSection(), **bounds)


def test_parts_nested_as_deep_as_the_bound_are_read_and_deeper_ones_are_not() -> None:
    # the text part of _nested(n) is n levels below the mail's own headers
    assert read_message(_nested(5), envelope_sender=PLAYER, judge_address=JUDGE,
                        limits=_limits(mime_depth=5)).lines == ("A Par H",)
    mail = read_message(_nested(6), envelope_sender=PLAYER, judge_address=JUDGE,
                        limits=_limits(mime_depth=5))
    assert mail.lines == () and mail.robot_checked and mail.sender == "a@example.org"
    assert mail.unreadable is not None
    assert (mail.unreadable.code, mail.unreadable.facts) == ("parts_too_deep", {"limit": 5})


def test_a_thousand_levels_of_mime_are_unreadable_not_read_as_text() -> None:
    mail = read(_nested(1000))
    assert mail.lines == () and mail.robot_reason is None and mail.robot_checked
    assert mail.unreadable is not None and mail.unreadable.code == "parts_too_deep"


def test_the_robot_checks_are_made_on_the_headers_of_a_mail_not_read() -> None:
    mail = read(_nested(1000, "Precedence: bulk"))
    assert mail.lines == () and mail.robot_reason == "Precedence: bulk"


def test_more_parts_than_the_bound_are_unreadable() -> None:
    def mail_of(parts: int) -> bytes:
        return (b"From: a@example.org\nContent-Type: multipart/mixed; boundary=b\n\n" +
                b"--b\nContent-Type: text/plain\n\nA Par H\n" * parts + b"--b--\n")

    # the mail itself is a part too
    assert read_message(mail_of(9), envelope_sender=PLAYER, judge_address=JUDGE,
                        limits=_limits(mime_parts=10)).lines == ("A Par H",)
    mail = read_message(mail_of(10), envelope_sender=PLAYER, judge_address=JUDGE,
                        limits=_limits(mime_parts=10))
    assert mail.lines == () and mail.unreadable is not None
    assert (mail.unreadable.code, mail.unreadable.facts) == ("too_many_parts", {"limit": 10})


def test_parsed_headers_beyond_the_bound_in_a_part_are_unreadable() -> None:
    raw = (b"From: a@example.org\nSubject: orders\nContent-Type: multipart/mixed; boundary=b\n\n"
           b"--b\nContent-Type: text/plain" + b"; a=b" * 2000 + b"\n\nA Par H\n--b--\n")
    mail = read(raw)
    assert mail.lines == () and mail.robot_checked and mail.sender == "a@example.org"
    assert mail.subject == "orders"
    assert mail.unreadable is not None
    assert (mail.unreadable.code, mail.unreadable.facts) == \
        ("headers_too_long", {"header": "Content-Type", "limit": 10_000})


def test_a_mail_whose_own_headers_pass_the_bound_cannot_be_told_from_a_robots() -> None:
    addresses = ", ".join(f"a{n}@example.org" for n in range(1000))
    mail = read(f"From: {addresses}\nSubject: x\n\nA Par H\n".encode())
    assert mail.lines == () and not mail.robot_checked and mail.robot_reason is None
    assert mail.sender == PLAYER  # the envelope's: nothing of the headers is trusted
    assert mail.unreadable is not None
    assert (mail.unreadable.code, mail.unreadable.facts) == \
        ("headers_too_long", {"header": "From", "limit": 10_000})


def test_headers_only_scanned_do_not_count_against_the_bound() -> None:
    long = "x" * 900
    raw = ("From: a@example.org\n" + "".join(f"X-Spam-Report-{n}: {long}\n" for n in range(50))
           + "References: " + " ".join(f"<r{n}@example.org>" for n in range(2000)) +
           "\n\nA Par H\n").encode()
    mail = read(raw)
    assert mail.lines == ("A Par H",) and mail.unreadable is None
    assert len(mail.references) == 2000


def test_an_html_body_beyond_its_bounds_is_unreadable() -> None:
    msg = EmailMessage()
    msg["From"] = PLAYER
    msg.set_content("<i>" * 11 + "A Par H", subtype="html")
    assert read_message(msg.as_bytes(), envelope_sender=PLAYER, judge_address=JUDGE,
                        limits=_limits(html_depth=11)).lines == ("A Par H",)
    mail = read_message(msg.as_bytes(), envelope_sender=PLAYER, judge_address=JUDGE,
                        limits=_limits(html_depth=10))
    assert mail.lines == () and mail.unreadable is not None
    assert mail.unreadable.code == "html_too_deep"


def test_a_reply_to_that_breaks_the_address_parsers_is_passed_over() -> None:
    """Comments nested deeper than Python recurses made both parsers fail, and the whole mail
    was then read as raw text; now the Reply-To is only unusable."""
    raw = ("From: a@example.org\nReply-To: b@example.org " + "(" * 3000 + ")" * 3000 +
           "\n\nA Par H\n").encode()
    mail = read(raw)
    assert mail.lines == ("A Par H",) and mail.sender == "a@example.org"
    assert any(p.startswith("no usable address in Reply-To") and len(p) < 300
               for p in mail.problems)


@pytest.mark.parametrize("charset", ["punycode", "idna", "unicode_escape"])
def test_codecs_of_no_mail_charset_are_read_as_unknown_ones(charset: str) -> None:
    raw = (f"From: a@example.org\nContent-Type: text/plain; charset={charset}\n\n"
           "A Par-Bur\n").encode()
    mail = read(raw)
    assert mail.lines == ("A Par-Bur",)
    assert any(f"unknown charset '{charset}'" in p for p in mail.problems)
