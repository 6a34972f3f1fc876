"""Errors of the service layer.

:class:`GameError` refuses a request; its message is fit for a reply.  :class:`UnreadableState`
is a fault of the judge itself: it was about to store a game state it could not read back, so
the transaction is abandoned and the game stays as it was (see ``judge.service.faults``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


class GameError(Exception):
    pass


class CountedRefusal(GameError):
    """A refusal that must be counted although the refused command changes nothing (a wrong
    password): ``count`` records it in the session after the command's own work is undone."""

    def __init__(self, message: str, count: Callable[[Session], None]) -> None:
        super().__init__(message)
        self.count = count


class UnreadableState(RuntimeError):
    pass
