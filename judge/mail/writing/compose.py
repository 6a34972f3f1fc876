"""Compose every mail the judge writes: Jinja2 templates in, RFC 5322 messages out.

Headers follow the classic Judge (docs/mail-format.md): Message-ID, Date, From, ``Re:`` subjects
(judge.mail.writing.subjects) with In-Reply-To and References for replies, and ``Auto-Submitted`` on
everything (``auto-replied`` for replies,
``auto-generated`` for broadcasts) so other robots leave the judge alone.

Every header value and body passes judge.mail.clean on its way out, whatever its source: the
last guard against a sender's control characters reaching another reader.  Only well-formed
Message-IDs of a length a header line can hold are threaded on.
"""

from __future__ import annotations

import email.policy
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import Address, BaseHeader, UnstructuredHeader
from email.message import EmailMessage
from email.policy import Policy
from email.utils import format_datetime, getaddresses, make_msgid
from functools import cache
from typing import Any, Iterable

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from judge import __version__
from judge.basics.config import Config
from judge.mail.writing import times
from judge.mail.clean import clean, clean_line
from judge.mail.reading.headers import RememberingHeaders
from judge.mail.writing.subjects import folded_subject, reply_subject
from judge.basics.resources import templates_dir


@cache
def make_environment() -> Environment:
    """The one Jinja environment for mail and web pages (built once: templates compile once
    per process; Jinja renders from one environment in many threads safely).  Mail is plain
    text; the web pages' ``.html`` templates escape every value (judge.web)."""
    # auto_reload off: the files are read once; Jinja would otherwise stat each template's
    # file at every render to see whether it changed (~2 % of a reply's cost).  An edited
    # template takes effect when the judge starts again.
    env = Environment(loader=FileSystemLoader(str(templates_dir())), undefined=StrictUndefined,
                      auto_reload=False,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                      autoescape=select_autoescape(enabled_extensions=("html",),
                                                   default_for_string=False, default=False))
    times.install(env)  # {{ moment | when }}: in the reader's zone
    env.filters["quoted_line"] = quoted_line
    return env


# The longest line a reply quotes back whole: a longer one is cut, so that a stranger's mail of
# one huge line is not mailed back (to whatever address it claims) at twice its size.
QUOTED_LINE = 300


def quoted_line(text: str) -> str:
    """A line of the mail as its reply quotes it: whole, or its beginning when very long."""
    if len(text) <= QUOTED_LINE:
        return text
    return f"{text[:QUOTED_LINE]}… ({len(text):,} characters, cut here)"


# A Message-ID the reply's header can carry: <left@right>, printable ASCII without spaces,
# short enough for one header line.
_THREADABLE = re.compile(r"<[!-;=?-~]{1,900}>")
# References kept in a reply (the newest): enough to thread, not enough to bloat every reply.
MAX_REFERENCES = 20


def threadable(message_id: str) -> bool:
    return _THREADABLE.fullmatch(message_id) is not None


class _MessageIdsHeader(UnstructuredHeader, BaseHeader):
    """In-Reply-To and References: folded between ids, never turned into encoded words.

    The email package folds an unstructured header whose word is longer than a line by
    encoding it (``=?utf-8?q?=3C…?=``), which no mail program reads as an id, and Message-IDs
    of 70 characters and more are common.  An id is never split: a long one gets a line of its
    own (at most 998 characters, as :func:`threadable` ensures).
    """

    def fold(self, *, policy: Policy) -> str:
        limit = policy.max_line_length or 998
        lines, line = [], f"{self.name}:"
        for ident in str(self).split():
            if len(line) + 1 + len(ident) > limit and line != f"{self.name}:":
                lines.append(line)
                line = ""
            line += " " + ident
        lines.append(line)
        return policy.linesep.join(lines) + policy.linesep


class _SubjectHeader(UnstructuredHeader, BaseHeader):
    """Subject: folded after a word, never right after a colon (judge.mail.writing.subjects)."""

    def fold(self, *, policy: Policy) -> str:
        lines = folded_subject(self.name, str(self), policy.max_line_length or 998,
                               encode=not getattr(policy, "utf8", False))
        return policy.linesep.join(lines) + policy.linesep


_HEADERS = RememberingHeaders()
_HEADERS.map_to_type("in-reply-to", _MessageIdsHeader)
_HEADERS.map_to_type("references", _MessageIdsHeader)
_HEADERS.map_to_type("subject", _SubjectHeader)
# The headers' classes come from the message's policy; outbox.enqueue serialises with SMTP's.
_POLICY = email.policy.default.clone(header_factory=_HEADERS)
_SMTP = email.policy.SMTP.clone(header_factory=_HEADERS)


