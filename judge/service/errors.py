"""Errors of the service layer.

:class:`GameError` refuses a request.  It carries no words: a short ``code`` names the refusal
and ``facts`` hold the data it is about (names, numbers, the core's own message); the words are
the macro of that name in ``templates/refusals.txt``, rendered by the presentation side
(``judge.mail.writing.refusals``).  :class:`UnreadableState` is a fault of the judge itself: it was
about to store a game state it could not read back, so the transaction is abandoned and the
game stays as it was (see ``judge.service.faults``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


class GameError(Exception):
    """A refused request: ``code`` (snake_case) names the refusal, ``facts`` its data."""

    def __init__(self, code: str, **facts: Any) -> None:
        super().__init__(code)
        self.code = code
        self.facts = facts

    def __str__(self) -> str:
        # for logs and tracebacks only: a reply shows the refusal's template, never this
        given = ", ".join(f"{name}={value!r}" for name, value in self.facts.items())
        return f"{self.code}({given})"


class CountedRefusal(GameError):
    """A refusal that must be counted although the refused command changes nothing (a wrong
    password): ``count`` records it in the session after the command's own work is undone,
    and may return the refusal to answer with instead (None: this one).  ``if_undone``: the
    command counted it itself, and ``count`` is needed only when its work is undone (a
    command run in a savepoint of its own; an informational one runs without)."""

    def __init__(self, code: str, count: Callable[[Session], GameError | None],
                 if_undone: bool = False, **facts: Any) -> None:
        super().__init__(code, **facts)
        self.count = count
        self.if_undone = if_undone


class UnreadableState(RuntimeError):
    pass
