"""Leases on queue rows, and who holds them.

A worker or sender leases a row before working on it, so two daemons never take the same row.
A lease names its owner (``host:pid``); when a daemon starts it releases the leases of dead
processes on its own host at once, instead of waiting for them to expire, so a restart after a
crash picks up the interrupted work immediately.  Leases of other hosts just expire.
"""

from __future__ import annotations

import os
import socket
from functools import cache

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from judge.store.models import InboundMessage, OutboxMessage


@cache
def owner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def release_dead_leases(session: Session) -> int:
    """Clear leases held by processes of this host that no longer run; returns how many."""
    host = socket.gethostname()
    released = 0
    for model in (InboundMessage, OutboxMessage):
        owners = session.scalars(select(model.lease_owner).distinct()
                                 .where(model.lease_owner.is_not(None))).all()
        for owner in owners:
            owner_host, _, pid = owner.rpartition(":")
            if owner_host == host and pid.isdigit() and not _alive(int(pid)):
                released += session.execute(
                    update(model).where(model.lease_owner == owner)
                    .values(lease_until=None, lease_owner=None)).rowcount or 0
    return released
