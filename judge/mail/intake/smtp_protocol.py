"""The SMTP and LMTP protocols intake speaks: aiosmtpd's, with the envelope addresses of
MAIL and RCPT read without the email package's parser when they have the common shape.

aiosmtpd (1.4.6) reads every ``MAIL FROM:<…>`` and ``RCPT TO:<…>`` with the email package's
header parser, and defines a typing ``Protocol`` class on every call while doing so: together a
fifth of the daemon's CPU in a burst of mail.  An address of the common shape, ``<local@domain>``
with a dot-atom on each side, is read here with one regular expression; anything else (quoted
local parts, comments, domain literals, source routes, broken addresses) goes to aiosmtpd's own
reading.  Both give the same answer (tests/mail/test_smtp_protocol.py compares them over random
input), except where aiosmtpd's reading fails with an exception: that address is malformed here
(553), where aiosmtpd answered 500 and logged a traceback for every such line a stranger sent.
"""

from __future__ import annotations

import re

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

# RFC 5322 atext: what a dot-atom's atoms are made of
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATEXT}(?:\.{_ATEXT})*"
# <dot-atom@dot-atom>, then white space (what the parser takes after ">" with the address), and
# the rest; a "(" there would start a comment, which the parser reads: not this shape.
_PLAIN_PATH = re.compile(rf"<({_DOT_ATOM})@({_DOT_ATOM})>[ \t]*(?=[^ \t(]|\Z)")


class _PlainAddresses:
    """Reads the common address shape directly (see the module's docstring)."""

    local_part_limit: int

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        match = _PLAIN_PATH.match(arg)
        if match is None:
            try:
                return super()._getaddr(arg)  # type: ignore[misc]
            except Exception:
                # The email package's parser raises on some broken input ("MAIL FROM:<"), and
                # aiosmtpd then answers "500 Error: (IndexError) …" and logs a traceback: any
                # stranger could fill the log.  Malformed is the answer.
                return None, None
        local, domain = match.groups()
        if self.local_part_limit and len(local) > self.local_part_limit:
            return None, None
        return f"{local}@{domain}", arg[match.end():]


class JudgeSMTP(_PlainAddresses, SMTP):
    """aiosmtpd's SMTP protocol, reading plain envelope addresses directly."""


class JudgeLMTP(_PlainAddresses, LMTP):
    """aiosmtpd's LMTP protocol, reading plain envelope addresses directly."""
