"""Turn the lines of a mail body into commands and other lines, keeping line numbers.

Parsing needs no state: a line whose first words name a registered command is a command (its
``text``, the line as quoted back, shows its passwords as ``****``); any other non-empty line is
kept as an :class:`OtherLine` for the executor to read as an order
(after a SIGNON as a power) or to refuse.  ``//`` starts a comment.  A block command (PRESS,
POSITION …) swallows the lines up to its end word, which are its text, never commands.

Of the lines that are no command, those the judge wrote itself (its results and replies pasted
or quoted back, judge.mail.reading.own_lines) are :class:`JudgeLine` items, never executed; a closing
or the writer's name ends the reading as a signature does (judge.commands.endings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from judge.commands.endings import ends_reading, meant
from judge.commands.registry import CommandSpec, lookup, password_words
from judge.mail.reading.own_lines import CERTAIN, NOT, JudgeLines, may_be_judges
from judge.mail.reading.template_shapes import TEMPLATE_WORDS


@dataclass(frozen=True)
class Command:
    line_no: int
    text: str                      # the line as read (comment removed, passwords as ****)
    spec: CommandSpec
    args: tuple[str, ...]          # the words after the command's name
    rest: str                      # the text after the command's name, spacing kept
    block: tuple[str, ...] = ()    # the lines of a block command, without the end line
    unterminated: bool = False     # the block's end word never came
    secret: frozenset[int] = frozenset()  # the positions in ``args`` of its passwords

    def shown(self, index: int) -> str:
        """``args[index]`` as an answer may repeat it: ``****`` where it is a password."""
        return MASK if index in self.secret else self.args[index]


@dataclass(frozen=True)
class OtherLine:
    line_no: int
    text: str


@dataclass(frozen=True)
class JudgeLine:
    """A line the judge wrote itself, pasted or quoted back into the mail: not executed, not
    answered; the reply says how many there were."""

    line_no: int
    text: str


Item = Command | OtherLine | JudgeLine

# A password as any quoted line shows it.
MASK = "****"
# How many lines after a closing are looked at for a command or an order (judge.commands.
# endings): past them, the closing ends the reading.
LOOKAHEAD = 100


# How many words after a command's name are read for its passwords where a text that is no
# command line is searched for them (mask_passwords): more than any command takes.
_WINDOW = 64
# How many commands that take passwords are looked at in one such text; every word after the
# last is hidden.  A subject or a line names one or two; a text of thousands (a hostile one)
# is searched in a time that does not grow with them.
_MOST_COMMANDS = 50


def mask_passwords(text: str) -> str:
    """``text`` (a mail's subject, a line that is no command) with every password the judge
    can recognise in it shown as ``****``: wherever a run of its words names a command that
    takes passwords (``Re: SIGNON Fwar1901 secret``), the words that command's line would
    show as ``****``.  Unchanged when it has none."""
    words = text.split()
    first_words = password_words()
    hidden: set[int] = set()
    looked_at = 0
    for start, word in enumerate(words):
        if word.upper() not in first_words:
            continue
        looked_at += 1
        if looked_at > _MOST_COMMANDS:
            hidden.update(range(start, len(words)))
            break
        if _hide_passwords(words, start, hidden):
            break
    if not hidden:
        return text
    return " ".join(MASK if n in hidden else word for n, word in enumerate(words))


def _hide_passwords(words: list[str], start: int, hidden: set[int]) -> bool:
    """Add to ``hidden`` the passwords of the command ``words[start:]`` names, if any; True
    when every word to the end is hidden."""
    window = words[start:start + _WINDOW]
    found = lookup(window)
    if found is None:
        return False
    spec, used = found
    args = tuple(window[used:])
    secret = spec.secret_positions(args)
    hidden.update(start + used + k for k in secret)
    if secret and max(secret) == len(args) - 1 and start + _WINDOW < len(words):
        # hidden up to the window's end: the command hides the rest too (a password of
        # several words); the window only kept the search short
        hidden.update(range(start + _WINDOW, len(words)))
        return True
    return False


def names_a_command(text: str) -> bool:
    """Whether ``text`` begins as a command line does."""
    return lookup(text.split()[:_WINDOW]) is not None


def strip_comment(line: str) -> str:
    return line.split("//", 1)[0].strip()


@dataclass
class _Others:
    """What is known of a mail's lines once one that is no command is met (most mails have
    none): which the judge wrote, which is the last, and which are meant for the judge; each
    worked out only as far down the mail as it is asked for."""

    lines: Sequence[str]
    _judge: JudgeLines | None = None
    _last: int | None = None
    # the lines meant for the judge found so far, and the first line not yet looked at:
    # lines are looked at once each, going forward, and only past a closing
    _meant: list[int] = field(default_factory=list)
    _looked: int = 0

    def judge(self, i: int) -> int:
        if self._judge is None:
            self._judge = JudgeLines(self.lines)
        return self._judge[i]

    def _is_last(self, i: int) -> bool:
        if self._last is None:
            self._last = max(k for k, line in enumerate(self.lines) if strip_comment(line))
        return i == self._last

    def _meant_after(self, i: int) -> bool:
        """Whether a line meant for the judge comes after line ``i``, within LOOKAHEAD lines
        that are not blank (after a closing, a page of other lines is a signature's)."""
        if self._meant and self._meant[-1] > i:
            return True
        seen = 0
        for k in range(max(self._looked, i + 1), len(self.lines)):
            self._looked = k + 1
            text = strip_comment(self.lines[k])
            if not text:
                continue
            if meant(text) and self.judge(k) == NOT:
                self._meant.append(k)
                return True
            seen += 1
            if seen >= LOOKAHEAD:
                break
        return False

    def _ends(self, i: int, text: str) -> bool | None:
        """judge.commands.endings.ends_reading for line ``i``."""
        return ends_reading(text, lambda: self._is_last(i), lambda: self._meant_after(i))

    def item(self, i: int, text: str) -> Item | None:
        """The item for line ``i`` (an index), ``text`` without its comment: the judge's own
        line, or a line to read; None for a closing passed over (judge.commands.endings)."""
        if self.judge(i) != NOT:
            return JudgeLine(i + 1, text)
        return None if self._ends(i, text) is None else OtherLine(i + 1, text)

    def ends_reading(self, i: int, text: str) -> bool:
        """Whether the writer's own words end at line ``i``: nothing from it on is read."""
        return self.judge(i) == NOT and self._ends(i, text) is True


def read_items(lines: list[str] | tuple[str, ...], limit: int | None = None) -> list[Item]:
    """The mail's lines as items.  With ``limit``, the lines after the one that makes
    ``limit`` items to execute are only told apart as commands and other lines (they are not
    executed, only counted): which of them the judge wrote, or where a signature is, costs
    nothing then."""
    items: list[Item] = []
    others = _Others(lines)
    executed = 0
    i = 0
    while i < len(lines):
        line_no, text = i + 1, strip_comment(lines[i])
        i += 1
        if not text:
            continue
        reading = limit is None or executed < limit
        tokens = text.split()
        found = lookup(tokens)
        if found is None:
            if reading and others.ends_reading(line_no - 1, text):
                break
            item = others.item(line_no - 1, text) if reading else OtherLine(line_no, text)
            if item is not None:
                items.append(item)
                executed += not isinstance(item, JudgeLine)
            continue
        spec, used = found
        # a line certainly the judge's has more words than TEMPLATE_WORDS of the judge's: a
        # short command (VERSION, SIGNON Fwar1901 pw) is not looked at, nor the shapes learnt
        if reading and len(tokens) > TEMPLATE_WORDS and may_be_judges(tokens[0]) and \
                others.judge(line_no - 1) == CERTAIN:
            items.append(JudgeLine(line_no, _masked(text, tokens, spec, used)))
            continue
        executed += 1
        i, command = _command(lines, i, line_no, text, spec, used)
        items.append(command)
        if spec.stops_reading:
            break
    return items


def _command(lines: Sequence[str], i: int, line_no: int, text: str, spec: CommandSpec,
             used: int) -> tuple[int, Command]:
    """The command of line ``line_no`` (``i``, the index of the line after it) and the index
    of the line after it: a block command takes the lines up to its end word."""
    tokens = text.split()
    block: list[str] = []
    unterminated = False
    if spec.block_end:
        end = spec.block_end.upper()
        while i < len(lines) and lines[i].strip().upper() != end:
            block.append(lines[i].rstrip())
            i += 1
        if i < len(lines):
            i += 1  # the end line itself
        else:
            unterminated = True
    secret = frozenset(spec.secret_positions(tuple(tokens[used:])))
    return i, Command(line_no, _masked(text, tokens, spec, used), spec, tuple(tokens[used:]),
                      _after_words(text, used), tuple(block), unterminated, secret)


def _masked(text: str, tokens: list[str], spec: CommandSpec, used: int) -> str:
    """The line as quoted back: the command's passwords as ``****``."""
    secret = spec.secret_positions(tuple(tokens[used:]))
    if not secret:
        return text
    hidden = {used + k for k in secret}
    return " ".join(MASK if n in hidden else t for n, t in enumerate(tokens))


def _after_words(text: str, count: int) -> str:
    rest = text
    for _ in range(count):
        first_and_rest = rest.lstrip().split(None, 1)
        rest = first_and_rest[1] if len(first_and_rest) > 1 else ""
    return rest.strip()


def trailing_option(args: tuple[str, ...], word: str, least: int
                    ) -> tuple[tuple[str, ...], str | None]:
    """``args`` without a trailing ``<word> <value>`` (``PRIVACY secret``), and the value.

    Only read when ``least`` words stay before it, so a game name or a password may itself
    be the word."""
    if len(args) >= least + 2 and args[-2].upper() == word.upper():
        return args[:-2], args[-1]
    return args, None
