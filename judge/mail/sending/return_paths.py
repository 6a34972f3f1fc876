"""The return path of the judge's mail: one per recipient (VERP), so a bounce says whose it is.

Each mail the judge sends to an address goes out with the envelope sender
``judge+bounce-<token>@judge.example.org`` (``[bounces] return_path``), the token the address's
own (judge.store.bounce_counts): a random word, unguessable, which only the mail to that
address carries.  Whatever comes back to that address is about that recipient, however the
bounce itself names it (a forwarding address, a rewritten one), and a stranger cannot make
the judge count bounces against an address whose mail they never saw.

The sender also learns here which recipients are marked failing: it sends them nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Iterable

from judge.basics.config import Config
from judge.store import bounce_counts
from judge.store.db import Store
from judge.store.models import OutboxMessage


def pattern_of(config: Config) -> str:
    """``[bounces] return_path``, or its default: the judge's address with +bounce-{token}."""
    if config.bounces.return_path:
        return config.bounces.return_path
    local, _, domain = config.judge.address.rpartition("@")
    return f"{local}+bounce-{{token}}@{domain}"


def uses_tokens(config: Config) -> bool:
    return "{token}" in pattern_of(config)


@cache
def _token_finder(pattern: str) -> re.Pattern[str]:
    before, _, after = pattern.lower().partition("{token}")
    length = bounce_counts.TOKEN_LENGTH
    return re.compile(rf"(?:^|[<\s,]){re.escape(before)}([a-z2-7]{{{length}}}){re.escape(after)}"
                      r"(?:$|[>\s,])")


def token_in(config: Config, addresses: Iterable[str]) -> str | None:
    """The token of the first of ``addresses`` (envelope recipients, Delivered-To, To …) that
    is one of the judge's return paths; None when none is."""
    if not uses_tokens(config):
        return None
    finder = _token_finder(pattern_of(config))
    for address in addresses:
        found = finder.search(address.lower())
        if found:
            return found.group(1)
    return None


@dataclass
class Envelopes:
    """The envelope senders of a batch of outgoing mail, and the recipients marked failing."""

    config: Config
    known: dict[str, bounce_counts.Known] = field(default_factory=dict)
    tokens: bool = False

    @classmethod
    def of(cls, store: Store, config: Config, rows: list[OutboxMessage],
           tokens: bool) -> "Envelopes":
        """Looked up for ``rows`` in a short reading transaction; the tokens that new
        recipients need are made in a write transaction of their own (when the return path
        carries them and ``tokens`` is true: a Maildir has no envelope)."""
        tokens = tokens and uses_tokens(config)
        addresses = {a for row in rows for a in recipients_of(row)}
        if not addresses:
            return cls(config)
        with store.reading() as session:  # no write lock taken: the worker goes on
            known = bounce_counts.known(session, addresses, with_tokens=False)
        missing = [address for address in addresses if address not in known]
        if tokens and missing:  # a recipient's first mail: its token is made once
            with store.transaction() as session:
                known.update(bounce_counts.known(session, missing, with_tokens=True))
        return cls(config, known, tokens)

    def mail_from(self, row: OutboxMessage) -> str:
        """The envelope sender of ``row``: its recipient's own return path (every mail the
        judge writes has one recipient: each gets a copy of its own), or the fixed return
        path ``[bounces] return_path`` sets."""
        pattern = pattern_of(self.config)
        if "{token}" not in pattern:
            return pattern
        recipients = recipients_of(row)
        found = self.known.get(recipients[0]) if self.tokens and len(recipients) == 1 else None
        return pattern.replace("{token}", found.token) if found else row.mail_from

    def failing(self, row: OutboxMessage) -> list[str]:
        """The recipients of ``row`` marked failing."""
        return [a for a in recipients_of(row) if (k := self.known.get(a)) and k.failing]


def recipients_of(row: OutboxMessage) -> list[str]:
    return [r for r in row.recipients.split(",") if r]
