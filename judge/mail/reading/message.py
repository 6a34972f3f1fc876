"""Reading received mail: raw RFC 5322 bytes in, what the command layer needs out.

One entry point: :func:`read_message` turns whatever the MTA handed us into a
:class:`ReadMail` — who to answer, the subject, the threading ids, the body lines the command
language reads, and whether the mail came from a robot that must get no answer.  The parts of
the work are modules of their own beside this one in judge.mail.reading: the headers
(``headers``), robots (``robots``), the text part (``body_text``, ``html_text``) and the lines
read from it (``body_lines``).
It never raises: mail is written by every kind of program, broken ones included, and a mail
we cannot read still deserves an answer saying so (or, for robots, deliberate silence).  A
mail beyond the bounds of ``[limits]`` (judge.mail.reading.bounds), or that no parser can read, is
never read as commands: its ``unreadable`` says why, and its headers alone are read again
for the robot checks and the address to answer (``robot_checked`` is False when even they
could not be read).

Body text conventions the command layer can rely on:

* the first ``text/plain`` part that is not an attachment is read; without one the first
  ``text/html`` part is converted to text; attached/forwarded messages are never read;
* line endings are ``\\n``; trailing whitespace is stripped from every line; tabs are kept
  as they are (the command parser splits on any whitespace); non-breaking spaces become
  plain spaces;
* :func:`read_body` then skips quoted lines (and the ``On … wrote:`` line above them, reading
  on below the quote) and stops at a signature, ``SIGNOFF`` or an unquoted original, whose
  lines it counts with the quoted ones and whose first line it keeps for the reply. Blank
  lines inside the text are kept, trailing ones are dropped.
"""

from __future__ import annotations

import email
from dataclasses import dataclass, replace
from email.message import Message
from email.parser import BytesParser

from judge.basics.config import LimitsSection
from judge.mail.reading.body_lines import body_lines, read_body
from judge.mail.reading.body_text import body_text, defect_names
from judge.mail.reading.bounds import Unreadable, reading_policies
from judge.mail.clean import clean, clean_line
from judge.mail.reading.headers import (envelope_address, first_address, header_message_id,
                                        header_references, header_subject)
from judge.mail.reading.robots import robot_reason

__all__ = ["ReadMail", "read_message", "body_lines", "read_body"]


@dataclass(frozen=True)
class ReadMail:
    """What the command layer needs from one received mail."""

    message_id: str | None  # as in the header, whitespace removed; None if absent
    sender: str  # best reply address: Reply-To, else From, else envelope sender ('' if none)
    from_header: str  # the From addr-spec ('' if absent or unusable)
    subject: str  # RFC 2047-decoded, '' if none
    lines: tuple[str, ...]  # the body lines the judge reads (see body_lines)
    references: tuple[str, ...]  # References then In-Reply-To message ids, deduplicated
    robot_reason: str | None  # why this mail must get no answer, else None
    problems: tuple[str, ...]  # human notes on what was odd about the mail
    quoted: int = 0  # quoted lines ("> …", an unquoted original's) skipped (see read_body)
    original: str = ""  # the line an unquoted original began at, shortened ('' if none)
    # Why none of the mail was read (judge.mail.reading.bounds), else None; then ``lines`` is empty.
    unreadable: Unreadable | None = None
    # False when not even the headers could be read: the mail cannot be told from a robot's.
    robot_checked: bool = True


# --------------------------------------------------------------------------- entry point


_DEFAULT_LIMITS = LimitsSection()


def read_message(raw: bytes, *, envelope_sender: str | None, judge_address: str,
                 limits: LimitsSection | None = None) -> ReadMail:
    """Read one raw message. ``envelope_sender`` is the SMTP MAIL FROM (None if unknown,
    e.g. for ``judge inject``); ``judge_address`` is the judge's own address; ``limits`` bound
    how much of it is read (``[limits]`` of the configuration, the defaults without)."""
    limits = limits or _DEFAULT_LIMITS
    if not isinstance(raw, (bytes, bytearray)):
        raw = str(raw).encode("utf-8", "surrogateescape")
    raw = bytes(raw)
    try:
        return _cleaned(_read_whole(raw, envelope_sender, judge_address, limits))
    except Unreadable as why:
        return _cleaned(_read_headers(raw, why, envelope_sender, judge_address, limits))


