"""Reading a bounce: which recipients failed, for good or for now, and what their server said.

Standard delivery status notifications (RFC 3464: Postfix, Sendmail, Exim's DSNs, Gmail,
Exchange and most others) are read with the standard library, one block per recipient: its
``Action``, ``Status`` and ``Diagnostic-Code``.  Anything else -- qmail's own format, Exim's
plain bounces with ``X-Failed-Recipients``, the many homemade formats of older servers -- goes
to ``flufl.bounce``, GNU Mailman's bounce detectors, kept up for two decades against the
bounces real servers send; it names the failed addresses, and the server's words are then
found in the text.

A failure is *hard* when it says the address will not take the judge's mail: a permanent
(5.x.x) failure, except a full mailbox (5.2.2, or "quota" in the server's words) and a mail too
large (5.3.4), which say nothing about the address.  A delay notice, a 4.x.x failure (even
one the sending server gave up on) and a full mailbox are soft: counted nowhere.  An
auto-reply ("out of office") is no bounce at all.
"""

from __future__ import annotations

import email
import re
from dataclasses import dataclass
from email import policy
from email.message import Message

from flufl.bounce import all_failures

from judge.mail.clean import clean_line

# What the judge keeps of the server's words (a line of a mail to the master).
DIAGNOSTIC_LENGTH = 300
# Statuses of a permanent failure that say nothing about the address: a full mailbox, a mail
# too large for the server.
_NOT_THE_ADDRESS = ("5.2.2", "5.3.4")
_FULL = re.compile(r"quota|mailbox (is )?full|over ?quota|insufficient (system )?storage|"
                   r"mailbox size limit|storage allocation", re.IGNORECASE)
