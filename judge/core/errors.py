"""How the pure core says no: one exception for bad input, one value for refused orders.

:class:`InputError` is the only exception that crosses the core's boundary: malformed input to
the JSON contract or to the position constructors.

:class:`OrderError` is the core's one refusal of an order, returned, never raised, so that a
mail reply can quote every bad line: the parser returns it for a line that is not an order,
and every check returns it for an order the board does not allow (``check_order``, the
legality of moves, supports, convoys, retreats and builds).  A function that can refuse
returns its answer or an ``OrderError``; one with nothing to answer returns ``None`` or an
``OrderError``.
"""

from __future__ import annotations

import msgspec


class InputError(ValueError):
    """Bad input to the core: the message is one line meant for a human."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OrderError(msgspec.Struct, frozen=True, gc=False):
    """A refused order: the line or order as written and why, in words fit for a mail reply;
    ``near``, for a misspelt province, the codes of the provinces it may have meant."""

    text: str
    message: str
    near: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.text}: {self.message}"
