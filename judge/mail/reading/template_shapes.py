"""The shapes of the lines the judge's mail templates write, to know them again when they come
back inside a received mail (judge.mail.reading.own_lines).

Each line a template writes becomes a pattern: the template's own text as it is (runs of
blanks are any blanks), anything where it writes a value (``{{ … }}``), and what an
``{% if %}`` or a ``{% for %}`` writes may be there or not, each of its branches in its
place.  Jinja's own lexer reads the templates, with the settings the judge renders them with,
so that trimmed blocks and whitespace control (``-%}``) join and split lines as in the mail.
A line that is one value alone has a shape for each sentence the template spells out for it
(``{{ "Deadlines no longer move for it." if … }}``).

The help texts are left out: their examples are meant to be copied into mail.

How much of a line is the template's own decides what its shape may be taken for: a shape
must have :data:`LEAST_WORDS` words of its own outside any ``{% if %}`` when it begins with
one of them, capitalised (``Rules: none``), :data:`LOWER_WORDS` when that word is in small
letters (the rest of a sentence the template goes on with on its next line: ``missing from:
France.``), :data:`TEMPLATE_WORDS` when it may begin with a value (``war1901 has been
processed; …``): fewer are too like what a player writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Iterable

from judge.basics.resources import templates_dir

# The fewest words of the template's own a shape needs: beginning with one of them, with one
# in small letters, and beginning with a value (see above).
LEAST_WORDS = 1
LOWER_WORDS = 2
TEMPLATE_WORDS = 3

_WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class Shape:
    """A template line as a pattern; ``anchor``, a piece of its own text every match holds
    (looked for first: a substring test is far cheaper than the pattern, compiled only once
    a line has the anchor); ``lead``, the first piece of its own text; ``words``, how many
    words of its own every match has."""

    pattern: str
    anchor: str
    lead: str
    words: int

    def matches(self, text: str) -> bool:
        return self.anchor in text and _compiled(self.pattern).fullmatch(text) is not None


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def matching_words(text: str, lead: str = "") -> int:
    """The most words of its own a template line of ``text``'s shape has (0: none has it);
    ``text`` has its blanks made single spaces.  With ``lead``, the first of the lines
    ``text`` was joined from (a line the judge wrapped), the shape's first words of its own
    must be on that line: a player's line above a wrapped one of the judge's is not taken
    with it."""
    by_word, anywhere = shapes()
    words = [s.words for s in by_word.get(text.split(" ", 1)[0], ()) if s.matches(text)]
    if _anchors().search(text):
        lead = " ".join(lead.split())
        words += [s.words for s in anywhere
                  if (not lead or s.lead in lead) and s.matches(text)]
    return max(words, default=0)


def may_begin(line: str) -> bool:
    """Whether a line (its blanks made single spaces) may be the first of a template line
    the judge wrapped: it begins with a shape's first word, or has the first words of its
    own of a shape that begins with a value."""
    return line.split(" ", 1)[0] in shapes()[0] or _leads().search(line) is not None


@cache
def _anchors() -> re.Pattern[str]:
    """Any anchor of a shape beginning with a value: one search tells whether any of them
    may match, where a test of each would cost a hundred."""
    return re.compile("|".join(sorted({re.escape(s.anchor) for s in shapes()[1]})))


@cache
def _leads() -> re.Pattern[str]:
    """Any first piece of its own of a shape beginning with a value."""
    return re.compile("|".join(sorted({re.escape(s.lead) for s in shapes()[1]})))


@cache
def shapes() -> tuple[dict[str, tuple[Shape, ...]], tuple[Shape, ...]]:
    """The shapes of the templates' lines: those beginning with a word of their own, by that
    word, and the others."""
    by_word: dict[str, list[Shape]] = {}
    anywhere: list[Shape] = []
    for path in sorted(templates_dir().rglob("*.txt")):
        if path.relative_to(templates_dir()).parts[0] == "help":
            continue
        for parts in _output_lines(path.read_text("utf-8")):
            for branch in _branches(parts):
                for shape, first_word in _line_shapes(branch):
                    if first_word:
                        by_word.setdefault(first_word, []).append(shape)
                    else:
                        anywhere.append(shape)
    return {w: tuple(s) for w, s in by_word.items()}, tuple(anywhere)


# --------------------------------------------------------------------------- reading templates

@dataclass(frozen=True)
class _Value:
    """Where a template writes a value, and the texts it spells out in it."""

    texts: tuple[str, ...] = ()


# Block tags: an {% if %} or {% for %} opens what may be there or not, {% elif %} and
# {% else %} begin another branch of it, {% endif %} and {% endfor %} close it.
_OPEN, _BRANCH, _CLOSE = "open", "branch", "close"
_TAGS = {"if": _OPEN, "for": _OPEN, "elif": _BRANCH, "else": _BRANCH, "endif": _CLOSE,
         "endfor": _CLOSE}
# Block tags that begin or end text written elsewhere: a line never goes on over them.
_APART = {"macro", "endmacro", "call", "endcall", "filter", "endfilter"}

def _output_lines(source: str) -> Iterable[list[object]]:
    """The lines a template writes, as parts: its own text (str), a value (_Value), a block
    tag (_OPEN, _BRANCH, _CLOSE)."""
    from judge.mail.writing.compose import make_environment  # the judge's own lexer settings

    parts: list[object] = []
    tokens = iter(make_environment().lex(source))
    for _, kind, value in tokens:
        if kind == "data":
            for k, chunk in enumerate(value.split("\n")):
                if k:
                    yield parts
                    parts = []
                if chunk:
                    parts.append(chunk)
        elif kind == "variable_begin":
            texts = []
            for _, inner, constant in tokens:
                if inner == "variable_end":
                    break
                if inner == "string":
                    texts.append(constant[1:-1])
            parts.append(_Value(tuple(texts)))
        elif kind == "block_begin":
            name = next((v for _, inner, v in tokens if inner == "name"), "")
            if name in _APART:
                yield parts
                parts = []
            elif name in _TAGS:
                parts.append(_TAGS[name])
    yield parts


def _branches(parts: list[object]) -> list[list[object]]:
    """A line cut where an {% else %} it is not inside of begins another branch: whitespace
    control may have joined the end of one branch and the beginning of the next, which the
    mail never writes on one line."""
    out: list[list[object]] = [[]]
    depth = 0
    for part in parts:
        if part == _BRANCH and depth == 0:
            out.append([])
            continue
        if part == _OPEN:
            depth += 1
        elif part == _CLOSE:
            depth = max(depth - 1, 0)
        out[-1].append(part)
    return out


@dataclass
class _Maybe:
    """What an {% if %} or a {% for %} writes: one of its branches, or nothing."""

    branches: list[list[object]] = field(default_factory=lambda: [[]])
    closed: bool = False


def _nested(parts: list[object]) -> list[object]:
    """The parts with each {% if %} and {% for %} made one _Maybe.  Tags that open or close
    one on another line are left out: the text after an {% if %} that the line does not
    close is the line itself, there whenever the line is, and so is the text before an
    {% endif %} of an earlier line's {% if %}."""
    top: list[object] = []
    stack: list[_Maybe] = []
    for part in parts:
        here = stack[-1].branches[-1] if stack else top
        if part == _OPEN:
            maybe = _Maybe()
            here.append(maybe)
            stack.append(maybe)
        elif part == _BRANCH:
            stack[-1].branches.append([])
        elif part == _CLOSE:
            if stack:
                stack.pop().closed = True
        else:
            here.append(part)
    return _unclosed_inline(top)


