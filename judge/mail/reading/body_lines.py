"""The lines of a mail's text that the command language reads: quoted lines, signatures and
unquoted originals left out (see :func:`read_body`)."""

from __future__ import annotations

import re
from typing import NamedTuple

from judge.mail.reading.reply_headers import (attribution_length, header_block_at, is_rule,
                                              may_begin_original, names_sender, starts_original)
from judge.mail.reading.sign_offs import is_phone_signature

_QUOTED = re.compile(r"^\s*>")
# The longest line the reply names as the one where an original began.
_NAMED = 80
# The line a mail from the judge asks its reader to answer with (CONFIRM and a code of ten
# letters and digits, judge.service.access.confirmations): read wherever it is, quoted, below a
# signature or in the original below a reply, for whoever answers may quote it rather than
# write it again.  Only the code proves anything, and only its reader knows it.
_CONFIRM = re.compile(r"^[\s>]*(CONFIRM\s+[A-Z0-9]{5}-?[A-Z0-9]{5})\s*$", re.IGNORECASE)


class Body(NamedTuple):
    """What :func:`read_body` read: the lines for the command layer, how many lines of the
    mail it answered it skipped (quoted with ``>``, and those of an original that is not), and
    the line where such an original began, shortened (``""`` when none did)."""

    lines: list[str]
    quoted: int
    original: str


def _next_text(lines: list[str]) -> list[int]:
    """For each line, the index of the first line at or after it that is not blank
    (``len(lines)`` when none is).  Built once, backwards: looking ahead from every line
    afresh made a mail of many lines cost time in the square of their number."""
    found = [len(lines)] * (len(lines) + 1)
    for i in range(len(lines) - 1, -1, -1):
        found[i] = i if lines[i].strip() else found[i + 1]
    return found


def _introduces_quote(lines: list[str], i: int, next_text: list[int]) -> int:
    """The length of an attribution at ``i`` whose original follows as ``>`` lines (the
    writer's own lines may come after it: a bottom-posted reply), else 0."""
    size = attribution_length(lines, i)
    if not size:
        return 0
    first = next_text[min(i + size, len(lines))]
    return size if first < len(lines) and _QUOTED.match(lines[first]) else 0


def _starts_original(lines: list[str], i: int, next_text: list[int]) -> bool:
    """Whether an original that is not quoted begins at line ``i``: a separator, a copied
    header block (after a rule or not), or an attribution (judge.mail.reading.reply_headers)."""
    line = lines[i]
    if starts_original(line) or header_block_at(lines, i) or attribution_length(lines, i):
        return True
    following = next_text[min(i + 1, len(lines))]
    return is_rule(line) and following < len(lines) and names_sender(lines[following])


def body_lines(text: str) -> list[str]:
    """The lines of a body that the command layer reads (see :func:`read_body`)."""
    return read_body(text).lines


def read_body(text: str) -> Body:
    """The lines of a body that the command layer reads, how many lines of the mail it
    answers were skipped, and where an unquoted original began.

    Quoted lines (``>`` after optional whitespace) are skipped, and so is an ``On … wrote:``
    attribution followed by them: reading goes on after the quote, so a reply written below
    the quoted mail (bottom-posting) is read.  Reading stops at a signature separator (``-- ``
    or ``--``), at a phone's signature (``Sent from my iPhone``), at the start of an unquoted
    original (in the words of the common mail programs and languages: an attribution followed
    by the original as it was, a separator such as ``-----Original Message-----``, a copied
    header block such as ``Von:``/``Gesendet:``; see judge.mail.reading.reply_headers) -- the
    original's lines are dropped, and counted with the quoted ones -- and at ``SIGNOFF``, which
    is kept as the last line so that it gets answered. A ``SIGNOFF`` line may carry a ``//``
    comment. Trailing whitespace is stripped, blank lines are kept, trailing blank lines go.
    A ``CONFIRM <code>`` line is read even quoted, or below a signature or original (each
    code once), but not after SIGNOFF.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.rstrip() for line in text.split("\n")]
    next_text = _next_text(lines)
    out: list[str] = []
    quoted = 0
    skip = 0
    stopped = len(lines)
    for i, line in enumerate(lines):
        if skip:
            skip -= 1
            continue
        if line == "--" or is_phone_signature(line):  # "-- ", "--" (trailing blanks are gone)
            stopped = i
            break
        if _QUOTED.match(line):
            confirm = _CONFIRM.match(line)
            if confirm:
                out.append(confirm.group(1))
            else:
                quoted += 1
            continue
        if may_begin_original(line):
            attribution = _introduces_quote(lines, i, next_text)
            if attribution:
                skip = attribution - 1
                continue
            if _starts_original(lines, i, next_text):
                original = lines[i:]
                quoted += sum(1 for ln in original if ln.strip())
                return Body(_with_confirms(_without_trailing_blanks(out), original), quoted,
                            _shortened(line.strip()))
        out.append(line)
        if line.split("//", 1)[0].strip().upper() == "SIGNOFF":
            break
    return Body(_with_confirms(_without_trailing_blanks(out), lines[stopped:]), quoted, "")


def _without_trailing_blanks(out: list[str]) -> list[str]:
    while out and not out[-1].strip():
        out.pop()
    return out


def _shortened(line: str) -> str:
    return line if len(line) <= _NAMED else line[:_NAMED - 1] + "…"


def _with_confirms(out: list[str], rest: list[str]) -> list[str]:
    """``out`` and the CONFIRM lines of ``rest`` (the lines below where reading stopped),
    each code once (an answer may both write it and quote it: a second CONFIRM of the same
    code would be a wrong one)."""
    codes: set[str] = set()
    kept: list[str] = []
    for line in out + [m.group(1) for m in map(_CONFIRM.match, rest) if m]:
        if _CONFIRM.match(line):
            code = line.split(None, 1)[1].replace("-", "").upper()
            if code in codes:
                continue
            codes.add(code)
        kept.append(line)
    return kept