def _read_whole(raw: bytes, envelope_sender: str | None, judge_address: str,
                limits: LimitsSection) -> ReadMail:
    """The whole mail read, or :class:`Unreadable` when it passes a bound or no parser can
    read it."""
    problems: list[str] = []
    failed = ""
    # policy.default is the modern API, but its lazy header parsers can raise on some
    # malformed input; compat32 is the forgiving old parser.
    for policy in reading_policies(limits):
        try:
            msg = email.message_from_bytes(raw, policy=policy)
            # a fresh list per attempt: notes from a failed attempt would only confuse
            return _read(msg, envelope_sender, judge_address, list(problems), limits)
        except Unreadable:
            raise
        except Exception as exc:  # noqa: BLE001 - never raise on input
            failed = type(exc).__name__
            problems.append(f"mail parser failed ({failed}); read more leniently")
    raise Unreadable("not_parsed", error=failed)


def _read_headers(raw: bytes, why: Unreadable, envelope_sender: str | None,
                  judge_address: str, limits: LimitsSection) -> ReadMail:
    """A mail that was not read: its headers alone, for the robot checks and the address to
    answer (the body is never looked at)."""
    env = envelope_address(envelope_sender)
    for policy in reading_policies(limits):
        try:
            msg = BytesParser(policy=policy).parsebytes(raw, headersonly=True)
            problems: list[str] = []
            from_addr = first_address(msg, "From", problems)
            reply_to = first_address(msg, "Reply-To", problems)
            return ReadMail(
                message_id=header_message_id(msg),
                sender=reply_to or from_addr or env or "",
                from_header=from_addr or "",
                subject=header_subject(msg),
                lines=(),
                references=header_references(msg),
                robot_reason=robot_reason(msg, env, from_addr, reply_to, judge_address),
                problems=(),
                unreadable=why,
            )
        except Unreadable as beyond:  # the headers themselves pass a bound: say which
            why = beyond
            break
        except Exception:  # noqa: BLE001 - never raise on input
            continue
    return ReadMail(message_id=None, sender=env or "", from_header="", subject="", lines=(),
                    references=(), robot_reason=None, problems=(), unreadable=why,
                    robot_checked=False)


def _cleaned(mail: ReadMail) -> ReadMail:
    """Control characters out of everything read (judge.mail.clean): what the judge stores
    or quotes back never carries a NUL, an ESC or a stray CR from a hostile mail."""
    def line(value: str | None) -> str | None:
        return None if value is None else clean_line(value)

    return replace(
        mail,
        message_id=line(mail.message_id),
        sender=clean_line(mail.sender),
        from_header=clean_line(mail.from_header),
        subject=clean_line(mail.subject),
        lines=tuple(clean(text) for text in mail.lines),
        references=tuple(clean_line(ref) for ref in mail.references),
        robot_reason=line(mail.robot_reason),
        problems=tuple(clean_line(note) for note in mail.problems),
        original=clean_line(mail.original),
    )


def _read(msg: Message, envelope_sender: str | None, judge_address: str, problems: list[str],
          limits: LimitsSection) -> ReadMail:
    from_addr = first_address(msg, "From", problems)
    reply_to = first_address(msg, "Reply-To", problems)
    env = envelope_address(envelope_sender)
    sender = reply_to or from_addr or env or ""
    text = body_text(msg, problems, limits)
    defects = defect_names(msg)
    if defects:
        problems.append("broken MIME structure (" + ", ".join(defects) + ")")
    lines, quoted, original = read_body(text)
    return ReadMail(
        message_id=header_message_id(msg),
        sender=sender,
        from_header=from_addr or "",
        subject=header_subject(msg),
        lines=tuple(lines),
        references=header_references(msg),
        robot_reason=robot_reason(msg, env, from_addr, reply_to, judge_address),
        problems=tuple(dict.fromkeys(problems)),  # dedupe, keep order
        quoted=quoted,
        original=original,
    )
