"""Compose every mail the judge writes: Jinja2 templates in, RFC 5322 messages out.

Headers follow the classic Judge (docs/mail-format.md): Message-ID, Date, From, ``Re:`` subjects
(judge.mail.subjects) with In-Reply-To and References for replies, and ``Auto-Submitted`` on
everything (``auto-replied`` for replies,
``auto-generated`` for broadcasts) so other robots leave the judge alone.

Every header value and body passes judge.mail.clean on its way out, whatever its source: the
last guard against a sender's control characters reaching another reader.  Only well-formed
Message-IDs of a length a header line can hold are threaded on.
"""

from __future__ import annotations

import email.policy
import re
from datetime import datetime
from email.headerregistry import Address, BaseHeader, HeaderRegistry, UnstructuredHeader
from email.message import EmailMessage
from email.policy import Policy
from email.utils import format_datetime, make_msgid
from functools import cache
from typing import Any, Iterable

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from judge import __version__
from judge.config import Config
from judge.mail import times
from judge.mail.clean import clean, clean_line
from judge.mail.subjects import reply_subject
from judge.resources import templates_dir


@cache
def make_environment() -> Environment:
    """The one Jinja environment for mail (built once: templates compile once per process;
    Jinja renders from one environment in many threads safely)."""
    env = Environment(loader=FileSystemLoader(str(templates_dir())), undefined=StrictUndefined,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                      autoescape=False)
    times.install(env)  # {{ moment | when }}: in the reader's zone
    return env


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


_HEADERS = HeaderRegistry()
_HEADERS.map_to_type("in-reply-to", _MessageIdsHeader)
_HEADERS.map_to_type("references", _MessageIdsHeader)
# The headers' classes come from the message's policy; outbox.enqueue serialises with SMTP's.
_POLICY = email.policy.default.clone(header_factory=_HEADERS)


class Composer:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.env = make_environment()

    def render(self, template: str, **variables: Any) -> str:
        return self.env.get_template(template).render(**variables)

    def _base(self, to: Iterable[str], subject: str, body: str, now: datetime,
              auto: str) -> EmailMessage:
        msg = EmailMessage(policy=_POLICY)
        msg["From"] = Address(self.config.judge.name, addr_spec=self.config.judge.address)
        msg["To"] = ", ".join(dict.fromkeys(clean_line(address) for address in to))
        msg["Subject"] = clean_line(subject)
        msg["Date"] = format_datetime(now)
        msg["Message-ID"] = make_msgid(domain=self.config.judge_domain)
        msg["Auto-Submitted"] = auto
        msg["X-Judge-Version"] = __version__
        body = clean(body)
        # Quoted-printable keeps ASCII lines readable in raw form and non-ASCII safe anywhere;
        # it also wraps a line too long for 7bit (998 characters).
        plain = body.isascii() and all(len(line) <= 998 for line in body.split("\n"))
        msg.set_content(body, charset="utf-8", cte="7bit" if plain else "quoted-printable")
        return msg

    def reply(self, *, to: Iterable[str], original_subject: str, original_id: str | None,
              references: Iterable[str], body: str, now: datetime, game: str | None = None,
              phase: str | None = None, error: bool = False) -> EmailMessage:
        """A reply; its subject names ``game`` and ``phase`` when the mail signed on to one,
        with the error flag when a line was refused (judge.mail.subjects)."""
        subject = reply_subject(self.config.judge.name, original_subject, game, phase, error)
        msg = self._base(to, subject, body, now, "auto-replied")
        if original_id and threadable(original_id):
            msg["In-Reply-To"] = original_id
            refs = [r for r in references if threadable(r) and r != original_id] + [original_id]
            msg["References"] = " ".join(dict.fromkeys(refs[-MAX_REFERENCES:]))
        return msg

    def broadcast(self, *, to: Iterable[str], subject: str, body: str,
                  now: datetime) -> EmailMessage:
        return self._base(to, subject, body, now, "auto-generated")
