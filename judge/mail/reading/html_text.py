"""HTML mail rendered as the text lines its reader saw (for mail with no plain text part).

One pass over the markup, in time in proportion to its length whatever its shape: each
character is looked at a bounded number of times, the open elements are a stack (an end tag
pops down to its element, each element pushed and popped once) with a count of each name open,
so whether text is inside ``pre`` or a skipped element is known without looking up the tree.
Markup the tokenizer cannot finish (a quoted attribute value never closed) ends the document,
as it does in a browser, rather than being scanned again from every later ``<``.

The standard library's ``html.parser`` is not used: on Python 3.11.7 it rescans unfinished
markup from every later ``<``, so 59 KB of ``<a b="`` took 20 s and 78 KB of ``<a`` 11 s
(quadratic; measured).  Entities are decoded by ``html.unescape``, which is linear.

A mail nesting more than ``html_depth`` elements at once, or of more than ``html_nodes``
elements, comments and declarations, is :class:`~judge.mail.reading.bounds.Unreadable`.
"""

from __future__ import annotations

import html
import re
from collections import Counter

from judge.basics.config import LimitsSection
from judge.mail.reading.bounds import Unreadable

# Elements that start a new line when rendered. <p> is treated like <div> (no blank line):
# Outlook writes one <p> per typed line, and blank lines would only confuse line numbers.
_BLOCK_TAGS = frozenset(
    "address article aside blockquote dd div dl dt fieldset figcaption figure footer form "
    "h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody thead tfoot tr "
    "ul".split()
)
# Not the sender's words: scripts, styles, the <head>, and quoted originals (mail clients
# quote the message being answered in a <blockquote>).
_SKIPPED = frozenset({"script", "style", "head", "title", "template", "blockquote"})
_KEEPS_SPACE = frozenset({"pre", "textarea", "listing"})
_CELLS = frozenset({"td", "th"})
# Elements that have no end tag, so are never open.
_VOID = frozenset("area base basefont bgsound br col embed frame hr img input keygen link meta "
                  "param source track wbr".split())
# Elements whose content is text up to their end tag, never markup.
_RAW_TEXT = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.IGNORECASE)
             for name in ("script", "style", "textarea", "title")}

# Where a start tag implies the end of an element left open (sloppy HTML writes <p> and <li>
# without their end tags): the elements it closes, and those it may close them across.  Only
# the few elements nearest the top of the stack are looked at, so this costs a bounded time.
_INLINE = frozenset("a abbr b big cite code em font i kbd mark nobr q s samp small span strike "
                    "strong sub sup tt u var".split())
_CLOSES_P = (frozenset({"p"}), _INLINE)
_IMPLIED_ENDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    **{name: _CLOSES_P for name in _BLOCK_TAGS | {"center", "details", "dir", "listing",
                                                  "menu", "summary"}},
    "li": (frozenset({"li"}), _INLINE | {"p"}),
    "dt": (frozenset({"dt", "dd"}), _INLINE | {"p"}),
    "dd": (frozenset({"dt", "dd"}), _INLINE | {"p"}),
    "tr": (frozenset({"tr"}), _INLINE | {"p", "td", "th"}),
    "td": (_CELLS, _INLINE | {"p"}),
    "th": (_CELLS, _INLINE | {"p"}),
    "option": (frozenset({"option"}), frozenset()),
    "body": (frozenset({"head"}), frozenset()),
}
_LOOK_DOWN = 16

# A tag: its name, then attributes up to ">".  A quote starts a value only after "=", and such
# a value runs to its closing quote, ">" included; a value never closed makes the match stop
# short of ">" (and the document end there).  Possessive and atomic: no backtracking.
_TAG = re.compile(r"""<(/?)([A-Za-z][^\t\n\f\r />]*+)"""
                  r"""(?:[^>"'=]++|=[\t\n\f\r ]*+(?>"[^"]*+"|'[^']*+'|(?!["']))|["'])*+(>)?""")
# A "<" that may start markup; any other is text.
_MARKUP_START = re.compile(r"<[A-Za-z!/?]")
_SPACE = re.compile(r"[ \t\r\n\f]+")