_SMTP_REPLY = re.compile(r"\b[45]\d\d[ -](?:[245]\.\d{1,3}\.\d{1,3}\b)?.*")
_STATUS = re.compile(r"\b([245])\.(\d{1,3})\.(\d{1,3})\b")
_MESSAGE_ID_LINE = re.compile(r"^message-id:\s*(<[^>\s]+>)", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Failure:
    """One recipient the bounce reports."""

    address: str  # as the bounce names it, lower-case ('' when it names none usable)
    hard: bool
    diagnostic: str  # what the receiving server said, one line


@dataclass(frozen=True)
class Bounce:
    """What a delivery report says: its failures, and the Message-IDs of the mail it
    returns (from the headers it quotes), by which the judge knows its own mail."""

    failures: tuple[Failure, ...]
    returned_ids: tuple[str, ...]

    @property
    def hard(self) -> tuple[Failure, ...]:
        return tuple(f for f in self.failures if f.hard)


def parse(raw: bytes) -> Message:
    return email.message_from_bytes(raw, policy=policy.compat32)


def read_bounce(msg: Message) -> Bounce | None:
    """The failures ``msg`` reports; None when it is no report of a failed delivery (an
    auto-reply, a report that the mail was delivered)."""
    failures = _dsn_failures(msg)
    if failures is None:
        failures = _other_failures(msg)
    if not failures:
        return None
    return Bounce(tuple(failures), _returned_ids(msg))


def _dsn_failures(msg: Message) -> list[Failure] | None:
    """The failures of the RFC 3464 parts of ``msg``; None when it has none."""
    found: list[Failure] | None = None
    for part in msg.walk():
        if part.get_content_type() != "message/delivery-status" or not part.is_multipart():
            continue
        found = found if found is not None else []
        blocks = part.get_payload()
        assert isinstance(blocks, list)
        for block in blocks[1:]:  # the first block is about the whole message
            failure = _dsn_block(block) if isinstance(block, Message) else None
            if failure is not None:
                found.append(failure)
    return found


def _dsn_block(block: Message) -> Failure | None:
    action = str(block.get("Action", "")).strip().lower()
    if not action.startswith(("failed", "failure", "error", "delayed")):
        return None  # delivered, relayed, expanded: no failure
    status = _STATUS.search(str(block.get("Status", "")))
    diagnostic = _words(str(block.get("Diagnostic-Code", "")).partition(";")[2]
                        or str(block.get("Diagnostic-Code", "")))
    address = _recipient(block)
    code = ".".join(status.groups()) if status else ""
    hard = action.startswith(("failed", "failure", "error")) \
        and (not status or status.group(1) == "5") and code not in _NOT_THE_ADDRESS \
        and not _FULL.search(diagnostic)
    return Failure(address, hard, diagnostic or (f"status {code}" if code else action))


def _recipient(block: Message) -> str:
    """The recipient a DSN block names: Original-Recipient, else Final-Recipient."""
    for name in ("Original-Recipient", "Final-Recipient", "X-Actual-Recipient"):
        value = str(block.get(name, ""))
        kind, _, address = value.partition(";")
        if address.strip() and kind.strip().lower() == "rfc822":
            return address.strip().strip("<>").lower()
    return ""


def _other_failures(msg: Message) -> list[Failure]:
    """A bounce in no standard format, read by flufl.bounce's detectors."""
    try:
        temporary, permanent = all_failures(msg)
    except Exception:  # noqa: BLE001 - a detector choking on odd mail: no bounce read
        return []
    text = _text_of(msg)
    failures = []
    for raw_address, hard in [(a, False) for a in sorted(temporary)] + \
            [(a, True) for a in sorted(permanent)]:
        address = raw_address.decode("ascii", "replace").strip().strip("<>").lower()
        diagnostic = _diagnostic_near(text, address)
        failures.append(Failure(address, hard and not _FULL.search(diagnostic) and
                                not _FULL.search(text), diagnostic))
    return failures


def _text_of(msg: Message) -> str:
    """The bounce's own text: its text parts, not the mail it returns."""
    texts = []
    for part in msg.walk():
        if part.get_content_type() in ("message/rfc822", "text/rfc822-headers"):
            break
        if part.get_content_maintype() == "text":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                texts.append(payload.decode(part.get_content_charset() or "utf-8", "replace"))
    return "\n".join(texts)


def _diagnostic_near(text: str, address: str) -> str:
    """The server's words in a bounce's text: in the paragraph that names the address, the
    SMTP reply it quotes, else the paragraph's text after the address."""
    lines = [line.strip() for line in text.splitlines()]
    at = next((i for i, line in enumerate(lines) if address and address in line.lower()), None)
    if at is None:
        return ""
    paragraph = [lines[at]]
    for line in lines[at + 1:]:
        if not line:
            break
        paragraph.append(line)
    joined = " ".join(paragraph)
    reply = _SMTP_REPLY.search(joined)
    if reply:
        return _words(reply.group(0))
    after = joined.lower().split(address, 1)[1]
    return _words(joined[len(joined) - len(after):].lstrip(">:) ") or joined)


def _words(text: str) -> str:
    text = " ".join(clean_line(text).split())
    return text if len(text) <= DIAGNOSTIC_LENGTH else text[:DIAGNOSTIC_LENGTH] + "…"


def _returned_ids(msg: Message) -> tuple[str, ...]:
    """The Message-IDs of the mail the bounce returns: of an attached message or its headers,
    else any ``Message-ID:`` line quoted in its text."""
    ids: list[str] = []
    for part in msg.walk():
        kind = part.get_content_type()
        if kind == "message/rfc822" and part.is_multipart():
            inner = part.get_payload(0)
            if isinstance(inner, Message) and inner.get("Message-ID"):
                ids.append(str(inner["Message-ID"]).strip())
        elif kind == "text/rfc822-headers":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                ids += _MESSAGE_ID_LINE.findall(payload.decode("utf-8", "replace"))
    if not ids:
        for part in msg.walk():
            if part.get_content_maintype() == "text":
                payload = part.get_payload(decode=True)
                if isinstance(payload, bytes):
                    ids += _MESSAGE_ID_LINE.findall(payload.decode("utf-8", "replace"))
    return tuple(dict.fromkeys(i for i in ids if i != str(msg.get("Message-ID", "")).strip()))