@dataclass(frozen=True)
class Copies:
    """A broadcast serialised once, from which each recipient's copy is cut.

    The copies of one broadcast are the same bytes but for two header lines: ``To`` (each
    copy names its own recipient only) and ``Message-ID`` (each copy is a mail of its own: the
    sender uses the id as the copy's key).  ``head``, ``middle`` and ``tail`` are the bytes
    around those two lines, exactly as :meth:`EmailMessage.as_bytes` wrote them.
    """

    head: bytes
    middle: bytes
    tail: bytes
    mail_from: str
    subject: str
    domain: str

    def copy_for(self, recipient: str) -> tuple[bytes, str]:
        """(raw bytes, Message-ID) of the copy for ``recipient``."""
        message_id = make_msgid(domain=self.domain)
        return (self.head + _header_line("To", clean_line(recipient)) + self.middle
                + _header_line("Message-ID", message_id) + self.tail), message_id


# A plain ASCII addr-spec or Message-ID: the email package writes it out unchanged.
_PLAIN = re.compile(r"<?[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
                    r"@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*>?")


# Headers whose text the email package writes as it was given when it is short printable
# ASCII of single-spaced words with no encoded word in it (tested against the package).
_UNSTRUCTURED = frozenset({"subject", "auto-submitted", "x-judge-version", "date"})
_WORDS = re.compile(r"[!-~]+(?: [!-~]+)*")


def _header_line(name: str, value: str) -> bytes:
    """The header line ``as_bytes`` writes for ``value``: written directly when it is a plain
    address or id, or plain text, on a short line (the common case; parsing a header costs a
    millisecond), else by the email package itself."""
    if len(name) + 2 + len(value) <= 78 and value:
        if _PLAIN.fullmatch(value) and (value[0] == "<") == (value[-1] == ">"):
            return f"{name}: {value}\r\n".encode("ascii")
        if name.lower() in _UNSTRUCTURED and "=?" not in value and _WORDS.fullmatch(value):
            return f"{name}: {value}\r\n".encode("ascii")
    return _SMTP.fold_binary(name, _POLICY.header_factory(name, value))


@dataclass(frozen=True)
class Composed:
    """A mail ready for the outbox: its bytes as sent, and what the outbox row records."""

    raw: bytes
    message_id: str
    mail_from: str
    recipients: list[str]
    subject: str


def composed(msg: EmailMessage) -> Composed:
    """A mail the email package composed, ready for the outbox."""
    recipients = [addr for _, addr in getaddresses(msg.get_all("To", []) + msg.get_all("Cc", []))
                  if addr]
    return Composed(raw=msg.as_bytes(policy=email.policy.SMTP),
                    message_id=str(msg["Message-ID"]),
                    mail_from=str(msg["From"].addresses[0].addr_spec), recipients=recipients,
                    subject=str(msg["Subject"] or ""))


# A body line longer than this is not sent as 7bit (RFC 5322's limit).
LONGEST_7BIT_LINE = 998

# The fixed lines of a reply, as the email package writes them.
_REPLIED = b"Auto-Submitted: auto-replied\r\n"
_VERSION = _header_line("X-Judge-Version", __version__)
_TEXT_7BIT = (b'Content-Type: text/plain; charset="utf-8"\r\n'
              b"Content-Transfer-Encoding: 7bit\r\nMIME-Version: 1.0\r\n")


