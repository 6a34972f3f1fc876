"""Answering a line that is neither a command nor an order: name the nearest command.

A line whose first word is no command and does not begin like an order (judge.core.orders.
looks_like_an_order) is a mistyped or unknown command, whether or not the mail has signed on
(before any SIGNON, a line that does begin like an order is told to sign on first):
``LSIT`` is answered with the nearest command's name, LIST (difflib's similarity ratio: the
standard library's fuzzy match, nothing to maintain), and ``SET VACATION`` -- a known first
word with an unknown rest -- with the words that may follow ``SET``.  The line is quoted back
with the passwords of the command it was meant to be masked, and those of any command written
further on in it (judge.commands.parse.mask_passwords).
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import get_close_matches

from judge.commands.context import Context
from judge.commands.endings import begins_like_an_order
from judge.commands.parse import MASK, OtherLine, mask_passwords
from judge.commands.registry import NEAR_COMMAND, all_commands, lookup
# The longest word the answer repeats as written.
_LONGEST_WORD = 40


@dataclass(frozen=True)
class UnknownCommand:
    """What the reply says about an unknown command line."""

    written: str               # the words read as the command, as the sender wrote them
    known: str                 # the known words it starts with ("SET"), or ""
    options: tuple[str, ...]   # what may follow ``known``
    suggestion: str | None     # the nearest command, if one is near enough


def unknown_command(text: str) -> UnknownCommand:
    words = text.split()
    names = [spec.words for spec in all_commands()]  # aliases are not offered
    known = _known_prefix(words, names)
    following = [n[len(known):] for n in names if n[:len(known)] == known and len(n) > len(known)]
    options = tuple(" ".join(rest) for rest in following)
    wrong = words[len(known)] if len(words) > len(known) else ""
    near = get_close_matches(wrong.upper(), sorted({rest[0] for rest in following}), n=1,
                             cutoff=NEAR_COMMAND)
    suggestion = " ".join((*known, near[0])) if near else None
    if not known:
        options = ()
    written = " ".join(words[:len(known) + 1])
    if len(written) > _LONGEST_WORD:  # no command is; the line is quoted above anyway
        written = written[:_LONGEST_WORD] + "…"
    return UnknownCommand(written, " ".join(known), options, suggestion)


def _known_prefix(words: list[str], names: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The first word, when it begins a command of several words (``SET``), else ``()``."""
    first = words[0].upper() if words else ""
    return (first,) if any(len(n) > 1 and n[0] == first for n in names) else ()


def answer_unknown(ctx: Context, line: OtherLine, *, signed_on: bool) -> None:
    """Answer ``line`` as an unknown command (templates/unknown_command.txt); before any
    SIGNON, a line that begins like an order is told to sign on first."""
    unknown = unknown_command(line.text)
    order = not signed_on and begins_like_an_order(line.text)
    ctx.answer(line.line_no, _masked(line.text, unknown),
               ctx.render("unknown_command.txt", unknown=unknown, signed_on=signed_on,
                          order=order).rstrip("\n"), ok=False)


def _masked(text: str, unknown: UnknownCommand) -> str:
    """The line as quoted back: when the command it was meant to be takes passwords
    (``SET PASWORD secret``), those words are shown as ``****`` as that command's would be;
    so are those of a command written further on in the line (``please SIGNON Fg secret``)."""
    meant = unknown.suggestion.split() if unknown.suggestion else []
    found = lookup(meant) if meant else None
    words = text.split()
    if found is not None and len(words) > len(meant):
        spec, used = found
        hidden = {used + k for k in spec.secret_positions(tuple(words[used:]))}
        if hidden:
            text = " ".join(MASK if n in hidden else w for n, w in enumerate(words))
    return mask_passwords(text)
