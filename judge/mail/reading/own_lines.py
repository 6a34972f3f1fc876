"""Which lines of a received mail the judge wrote itself: its results, replies and notices,
pasted or quoted back into a player's mail, known by their shape so that they are never read
as commands or orders.

A line is the judge's own when, leading blanks taken off, it

* begins with ``::`` (the header of every mail about a game);
* begins with a power's name and a colon and ends with a full stop, which a ``(*…*)`` mark may
  follow: the lines of the results, the board, the centres and the builds (``Germany: Army
  Ruhr.``, ``France: A Paris - Burgundy.``, ``Austria: Army Bohemia HOLD.  (*dislodged*)``);
  or is a power's name alone, or followed by an address or by numbers (the Game Starting
  mail, the LIST table);
* begins as one of the answers the command layer writes under a line of a mail does
  (``Accepted:``, ``Error:``, ``Not executed``, ``Signed on as …``, ``Orders of France in
  war1901 for S1901M:``), or is the title of a phase's results, a retreat line of the results
  (``The Austrian Army in Bohemia can retreat to …``) or a heading of a Formal Diplomacy
  report;
* has the shape of a line of the judge's mail templates (judge.mail.reading.template_shapes:
  ``Every unit has an order.``, ``Unit positions after S1901M:``, ``Rules: none``, ``4 lines
  read, 1 error.``), alone or wrapped over up to four lines;
* continues such a line: it is indented more than a line of the judge's that does not end
  with a full stop (the orders listed under ``Orders of France in war1901 for S1901M:``, a
  long list of centres), or it is the rest of a retreat line the judge wrapped.

Whether a line is a command is not asked here: the command layer reads a command first,
unless the line is CERTAIN to be the judge's -- any of the above but a continuation or a
template line with fewer than ``TEMPLATE_WORDS`` words of the template's own.  So
``Summary of war1901 (active), now at F1901M.`` is the judge's, not a SUMMARY command, while
``SET DRAW``, a line of LIST's too, written alone is the player's command.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Sequence

from judge.core.maps import load_map
from judge.mail.reading.template_shapes import TEMPLATE_WORDS, matching_words, may_begin, shapes
from judge.service.games import VARIANTS

# What judge_lines says of a line: not the judge's; the judge's unless it is a command; the
# judge's whatever it begins with.
NOT, WRITTEN, CERTAIN = 0, 1, 2
# The judge writes no line longer (a value included); a longer one is the writer's, and is
# not matched against any shape (no pattern goes over a hostile mail's huge line).
_LONGEST = 400
# The most lines the judge wraps one of its lines into.
_WRAPPED = 4

# What a reply says under a line of the mail: the starts of the answers the command layer
# writes itself.
_ANSWERS = re.compile(
    r"^(Accepted: |Error: |Not executed|Not answered: |Ignored \(IGNORE_ERRORS\)\.$"
    r"|Signed on as .+\)\.$|Same as the answer to line \d+ above\.$|Signed off; "
    r"|Orders of \S+ in \S+ for \S+:$|\S+: all orders are in\.$|All orders of \S+ for "
    r"|The phase (will not|may) be processed |You have joined \S+ \(|You now observe "
    r"|The game is full and has started; )")
# The title of a phase's results, in the results mail and in HISTORY.
_RESULTS_TITLE = re.compile(r"^((Spring|Fall|Winter) of \d+\. )?"
                            r"(Movement|Retreat|Adjustment) results for ")
_RETREAT = re.compile(r"^The [^\W\d_]+ (Army|Fleet) in ")
# The headings of a Formal Diplomacy report (judge.core.formal.report).
_FORMAL_HEADINGS = re.compile(
    r"^(Declarations of war|Surrenders|Formal orders not carried out|Void moves \(no war\)"
    r"|Spheres of influence|Victory points this phase|Victory points \(.*\)"
    r"|Wars \(X: at war\)):$")
_MARK = re.compile(r"\.(\s+\(\*[^*]*\*\))?$")
# How a finished line of the judge's ends; lines indented under one that does not are its.
_FINISHED = re.compile(r"[.?!)]$")


def judge_lines(lines: Sequence[str]) -> list[int]:
    """For each line, whether the judge wrote it: NOT, WRITTEN or CERTAIN (see the module's
    docstring)."""
    known = JudgeLines(lines)
    return [known[i] for i in range(len(lines))]


class JudgeLines:
    """Whether the judge wrote each line of a mail, worked out going down the mail only as far
    as a line is asked for: a mail's lines beyond those it may have executed cost nothing."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.found: list[int] = []
        # lines indented more than ``under`` continue a line of the judge's; a wrapped retreat
        # line may go on over ``wrapped`` more
        self.under: int | None = None
        self.wrapped = 0

    def __getitem__(self, i: int) -> int:
        while len(self.found) <= i:
            self._next()
        return self.found[i]

    def _next(self) -> None:
        i = len(self.found)
        indent, text = _indented(self.lines[i])
        if not text:
            self.under, self.wrapped = None, 0
        elif self.under is not None and indent > self.under or self.wrapped:
            self.found.append(WRITTEN)
            self.wrapped = 0 if not self.wrapped or _MARK.search(text) else self.wrapped - 1
            return
        else:
            self.under, self.wrapped = None, 0
            size, kind, how = _judges_at(self.lines, i)
            if size:
                self.found.extend([how] * size)
                last = self.lines[i + size - 1].strip()
                if kind == "retreat" and not _MARK.search(last):
                    self.wrapped = _WRAPPED
                elif not _FINISHED.search(last):
                    self.under = indent
                return
        self.found.append(NOT)


