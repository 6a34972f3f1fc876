"""Exceptions of the pure core.

Only :class:`InputError` crosses the core's boundary as an exception: it reports malformed
input to the JSON contract (§3.3) or to the position constructors.  Order mistakes are *not*
exceptions — the parser returns :class:`judge.core.orders.OrderError` values so that a mail
reply can quote every bad line.
"""


class InputError(ValueError):
    """Bad input to the core: the message is one line meant for a human."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
