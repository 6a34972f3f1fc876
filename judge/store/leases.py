"""Leases on queue rows, and who holds them.

A worker or sender leases a row before working on it, so two daemons never take the same row.
A lease names its owner: ``host:pid:token``, the token drawn afresh at every process start.
The pid alone does not tell one start from the next: in a container the restarted daemon
usually gets the very pid of the one that died (and the daemon's worker process may get the pid
its daemon had before, or the other way round).  When a daemon starts it releases at once
(instead of waiting for them to expire) the leases of its host held by a process that no longer
runs, or by an earlier start with its own pid, so a restart after a crash picks up the
interrupted work immediately.  Leases of other hosts just expire.
"""

from __future__ import annotations

import os
import secrets
import socket
from functools import cache
from typing import Any, Iterable, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from judge.store.models import InboundMessage, OutboxMessage


@cache
def _token(pid: int) -> str:
    # Keyed on the pid so that a forked child (same memory, new pid) draws its own.
    return secrets.token_hex(8)


def owner_id() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_token(pid)}"


def _parse(owner: str) -> tuple[str, int | None, str]:
    """(host, pid, token) of ``host:pid:token`` (or of the older ``host:pid``)."""
    rest, _, last = owner.rpartition(":")
    if last.isdigit():  # host:pid
        return rest, int(last), ""
    host, _, pid = rest.rpartition(":")
    return host, int(pid) if pid.isdigit() else None, last


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether the process has died but not been reaped (Linux; elsewhere: no).  A killed
    daemon's worker process is reparented, and in a container whose first process reaps nobody
    it stays a zombie: still "there" for kill(0), but holding nothing."""
    try:
        stat = open(f"/proc/{pid}/stat", "rb").read()
    except OSError:
        return False
    return stat.rpartition(b")")[2].split()[:1] == [b"Z"]


def release_dead_leases(session: Session, holding_none: Iterable[int] = ()) -> int:
    """Clear leases held by processes of this host that no longer run (or by an earlier start
    that had this process's pid, or one of the pids ``holding_none``: processes that take no
    leases, such as the daemon whose worker process calls this); returns how many."""
    host, me, mine = socket.gethostname(), os.getpid(), owner_id()
    reused = {me, *holding_none}
    released = 0
    for model in (InboundMessage, OutboxMessage):
        owners = session.scalars(select(model.lease_owner).distinct()
                                 .where(model.lease_owner.is_not(None))).all()
        for owner in filter(None, owners):
            owner_host, pid, _ = _parse(owner)
            if owner_host != host or pid is None or owner == mine:
                continue
            if pid in reused or not _alive(pid):
                result = session.execute(update(model).where(model.lease_owner == owner)
                                         .values(lease_until=None, lease_owner=None))
                released += cast(CursorResult[Any], result).rowcount or 0
    return released
