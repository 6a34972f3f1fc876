"""Which part of a received mail is its text, and that text decoded.

The first ``text/plain`` part that is not an attachment is read; without one, the first
``text/html`` part, rendered as text (judge.mail.reading.html_text); attached or forwarded messages
are never read.  A wrong or unknown charset is survived (read as UTF-8, else Latin-1), and
what was odd is noted for the reply.
"""

from __future__ import annotations

import codecs
from email.message import Message

from judge.basics.config import LimitsSection
from judge.mail.reading.html_text import html_to_text

# Codecs that are no charset of mail text but encodings of something else (domain names,
# Python literals): punycode and idna decode in time quadratic in the text (100 KB labelled
# punycode took 16 s), so a mail labelled with one is read as an unknown charset would be.
_NOT_CHARSETS = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape",
                           "undefined"})


def defect_names(msg: Message) -> list[str]:
    names: set[str] = set()
    for part in _all_parts(msg):
        names.update(type(defect).__name__ for defect in getattr(part, "defects", ()))
    return sorted(names)


def _all_parts(part: Message, depth: int = 0):
    """The part and its sub-parts, not descending into attached messages."""
    yield part
    if depth > 20:  # absurd nesting: stop rather than recurse forever
        return
    if part.get_content_maintype() == "message" or not part.is_multipart():
        return
    payload = part.get_payload()
    if isinstance(payload, list):
        for sub in payload:
            if isinstance(sub, Message):
                yield from _all_parts(sub, depth + 1)


def body_text(msg: Message, problems: list[str], limits: LimitsSection | None = None) -> str:
    """The text of the mail's text part (see the module's docstring); an HTML body beyond
    the bounds of ``limits`` raises :class:`~judge.mail.reading.bounds.Unreadable`."""
    plain = html = None
    for part in _all_parts(msg):
        try:
            if part.is_multipart() or part.get_content_disposition() == "attachment":
                continue
            ctype = part.get_content_type()
        except Exception:  # noqa: BLE001
            continue
        if ctype.startswith("multipart/"):
            # the parser found no parts (missing or wrong boundary): the text is all we have
            problems.append(f"{ctype} without readable parts; read it as plain text")
            ctype = "text/plain"
        if ctype == "text/plain" and plain is None:
            plain = part
        elif ctype == "text/html" and html is None:
            html = part
    chosen = plain if plain is not None else html  # not `or`: a Message without headers is falsy
    if chosen is None:
        problems.append("no text part to read")
        return ""
    try:
        payload = chosen.get_payload(decode=True)
    except Exception:  # noqa: BLE001
        payload = None
    if not isinstance(payload, bytes):
        payload = str(chosen.get_payload() or "").encode("utf-8", "surrogateescape")
    try:
        charset = chosen.get_content_charset()
    except Exception:  # noqa: BLE001
        charset = None
    text = decode_text(payload, charset, problems)
    if chosen is html:
        problems.append("HTML-only mail converted to text")
        text = html_to_text(text, limits)
    return text.replace("\xa0", " ").replace("\ufeff", "")


def decode_text(payload: bytes, charset: str | None, problems: list[str]) -> str:
    """Decode with the declared charset; survive unknown and wrong ones.

    Fallback order: utf-8 (strict), then latin-1 (never fails). A declared ``us-ascii``
    (also the MIME default) that is not ASCII is read as utf-8/latin-1 the same way."""
    declared = (charset or "us-ascii").strip().lower()
    try:
        codec = codecs.lookup(declared).name
        if codec in _NOT_CHARSETS:
            raise LookupError(declared)
        if codec == "ascii" and not payload.isascii():
            raise UnicodeError("8-bit data labelled as ASCII")
        return payload.decode(declared)
    except LookupError:
        reason = f"unknown charset {declared!r}"
    except Exception:  # noqa: BLE001 - UnicodeError, non-text codecs like 'base64', ...
        reason = f"text is not valid {declared}"
    try:
        text = payload.decode("utf-8")
        problems.append(f"{reason}; read as utf-8")
    except UnicodeError:
        text = payload.decode("latin-1")
        problems.append(f"{reason}; read as latin-1")
    return text