class _Renderer:
    """The text so far and the open elements."""

    def __init__(self, limits: LimitsSection) -> None:
        self.limits = limits
        self.out: list[str] = []
        self.at_line_start = True
        self.stack: list[str] = []
        self.open: Counter[str] = Counter()
        self.skipping = 0  # open elements of _SKIPPED
        self.keeping_space = 0  # open elements of _KEEPS_SPACE
        self.nodes = 0

    # ------------------------------------------------------------------ output

    def text(self, raw: str, decode: bool = True) -> None:
        if self.skipping or not raw:
            return
        text = html.unescape(raw) if decode else raw
        if not self.keeping_space:
            text = _SPACE.sub(" ", text)  # HTML white space collapses
        self.out.append(text)
        if text.strip(" "):
            self.at_line_start = text.rstrip(" ").endswith("\n")

    def soft_break(self) -> None:
        """A line break unless already at the start of a line."""
        if not self.skipping and not self.at_line_start:
            self.out.append("\n")
            self.at_line_start = True

    def hard_break(self) -> None:
        if not self.skipping:
            self.out.append("\n")
            self.at_line_start = True

    # ------------------------------------------------------------------ elements

    def node(self) -> None:
        self.nodes += 1
        if self.nodes > self.limits.html_nodes:
            raise Unreadable("html_too_many_nodes", limit=self.limits.html_nodes)

    def start(self, name: str) -> None:
        self.node()
        implied = _IMPLIED_ENDS.get(name)
        if implied is not None:
            self._close_implied(*implied)
        if name == "br":
            self.hard_break()
            return
        if name in _BLOCK_TAGS:
            self.soft_break()
        if name in _VOID:
            if name in _BLOCK_TAGS:
                self.soft_break()
            return
        if len(self.stack) >= self.limits.html_depth:
            raise Unreadable("html_too_deep", limit=self.limits.html_depth)
        self.stack.append(name)
        self.open[name] += 1
        self.skipping += name in _SKIPPED
        self.keeping_space += name in _KEEPS_SPACE

    def end(self, name: str) -> None:
        if self.open[name]:
            while self._pop() != name:
                pass

    def close_all(self) -> None:
        while self.stack:
            self._pop()

    def _pop(self) -> str:
        name = self.stack.pop()
        self.open[name] -= 1
        if name in _CELLS:
            self.text(" ", decode=False)  # keep table cells apart on their row
        self.skipping -= name in _SKIPPED
        self.keeping_space -= name in _KEEPS_SPACE
        if name in _BLOCK_TAGS:
            self.soft_break()
        return name

    def _close_implied(self, closes: frozenset[str], across: frozenset[str]) -> None:
        for depth in range(1, min(_LOOK_DOWN, len(self.stack)) + 1):
            below = self.stack[-depth]
            if below in closes:
                for _ in range(depth):
                    self._pop()
                return
            if below not in across:
                return

    def rendered(self) -> str:
        return "\n".join(line.strip() for line in "".join(self.out).split("\n"))


def html_to_text(markup: str, limits: LimitsSection | None = None) -> str:
    """Render HTML as the text lines a reader would see."""
    page = _Renderer(limits or LimitsSection())
    pos = text_from = 0
    while (found := _MARKUP_START.search(markup, pos)) is not None:
        lt = found.start()
        after = _markup(markup, lt, page, text_from)
        if after is None:  # a "<" that starts no markup is text
            pos = lt + 1
            continue
        pos = text_from = after
    page.text(markup[text_from:])
    page.close_all()
    return page.rendered()


def _markup(markup: str, lt: int, page: _Renderer, text_from: int) -> int | None:
    """Read the markup at ``lt`` (a "<"), the text before it starting at ``text_from``;
    returns where the text after it starts, or None when the "<" starts no markup."""
    if markup.startswith("<!--", lt):
        end, skip = markup.find("-->", lt + 4), 3
    elif markup.startswith("<![CDATA[", lt):
        end, skip = markup.find("]]>", lt + 9), 3
    elif markup.startswith(("<!", "<?"), lt) or (markup.startswith("</", lt) and not
                                                markup[lt + 2:lt + 3].isalpha()):
        # a declaration, processing instruction or bogus comment: up to ">"
        end, skip = markup.find(">", lt + 2), 1
    else:
        return _tag(markup, lt, page, text_from)
    page.text(markup[text_from:lt])
    page.node()
    return len(markup) if end < 0 else end + skip


def _tag(markup: str, lt: int, page: _Renderer, text_from: int) -> int | None:
    tag = _TAG.match(markup, lt)
    if tag is None:
        return None
    page.text(markup[text_from:lt])
    if tag.group(3) is None:
        return len(markup)  # a tag never finished: a browser drops it and all after it
    name = tag.group(2).lower()
    if tag.group(1):
        page.end(name)
        return tag.end()
    page.start(name)
    return _content_of(markup, tag.end(), name, page)


def _content_of(markup: str, pos: int, name: str, page: _Renderer) -> int:
    """After a start tag: an element of raw text is read up to its end tag; ``pre`` and its
    kind drop the line break right after the tag, as browsers do."""
    if name in _KEEPS_SPACE and markup.startswith("\n", pos):
        pos += 1
    elif name in _KEEPS_SPACE and markup.startswith("\r\n", pos):
        pos += 2
    raw_end = _RAW_TEXT.get(name)
    if raw_end is None:
        return pos
    found = raw_end.search(markup, pos)
    end = len(markup) if found is None else found.start()
    page.text(markup[pos:end], decode=name in ("textarea", "title"))
    return end
