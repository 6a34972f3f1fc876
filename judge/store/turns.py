"""Taking turns at SQLite's write lock between the daemon's two processes.

SQLite lets one writer at a time hold the lock and keeps no queue: a writer that finds it
taken tries again later, and one that commits and begins again at once keeps it.  The
worker (judge.daemon.worker_process) does most of its work inside write transactions of tens of
milliseconds, back to back, so while it had work intake's commits, each a fraction of a
millisecond but holding up an SMTP session's 250, waited behind it time after time.

So intake says when it is waiting (the daemon sends a byte to the worker process, which calls
:meth:`WriteTurns.asked`), the worker ends its write transaction after the message in hand
(:meth:`asked_for`) and lets intake commit before it begins another (:meth:`wait_turn`), and
intake's commit, when it is through, gives the lock back (:meth:`given_back`).  A turn is
bounded (``MAX_WAIT``) so that a lost message between the processes cannot stop the worker.
On PostgreSQL none of this is needed: writers of different rows do not wait for each other.
"""

from __future__ import annotations

import threading

# The longest the worker waits for intake to commit before it begins a transaction anyway.
MAX_WAIT = 0.02


class WriteTurns:
    """Whether intake waits for the write lock; thread-safe."""

    def __init__(self) -> None:
        self._free = threading.Event()
        self._free.set()

    def asked(self) -> None:
        """Intake is waiting for the lock."""
        self._free.clear()

    def given_back(self) -> None:
        """Intake has committed."""
        self._free.set()

    def asked_for(self) -> bool:
        """True while intake waits: a writer should commit what it has and step aside."""
        return not self._free.is_set()

    def wait_turn(self) -> None:
        """Before beginning a write transaction: let a waiting intake commit first.  A request
        not given back within ``MAX_WAIT`` lapses (its answer was lost, say)."""
        if not self._free.wait(MAX_WAIT):
            self._free.set()
