"""Control characters out of every text the judge reads from mail, stores, or sends.

Mail may carry any byte.  A NUL cannot be stored in a PostgreSQL text column at all; a CR,
an ESC or a backspace copied from one sender's mail into the judge's reply (or into a press
message other players read) splits header lines or rewrites what a terminal shows.  One small
function does the job in both places: on what is read from a received mail (subject, lines,
addresses, Message-ID) before anything is stored as text, and as a last guard on every header
value and body the judge composes.

Control characters (C0 and C1, DEL, the Unicode line and paragraph separators) and lone
surrogates (raw 8-bit bytes the decoder could not place, which no encoder accepts) become
U+FFFD, so the reader sees that something was there.  Bodies keep their tabs and newlines; a
one-line value (a header, an address, an id) gets spaces for them instead.
"""

from __future__ import annotations

import re

__all__ = ["clean", "clean_line", "has_control"]

REPLACEMENT = "\ufffd"
_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
_IN_TEXT = re.compile(f"[{_CONTROL}]")
_IN_LINE = re.compile(f"[{_CONTROL}\t\n]")
_LINE_BREAKS = re.compile(r"\r\n|\r")


def clean(text: str) -> str:
    """Multi-line text (a body): CRLF and lone CR become LF; tabs and newlines are kept."""
    if text.isascii() and text.isprintable():
        return text  # the common case, without a regular expression
    return _IN_TEXT.sub(REPLACEMENT, _LINE_BREAKS.sub("\n", text))


def clean_line(text: str) -> str:
    """A one-line value (header, address, id): tabs and line breaks become spaces."""
    if text.isascii() and text.isprintable():
        return text
    return _IN_LINE.sub(lambda m: " " if m.group() in "\t\n\r" else REPLACEMENT, text)


def has_control(text: str, *, multiline: bool = False) -> bool:
    """Whether ``text`` holds anything :func:`clean` (or :func:`clean_line`) would replace."""
    return bool((_IN_TEXT if multiline else _IN_LINE).search(
        text.replace("\r\n", "\n") if multiline else text))
