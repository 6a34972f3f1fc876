"""A restart that reuses the dead daemon's pid (the usual case in a container) picks up the
message the dead one had leased at once, instead of waiting for the lease to run out."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from datetime import timedelta
from pathlib import Path

from conftest import JUDGE_EXE, RunningJudge, free_port, judge_env, make_mail, process_gone
from judge.basics.utc import utcnow
from judge.mail.intake.accept import Arrival, message_id_of, store_arrivals
from judge.store.db import Store
from judge.store.leases import owner_id, release_dead_leases
from judge.store.models import InboundMessage
from judge.store.schema import ensure_schema


def lease(store: Store, sender: str, owner: str) -> None:
    """A message stored and leased (for five minutes) by ``owner``, as if it died on it."""
    raw = make_mail("VERSION", sender=sender).as_bytes()
    store_arrivals(store, [Arrival("judge@example.org", sender, raw, message_id_of(raw))])
    with store.transaction() as s:
        row = s.query(InboundMessage).filter_by(envelope_sender=sender).one()
        row.attempts, row.lease_owner = 1, owner
        row.lease_until = utcnow() + timedelta(minutes=5)


def test_a_restart_with_the_same_pid_takes_back_the_dead_ones_leases(tmp_path: Path,
                                                                    migrated_db_url: str):
    db_url = migrated_db_url
    store = Store(db_url)
    ensure_schema(store.engine)
    port = free_port()
    judge = RunningJudge(tmp_path, port, judge_env(tmp_path, port, db_url))
    go = tmp_path / "go"
    # The shell waits for the go-ahead, then becomes the judge: its pid is the judge's.
    judge.proc = subprocess.Popen(
        ["sh", "-c", 'while [ ! -e "$1" ]; do sleep 0.02; done; exec "$0" serve', JUDGE_EXE,
         str(go)], env=judge.env, cwd=tmp_path, stdout=open(judge.log_path, "ab"),
        stderr=subprocess.STDOUT)
    try:
        host, pid = socket.gethostname(), judge.proc.pid
        lease(store, "old-style@example.org", f"{host}:{pid}")  # owner as written before
        lease(store, "earlier-start@example.org", f"{host}:{pid}:0123456789abcdef")
        go.touch()
        replies = {str(m["To"]) for m in judge.wait_replies(2)}
        assert replies == {"old-style@example.org", "earlier-start@example.org"}
        assert "took back 2 message(s)" in judge.log()
    finally:
        judge.proc.send_signal(signal.SIGKILL)
        judge.proc.wait(10)
        store.dispose()


def test_leases_of_this_process_and_of_live_others_are_kept(store: Store) -> None:
    host = socket.gethostname()
    live = subprocess.Popen(["sleep", "30"])
    try:
        lease(store, "mine@example.org", owner_id())
        lease(store, "live@example.org", f"{host}:{live.pid}:feedfacefeedface")
        lease(store, "elsewhere@example.org", "another-host:1:feedfacefeedface")
        with store.transaction() as s:
            assert release_dead_leases(s) == 0
        live.kill()
        live.wait()
        with store.transaction() as s:
            assert release_dead_leases(s) == 1
            owners = {r.envelope_sender: r.lease_owner for r in s.query(InboundMessage)}
        assert owners == {"mine@example.org": owner_id(), "live@example.org": None,
                          "elsewhere@example.org": "another-host:1:feedfacefeedface"}
    finally:
        live.kill()
        live.wait()


def test_the_owner_names_the_process_start() -> None:
    host, pid, token = owner_id().rsplit(":", 2)
    assert host == socket.gethostname() and pid.isdigit() and len(token) == 16
    assert owner_id() == owner_id()


def test_leases_in_the_name_of_a_pid_known_to_hold_none_are_taken_back(store: Store) -> None:
    """A restarted worker process takes back leases in its daemon's pid: the daemon takes none,
    so one in its name is an earlier start's (a container restart may swap the pids)."""
    host = socket.gethostname()
    live = subprocess.Popen(["sleep", "30"])
    try:
        lease(store, "a@example.org", f"{host}:{live.pid}:feedfacefeedface")
        with store.transaction() as s:
            assert release_dead_leases(s) == 0
            assert release_dead_leases(s, holding_none=[live.pid]) == 1
    finally:
        live.kill()
        live.wait()


def test_leases_of_a_dead_but_unreaped_process_are_taken_back(store: Store) -> None:
    """A killed daemon's worker process is reparented; where nobody reaps it (a container's
    first process may not), it stays a zombie: dead, though kill(0) still finds it."""
    host = socket.gethostname()
    dead = subprocess.Popen(["true"])
    try:
        deadline = time.monotonic() + 10
        while not process_gone(dead.pid):  # exited, not reaped: a zombie
            assert time.monotonic() < deadline
            time.sleep(0.01)
        os.kill(dead.pid, 0)  # still "there"
        lease(store, "z@example.org", f"{host}:{dead.pid}:feedfacefeedface")
        with store.transaction() as s:
            assert release_dead_leases(s) == 1
    finally:
        dead.wait()
