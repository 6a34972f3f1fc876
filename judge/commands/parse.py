"""Turn the lines of a mail body into commands and other lines, keeping line numbers.

Parsing needs no state: a line whose first words name a registered command is a command (its
``text``, the line as quoted back, shows its passwords as ``****``); any other non-empty line is
kept as an :class:`OtherLine` for the executor to read as an order
(after a SIGNON as a power) or to refuse.  ``//`` starts a comment.  A block command (PRESS,
POSITION …) swallows the lines up to its end word, which are its text, never commands.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.commands.registry import CommandSpec, lookup, password_words


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


Item = Command | OtherLine

# A password as any quoted line shows it.
MASK = "****"


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


def read_items(lines: list[str] | tuple[str, ...]) -> list[Item]:
    items: list[Item] = []
    i = 0
    while i < len(lines):
        line_no, text = i + 1, strip_comment(lines[i])
        i += 1
        if not text:
            continue
        tokens = text.split()
        found = lookup(tokens)
        if found is None:
            items.append(OtherLine(line_no, text))
            continue
        spec, used = found
        rest = _after_words(text, used)
        secret = frozenset(spec.secret_positions(tuple(tokens[used:])))
        if secret:
            hidden = {used + k for k in secret}
            text = " ".join(MASK if n in hidden else t for n, t in enumerate(tokens))
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
        items.append(Command(line_no, text, spec, tuple(tokens[used:]), rest,
                             tuple(block), unterminated, secret))
        if spec.stops_reading:
            break
    return items


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