def may_be_judges(word: str) -> bool:
    """Whether a line beginning with ``word`` (as written) may be CERTAIN to be the judge's:
    asked of a command's first word before anything else is worked out for the mail."""
    return word.startswith("::") or word in shapes()[0]


def _indented(line: str) -> tuple[int, str]:
    """How far a line is indented, and its text."""
    return len(line) - len(line.lstrip()), line.strip()


def _judges_at(lines: Sequence[str], i: int) -> tuple[int, str, int]:
    """How many lines from ``i`` on are one line of the judge's (0: none), its kind and how
    sure that is (WRITTEN or CERTAIN)."""
    text = lines[i].strip()
    if len(text) > _LONGEST:
        return 0, "", NOT
    kind, how = _kind(text)
    if kind:
        return 1, kind, how
    joined = " ".join(text.split())
    if not may_begin(joined):
        return 0, "", NOT
    for size in range(2, _WRAPPED + 1):
        if i + size > len(lines) or not lines[i + size - 1].strip():
            break
        joined = f"{joined} {' '.join(lines[i + size - 1].split())}"
        if len(joined) > _LONGEST:
            break
        how = _template_line(joined, lead=text)
        if how:
            return size, "line", how
    return 0, "", NOT


def _template_line(text: str, lead: str = "") -> int:
    """NOT, WRITTEN or CERTAIN for a line (or lines joined) with a template line's shape."""
    words = matching_words(text, lead)
    return NOT if not words else CERTAIN if words >= TEMPLATE_WORDS else WRITTEN


def _kind(text: str) -> tuple[str, int]:
    """``"retreat"`` for a retreat line, ``"line"`` for another line of the judge's, ``""``
    for a line that is not the judge's; and how sure that is."""
    if text.startswith("::"):
        return "line", CERTAIN
    power_colon, power_alone = _power_lines()
    if power_colon.match(text):
        # "Austria:   Budapest, …,": a long list of centres, wrapped after a comma, goes on
        return ("line", CERTAIN) if _MARK.search(text) or text.endswith(",") else ("", NOT)
    if (power_alone.match(text) or _ANSWERS.match(text) or _FORMAL_HEADINGS.match(text)
            or _RESULTS_TITLE.match(text)):
        return "line", CERTAIN
    if _RETREAT.match(text):
        return "retreat", CERTAIN
    how = _template_line(" ".join(text.split()))
    return ("line", how) if how else ("", NOT)


@cache
def _power_lines() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A power's name and a colon beginning a line; a power's name alone, or with an address
    (the Game Starting mail) or numbers (the LIST table)."""
    names = sorted({n for variant in VARIANTS for p in load_map(variant).powers.values()
                    for n in (p.name.capitalize(), p.adjective)}, key=len, reverse=True)
    alternatives = "|".join(map(re.escape, names))
    return (re.compile(rf"^({alternatives}):\s"),
            re.compile(rf"^({alternatives})(\s+\S+@\S+|\s+\d+\s+\d+\s.*)?$"))
