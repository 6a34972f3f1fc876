"""Where the writer's own words end: a closing (``Thanks!``, ``Regards, Frank``) or the
writer's name alone on the last line ends the reading as a signature does, rather than being
answered as an unknown command.

A closing is one of the phrases judge.mail.reading.sign_offs knows, alone on its line (a name may
follow it).  It ends the reading only when nothing meant for the judge comes after it -- no
command, no line that is plainly an order (judge.core.orders.reads_as_an_order), in the
hundred lines after it (judge.commands.parse.LOOKAHEAD) -- so that ``Thanks!`` above a SIGNON
loses nothing: such a closing is passed over and reading goes on.
A name is the mail's last line, one to three capitalised words (not capitals only), that does
not begin like an order (judge.core.orders.looks_like_an_order, a Formal order too: ``Paris``,
``Waive``, ``Sur``, but also ``Ed``, the beginning of Edinburgh), has no word orders are made
of (``Hold Kiel``) and is near no command's name (a misspelt ``Lsit`` is still answered with
LIST).

The map is not known while a mail is read (a SIGNON may come later): a line is an order's when
it is one on any variant's map.
"""

from __future__ import annotations

import re
from difflib import get_close_matches
from functools import cache
from typing import Callable

from judge.commands.registry import NEAR_COMMAND, all_commands, lookup
from judge.core import Map, load_map
from judge.core.formal.orders import parse_formal_order
from judge.core.orders import has_an_order_word, looks_like_an_order, reads_as_an_order
from judge.mail.reading.sign_offs import is_closing
from judge.service.games import VARIANTS

# One to three words, each a capital letter and small ones (an apostrophe or a hyphen between
# them), or an initial (``Frank``, ``Désiré``, ``O'Neill``, ``Frank M.``); not capitals only,
# which orders are written in (``DWO G``, ``SOI Ruhr``).
_WORD = r"(?:[^\W\d_a-z](?:[^\W\d_A-Z]+|\.)(?:['’-]?[^\W\d_A-Z]+)*)"
_NAME = re.compile(rf"^{_WORD}(?:\s+{_WORD}){{0,2}}$")


@cache
def variant_maps() -> tuple[Map, ...]:
    """The maps of the judge's variants, each once."""
    return tuple(dict.fromkeys(load_map(variant) for variant in VARIANTS))


@cache
def _command_words() -> tuple[str, ...]:
    return tuple(sorted({spec.words[0] for spec in all_commands()}))


def is_name(text: str) -> bool:
    """Whether a line is a name signing the mail (see the module's docstring)."""
    if len(text) > 40 or not _NAME.match(text) or begins_like_an_order(text):
        return False
    if any(has_an_order_word(m, text) for m in variant_maps()):
        return False
    first = text.split()[0].upper()
    return not get_close_matches(first, _command_words(), n=1, cutoff=NEAR_COMMAND)


def ends_reading(text: str, last: Callable[[], bool],
                 meant_after: Callable[[], bool]) -> bool | None:
    """Whether a line that is no command ends the reading (True), is passed over (None: a
    closing with commands after it) or is read (False); ``last()``: it is the mail's last
    line, ``meant_after()``: a line meant for the judge comes after it (:func:`meant`); each
    asked only when it matters."""
    if is_closing(text):
        return None if meant_after() else True
    return is_name(text) and last()


def meant(text: str) -> bool:
    """Whether a line (its comment removed) is meant for the judge: a command, or plainly an
    order."""
    if not text:
        return False
    if lookup(text.split()) is not None:
        return True
    return any(reads_as_an_order(m, text) or parse_formal_order(m, text) is not None
               for m in variant_maps())


def begins_like_an_order(text: str) -> bool:
    """Whether a line begins like an order (a Formal one included) on some variant's map,
    for a mail not signed on to a game yet."""
    return any(looks_like_an_order(m, text) or parse_formal_order(m, text) is not None
               for m in variant_maps())
