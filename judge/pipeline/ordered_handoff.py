"""Results that threads deliver in any order, taken by one consumer in their order.

The worker reads a batch of mail (the slow part: a first sign-on's password hash) on helper
threads while it writes, in arrival order, the messages already read (judge.pipeline.stages).  Each
reader puts what it made of the message at index ``i`` into slot ``i``; the writer takes slot
after slot, waiting when the next one is not there yet.  When the last reader has ended, every
slot still empty is filled with :class:`NotRead`, so the writer never waits for a reader that
died.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

T = TypeVar("T")


class NotRead(RuntimeError):
    """The slot's reader stopped before it got to it."""


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


EMPTY = _Marker("EMPTY")  # nothing put yet
NOT_YET = _Marker("NOT_YET")  # take(block=False): the next slot is not filled yet
DONE = _Marker("DONE")  # take(): every slot has been taken


class InOrder(Generic[T]):
    """``count`` slots, filled with :meth:`put` by readers, taken with :meth:`take` in order."""

    def __init__(self, count: int) -> None:
        self._slots: list[T | _Marker | NotRead] = [EMPTY] * count
        self._next = 0
        self._readers = 0
        self._changed = threading.Condition()

    def put(self, index: int, value: T) -> None:
        with self._changed:
            self._slots[index] = value
            self._changed.notify_all()

    def reader_started(self) -> None:
        with self._changed:
            self._readers += 1

    def reader_ended(self) -> None:
        """A reader is done (or died); once none is left, the empty slots say so."""
        with self._changed:
            self._readers -= 1
            if self._readers == 0:
                for index in range(self._next, len(self._slots)):
                    if self._slots[index] is EMPTY:
                        self._slots[index] = NotRead("its reader stopped before reading it")
                self._changed.notify_all()

    def take(self, block: bool = True) -> T | NotRead | _Marker:
        """The next slot's value; :data:`DONE` after the last; with ``block=False``,
        :data:`NOT_YET` when the next slot is still empty."""
        with self._changed:
            while True:
                if self._next == len(self._slots):
                    return DONE
                value = self._slots[self._next]
                if value is not EMPTY:
                    self._slots[self._next] = EMPTY  # the taker owns it now
                    self._next += 1
                    return value
                if not block:
                    return NOT_YET
                self._changed.wait()
