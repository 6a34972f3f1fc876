"""Mail that must get no answer: from robots, mailing lists, auto-responders, bounces, or
the judge itself.  Answering them starts mail loops; the judge stays silent on purpose."""

from __future__ import annotations

import email.utils
import re
from email.message import Message
from functools import cache

from judge.mail.reading.headers import decoded_header, header_subject, raw_header


_ROBOT_LOCAL_PARTS = frozenset(
    {"mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply", "do-not-reply"}
)
_AUTO_REPLY_HEADERS = ("X-Autoreply", "X-Autorespond", "X-Autoresponder")
_AUTO_REPLY_SUBJECT = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response)|out of (the )?office)\b", re.IGNORECASE
)


def _address_key(addr: str) -> str:
    """Case-insensitive comparison key that ignores a ``+tag`` in the local part."""
    local, _, domain = addr.strip().strip("<>").lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


@cache
def _judge_key(judge_address: str) -> str:
    """The judge's own address as :func:`_address_key` (worked out once: it never changes)."""
    _, judge = email.utils.parseaddr(judge_address)
    return _address_key(judge or judge_address)


def robot_reason(
    msg: Message,
    envelope: str | None,
    from_addr: str | None,
    reply_to: str | None,
    judge_address: str,
) -> str | None:
    if envelope == "":
        return "null sender"
    if not from_addr:
        return "no usable From address"
    auto = decoded_header(msg, "Auto-Submitted")
    if auto is not None and auto.split(";")[0].strip().lower() != "no":
        return f"Auto-Submitted: {auto}"
    precedence = (decoded_header(msg, "Precedence") or "").strip().lower()
    if precedence in ("bulk", "junk", "list"):
        return f"Precedence: {precedence}"
    for key in msg.keys():
        if key.lower().startswith("list-"):
            return f"{key} header (mailing list)"
    for name in _AUTO_REPLY_HEADERS:
        if raw_header(msg, name) is not None:
            return f"{name} header (auto-reply)"
    if _AUTO_REPLY_SUBJECT.match(header_subject(msg)):
        return "auto-reply subject"
    try:
        if msg.get_content_type() == "multipart/report":
            return "delivery report (multipart/report)"
    except Exception:  # noqa: BLE001
        pass
    addresses = [a for a in (envelope, from_addr, reply_to) if a]
    for addr in addresses:
        local = (addr.rpartition("@")[0] if "@" in addr else addr).lower().split("+", 1)[0]
        if local in _ROBOT_LOCAL_PARTS:
            return f"robot sender address {addr}"
    judge_key = _judge_key(judge_address)
    for addr in addresses:
        if _address_key(addr) == judge_key:
            return "mail from the judge's own address"
    return None