def _unclosed_inline(nodes: list[object]) -> list[object]:
    out: list[object] = []
    for node in nodes:
        if isinstance(node, _Maybe) and not node.closed and len(node.branches) == 1:
            out.extend(_unclosed_inline(node.branches[0]))
        else:
            out.append(node)
    return out


def _line_shapes(parts: list[object]) -> list[tuple[Shape, str]]:
    """The shapes of one line the template writes, each with the word every line of that
    shape begins with ("" when it may begin otherwise)."""
    written = [p for p in parts if isinstance(p, (str, _Value))]
    if len(written) == 1 and isinstance(written[0], _Value):
        texts = [t for t in written[0].texts if len(_WORD.findall(t)) >= TEMPLATE_WORDS]
        return [shape for text in texts for shape in _line_shapes([text])]
    nodes = _nested(parts)
    found = _shape(nodes)
    if found is not None:
        return [found]
    # none of the line's own words is outside an {% if %}: each branch of each, written
    return [shape for k, node in enumerate(nodes) if isinstance(node, _Maybe)
            for branch in node.branches
            if (shape := _shape([*nodes[:k], *branch, *nodes[k + 1:]], lead=k == 0))]


def _shape(nodes: list[object], lead: bool = True) -> tuple[Shape, str] | None:
    """The shape of a line of nodes, if it has words enough of its own outside any _Maybe;
    ``lead``: whether it may be indexed by its first word."""
    own = [" ".join(n.split()) for n in nodes if isinstance(n, str) and n.strip()]
    words = len(_WORD.findall(" ".join(own)))
    opening = nodes[0] if nodes else None
    first = re.match(r"\s*(\S+)(\s|$)", opening) if lead and isinstance(opening, str) else None
    least = (TEMPLATE_WORDS if first is None else
             LOWER_WORDS if first.group(1)[0].islower() else LEAST_WORDS)
    if not own or words < least:
        return None
    shape = Shape(_pattern(nodes), max(own, key=len), own[0], words)
    return shape, first.group(1) if first else ""


def _pattern(nodes: list[object]) -> str:
    out = []
    for node in nodes:
        if isinstance(node, str):
            # blanks as the line is compared: runs of them made one space, none at the ends
            out.append(r"\s*".join(re.escape(w) for w in re.split(r"\s+", node)))
        elif isinstance(node, _Maybe):
            out.append("(?:" + "|".join(_pattern(b) for b in node.branches) + ")?")
        else:
            out.append(".*?")
    return "".join(out)
