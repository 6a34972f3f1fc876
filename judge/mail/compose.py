"""Compose every mail the judge writes: Jinja2 templates in, RFC 5322 messages out.

Headers follow DESIGN §3.4: Message-ID, Date, From, ``Re:`` subjects with In-Reply-To and
References for replies, and ``Auto-Submitted`` on everything (``auto-replied`` for replies,
``auto-generated`` for broadcasts) so other robots leave the judge alone.
"""

from __future__ import annotations

from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any, Iterable

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from judge import __version__
from judge.config import Config
from judge.resources import templates_dir


def make_environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(templates_dir())), undefined=StrictUndefined,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                      autoescape=False)
    return env


class Composer:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.env = make_environment()

    def render(self, template: str, **variables: Any) -> str:
        return self.env.get_template(template).render(**variables)

    def _base(self, to: Iterable[str], subject: str, body: str, now: datetime,
              auto: str) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = Address(self.config.judge.name, addr_spec=self.config.judge.address)
        msg["To"] = ", ".join(dict.fromkeys(to))
        msg["Subject"] = subject
        msg["Date"] = format_datetime(now)
        msg["Message-ID"] = make_msgid(domain=self.config.judge_domain)
        msg["Auto-Submitted"] = auto
        msg["X-Judge-Version"] = __version__
        # Quoted-printable keeps ASCII lines readable in raw form and non-ASCII safe anywhere.
        msg.set_content(body, charset="utf-8",
                        cte="7bit" if body.isascii() else "quoted-printable")
        return msg

    def reply(self, *, to: Iterable[str], original_subject: str, original_id: str | None,
              references: Iterable[str], body: str, now: datetime) -> EmailMessage:
        subject = original_subject.strip() or "your mail"
        if not subject.lower().startswith("re:"):
            subject = f"Re: {subject}"
        msg = self._base(to, subject, body, now, "auto-replied")
        if original_id:
            msg["In-Reply-To"] = original_id
            refs = [r for r in references if r and r != original_id] + [original_id]
            msg["References"] = " ".join(dict.fromkeys(refs))
        return msg

    def broadcast(self, *, to: Iterable[str], subject: str, body: str,
                  now: datetime) -> EmailMessage:
        return self._base(to, subject, body, now, "auto-generated")
