#!/usr/bin/env python3
"""Deadline benchmark: finding due games, and processing them with their results mail.

Usage::

    .venv/bin/python benchmarks/deadlines.py [--games 1000,10000] [--due 200] [--runs 3]

For each total in ``--games`` a fresh SQLite store gets that many active games (standard
board, seven players each), of which ``--due`` have a deadline in the past; the rest are due
in a day.  It prints

* the time to find the due games (``judge.service.clock.scheduler.due_games``, best of 20) and the
  SQLite query plan, which must use the ``ix_games_next_event`` index: the time depends on
  the number of due games, not on the number of games that are not due;
* games processed per second by one scheduler pass (``run_due``: lock, adjudicate with
  civil-disorder defaults, snapshot, next clock, results mail rendered and queued in the
  outbox; on SQLite several games to a transaction, a savepoint each), and the seconds the
  ``--due`` games took (the median of ``--runs`` runs, each on a fresh store).

Not part of the test run; prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from sqlalchemy import func, insert, select, text

from judge.basics.utc import utcnow
from judge.basics.config import Config
from judge.core import initial_position, load_map
from judge.mail.writing.compose import Composer
from judge.mail.writing.game_mail import queue_events
from judge.service.positions import dump_position
from judge.service.clock.scheduler import due_games, run_due
from judge.store.db import Store
from judge.store.models import Game, OutboxMessage, Seat
from judge.store.schema import ensure_schema

FAKE_HASH = "scrypt$16384$8$1$AAAA$AAAA"  # never checked here


def build(path: Path, games: int, due: int) -> Store:
    store = Store(f"sqlite:///{path}")
    ensure_schema(store.engine)
    m = load_map()
    position = dump_position(initial_position(m))
    now = utcnow()
    rows = []
    for i in range(games):
        rows.append(dict(id=i + 1, name=f"g{i}", name_key=f"g{i}", variant="standard",
                         state="active", phase="S1901M", position=position, rules="",
                         movement_seconds=86400, retreat_seconds=86400,
                         adjustment_seconds=86400, grace_seconds=0, clock_stage=1,
                         deadline=now, reminder_at=now, version=0, created_at=now,
                         next_event_at=now + timedelta(days=1)))
    # spread the due games evenly through the table
    step = games // due
    for k in range(due):
        rows[k * step]["next_event_at"] = now - timedelta(minutes=1)
        rows[k * step]["deadline"] = now - timedelta(minutes=1)
    seats = [dict(game_id=g + 1, kind="power", power=p, address=f"{p.lower()}{g}@example.org",
                  password_hash=FAKE_HASH, wait=False, orders="{}", status="active",
                  joined_at=now, confirmed_at=now)
             for g in range(games) for p in m.powers]
    with store.transaction() as s:
        s.execute(insert(Game), rows)
        s.execute(insert(Seat), seats)
    return store


def run(games: int, due: int, verbose: bool = True) -> float:
    """One pass over a fresh store; returns the seconds ``run_due`` took."""
    with tempfile.TemporaryDirectory() as tmp:
        store = build(Path(tmp) / "judge.db", games, due)
        now = utcnow()
        best = float("inf")
        for _ in range(20):
            with store.transaction() as s:
                t = time.perf_counter()
                found = due_games(s, now, limit=due + 1000)
                best = min(best, time.perf_counter() - t)
        assert len(found) == due, (len(found), due)
        with store.engine.connect() as conn:
            plan = conn.execute(text(
                "EXPLAIN QUERY PLAN SELECT id FROM games WHERE next_event_at <= :n "
                "ORDER BY next_event_at LIMIT 100"), {"n": now}).fetchall()
        config = Config()
        composer = Composer(config)
        t = time.perf_counter()
        done = run_due(store, now, lambda s, ev: queue_events(s, composer, config, ev, now),
                       limit=due)
        elapsed = time.perf_counter() - t
        with store.transaction() as s:
            mails = s.scalar(select(func.count()).select_from(OutboxMessage))
            left = len(due_games(s, now, limit=due + 1000))
        store.dispose()
    if verbose:
        print(f"{games:>6} games, {due} due: find due {best * 1000:7.3f} ms   "
              f"plan: {plan[0][-1]}")
        print(f"{'':>6}   processed {done} in {elapsed:.2f} s = {done / elapsed:6.1f} games/s "
              f"({mails} results mails queued; {left} still due)")
    return elapsed


def measure(games: int = 1000, due: int = 200, runs: int = 3, verbose: bool = True) -> float:
    """The median seconds to process ``due`` games with their results mail."""
    return statistics.median(run(games, due, verbose) for _ in range(runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="1000,10000")
    ap.add_argument("--due", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    for n in (int(x) for x in args.games.split(",")):
        seconds = measure(n, args.due, args.runs)
        print(f"{n:>6} games: {args.due} due games mailed in {seconds:.2f} s (target < 4 s)   "
              f"[median of {args.runs}]")


if __name__ == "__main__":
    main()