class Composer:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.env = make_environment()
        # As text, so that its parse is remembered (judge.mail.reading.headers); the same header.
        sender = Address(config.judge.name, addr_spec=config.judge.address)
        self._from = str(sender)
        self._from_address = sender.addr_spec
        self._from_line = _header_line("From", self._from)

    def render(self, template: str, **variables: Any) -> str:
        return self.env.get_template(template).render(**variables)

    def _base(self, to: Iterable[str], subject: str, body: str, now: datetime,
              auto: str) -> EmailMessage:
        msg = EmailMessage(policy=_POLICY)
        msg["From"] = self._from
        msg["To"] = ", ".join(dict.fromkeys(clean_line(address) for address in to))
        msg["Subject"] = clean_line(subject)
        msg["Date"] = format_datetime(now)
        msg["Message-ID"] = make_msgid(domain=self.config.judge_domain)
        msg["Auto-Submitted"] = auto
        msg["X-Judge-Version"] = __version__
        body = clean(body)
        # Quoted-printable keeps ASCII lines readable in raw form and non-ASCII safe anywhere;
        # it also wraps a line too long for 7bit (998 characters).
        plain = body.isascii() and all(len(line) <= LONGEST_7BIT_LINE
                                       for line in body.split("\n"))
        msg.set_content(body, charset="utf-8", cte="7bit" if plain else "quoted-printable")
        return msg

    def reply(self, *, to: Iterable[str], original_subject: str, original_id: str | None,
              references: Iterable[str], body: str, now: datetime, game: str | None = None,
              phase: str | None = None, error: bool = False) -> EmailMessage:
        """A reply; its subject names ``game`` and ``phase`` when the mail signed on to one,
        with the error flag when a line was refused (judge.mail.writing.subjects)."""
        subject = reply_subject(self.config.judge.name, original_subject, game, phase, error)
        msg = self._base(to, subject, body, now, "auto-replied")
        if original_id and threadable(original_id):
            msg["In-Reply-To"] = original_id
            refs = [r for r in references if threadable(r) and r != original_id] + [original_id]
            msg["References"] = " ".join(dict.fromkeys(refs[-MAX_REFERENCES:]))
        return msg

    def reply_mail(self, *, to: str, original_subject: str, original_id: str | None,
                   references: Iterable[str], body: str, now: datetime, game: str | None = None,
                   phase: str | None = None, error: bool = False) -> Composed:
        """:meth:`reply` to one recipient, ready for the outbox: the same bytes, written
        directly when every header is plain ASCII on a line of its own and the body is plain
        ASCII (the common case: the email package spent a millisecond on every reply), else
        composed by :meth:`reply`."""
        subject = clean_line(reply_subject(self.config.judge.name, original_subject, game, phase,
                                           error))
        recipient = clean_line(to)
        text = clean(body)
        lines = text.encode("ascii", "surrogateescape").splitlines() if text.isascii() else None
        # (Other headers are written exactly by _header_line, whatever they hold; the recipient
        # must be one the outbox row records as it is, and the subject one the email package
        # keeps as it is: it would decode an encoded word in it.)
        if lines is not None and _PLAIN.fullmatch(recipient) and recipient[0] != "<" and \
                "=?" not in subject and \
                max((len(line) for line in lines), default=0) <= LONGEST_7BIT_LINE:
            message_id = make_msgid(domain=self.config.judge_domain)
            head = [self._from_line, _header_line("To", recipient),
                    _header_line("Subject", subject), _header_line("Date", format_datetime(now)),
                    _header_line("Message-ID", message_id), _REPLIED, _VERSION, _TEXT_7BIT]
            if original_id and threadable(original_id):
                refs = [r for r in references if threadable(r) and r != original_id]
                head += [_header_line("In-Reply-To", original_id),
                         _header_line("References", " ".join(dict.fromkeys(
                             (refs + [original_id])[-MAX_REFERENCES:])))]
            return Composed(b"".join(head) + b"\r\n" + b"\r\n".join(lines) + b"\r\n",
                            message_id, self._from_address, [recipient], subject)
        return composed(self.reply(to=[to], original_subject=original_subject,
                                   original_id=original_id, references=references, body=body,
                                   now=now, game=game, phase=phase, error=error))

    def broadcast(self, *, to: Iterable[str], subject: str, body: str,
                  now: datetime) -> EmailMessage:
        return self._base(to, subject, body, now, "auto-generated")

    def broadcast_copies(self, *, subject: str, body: str, now: datetime) -> Copies:
        """A broadcast built once, to be copied per recipient (:meth:`Copies.copy_for`):
        what :meth:`broadcast` to one recipient gives, without building the message again."""
        marker = secrets.token_hex(12)  # unique, so the two lines are found and nothing else
        msg = self.broadcast(to=[f"to-{marker}@copy.invalid"], subject=subject, body=body,
                             now=now)
        msg.replace_header("Message-ID", f"<id-{marker}@copy.invalid>")
        raw = msg.as_bytes(policy=email.policy.SMTP)
        to_line = f"To: to-{marker}@copy.invalid\r\n".encode()
        id_line = f"Message-ID: <id-{marker}@copy.invalid>\r\n".encode()
        head, _, rest = raw.partition(to_line)
        middle, _, tail = rest.partition(id_line)
        if not rest or not tail:  # pragma: no cover - the lines are always there
            raise ValueError("broadcast headers not where expected")
        return Copies(head, middle, tail, self.config.judge.address, clean_line(subject),
                      self.config.judge_domain)
