"""The lines of a mail's text that the command language reads: quoted lines, signatures and
unquoted originals left out (see :func:`read_body`)."""

from __future__ import annotations

import re


_QUOTED = re.compile(r"^\s*>")
_ATTRIBUTION_START = re.compile(r"^\s*(On|Am|Le)\s", re.IGNORECASE)
_ATTRIBUTION_END = re.compile(r"(wrote|schrieb|a écrit)\s*:\s*$", re.IGNORECASE)
_ORIGINAL_MARKERS = re.compile(
    r"^\s*(-{2,}\s*(Original Message|Forwarded message)\s*-{2,}"
    r"|Begin forwarded message:)\s*$",
    re.IGNORECASE,
)
_OUTLOOK_RULE = re.compile(r"^\s*_{10,}\s*$")
_HEADER_FROM = re.compile(r"^\s*From:", re.IGNORECASE)
_HEADER_NEXT = re.compile(r"^\s*(Sent|Date):", re.IGNORECASE)


def _attribution_length(lines: list[str], i: int) -> int:
    """How many lines an ``On … wrote:`` attribution at ``i`` takes (1, or 2 when wrapped),
    0 when there is none."""
    if not _ATTRIBUTION_START.match(lines[i]):
        return 0
    if _ATTRIBUTION_END.search(lines[i]):
        return 1
    if i + 1 < len(lines) and _ATTRIBUTION_END.search(lines[i + 1]):
        return 2
    return 0


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
    size = _attribution_length(lines, i)
    if not size:
        return 0
    first = next_text[min(i + size, len(lines))]
    return size if first < len(lines) and _QUOTED.match(lines[first]) else 0


def _starts_quoted_original(lines: list[str], i: int) -> bool:
    line = lines[i]
    following = [ln for ln in lines[i + 1 : i + 4] if ln.strip()]
    nxt = following[0] if following else ""
    if _ORIGINAL_MARKERS.match(line):
        return True
    if _ATTRIBUTION_START.match(line):
        # "On Mon, 1 Jan 2024, Jane <jane@example.org> wrote:" -- often wrapped in two lines
        if _ATTRIBUTION_END.search(line):
            return True
        if i + 1 < len(lines) and _ATTRIBUTION_END.search(lines[i + 1]):
            return True
    if _OUTLOOK_RULE.match(line) and _HEADER_FROM.match(nxt):
        return True
    # Outlook without the rule: a "From:" line directly followed by "Sent:"/"Date:"
    if _HEADER_FROM.match(line) and i + 1 < len(lines) and _HEADER_NEXT.match(lines[i + 1]):
        return True
    return False


def body_lines(text: str) -> list[str]:
    """The lines of a body that the command layer reads (see :func:`read_body`)."""
    return read_body(text)[0]


def read_body(text: str) -> tuple[list[str], int]:
    """The lines of a body that the command layer reads, and how many quoted lines it skipped.

    Quoted lines (``>`` after optional whitespace) are skipped, and so is an ``On … wrote:``
    attribution followed by them: reading goes on after the quote, so a reply written below
    the quoted mail (bottom-posting) is read.  Reading stops at a signature separator (``-- ``
    or ``--``), at the start of an unquoted original (``On … wrote:`` followed by the original
    as it was, ``-----Original Message-----``, an Outlook ``____`` rule followed by ``From:``,
    ``Begin forwarded message:``) -- those lines are dropped -- and at ``SIGNOFF``, which is
    kept as the last line so that it gets answered. A ``SIGNOFF`` line may carry a ``//``
    comment. Trailing whitespace is stripped, blank lines are kept, trailing blank lines go.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.rstrip() for line in text.split("\n")]
    next_text = _next_text(lines)
    out: list[str] = []
    quoted = 0
    skip = 0
    for i, line in enumerate(lines):
        if skip:
            skip -= 1
            continue
        if line == "--":  # "-- " and a bare "--" (trailing whitespace is already gone)
            break
        if _QUOTED.match(line):
            quoted += 1
            continue
        attribution = _introduces_quote(lines, i, next_text)
        if attribution:
            skip = attribution - 1
            continue
        if _starts_quoted_original(lines, i):
            break
        out.append(line)
        if line.split("//", 1)[0].strip().upper() == "SIGNOFF":
            break
    while out and not out[-1].strip():
        out.pop()
    return out, quoted
