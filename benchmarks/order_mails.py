#!/usr/bin/env python3
"""Order-mail benchmark: how many ``SIGNON`` + orders mails the worker answers a second.

Usage::

    .venv/bin/python benchmarks/order_mails.py [--games 10] [--rounds 3] [--runs 3]

A fresh SQLite store gets ``--games`` active standard games in Spring 1901 with seven players
each, every seat with a real scrypt password hash of its own at the judge's *default* cost
(2^14; the benchmark clears ``JUDGE_PASSWORD_COST`` before importing the judge).  Six powers of
each game then mail ``SIGNON`` and an order for each of their units (3 or 4 lines) from their
own address, ``--rounds`` times over (players revise their orders); one power stays silent so
no phase is processed.  The mails are stored as intake stores them, then the daemon worker's
own step (``judge.pipeline.worker.work_batch`` with the mail pipeline; ``process_pending`` in a
judge without it) runs until none is left.  Printed: mails per second over all rounds, and
apart the first round (each seat's
first sign-on: a full password check) and the later ones (the seat signed on minutes ago).
Each run uses a fresh store and forgets what earlier runs checked; the figures are the median
of ``--runs`` runs.

Not part of the test run; prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

if not os.environ.get("ORDER_BENCH_KEEP_COST"):
    os.environ.pop("JUDGE_PASSWORD_COST", None)  # the default cost, as in production

from sqlalchemy import func, insert, select  # noqa: E402

from judge.basics.utc import utcnow  # noqa: E402
from judge.basics.config import Config, JudgeSection  # noqa: E402
from judge.core import initial_position, load_map  # noqa: E402
from judge.mail.intake.accept import Arrival, store_arrivals  # noqa: E402
from judge.pipeline.stages import Pipeline  # noqa: E402
from judge.pipeline import worker  # noqa: E402
from judge.service.access import passwords  # noqa: E402
from judge.service.positions import dump_position  # noqa: E402
from judge.store.db import Store  # noqa: E402
from judge.store.models import Game, InboundMessage, Seat  # noqa: E402
from judge.store.schema import ensure_schema  # noqa: E402

JUDGE = "judge@example.org"
PASSWORD = "secret"


def build(path: Path, games: int, hashes: list[str]) -> tuple[Store, list[str]]:
    """The store with its games and seats, and the order mails' raw texts of one round."""
    store = Store(f"sqlite:///{path}")
    ensure_schema(store.engine)
    m = load_map()
    start = initial_position(m)
    position = dump_position(start)
    now = utcnow()
    rows = [dict(id=g + 1, name=f"g{g}", name_key=f"g{g}", variant="standard", state="active",
                 phase="S1901M", position=position, rules="", movement_seconds=86400,
                 retreat_seconds=86400, adjustment_seconds=86400, grace_seconds=0,
                 clock_stage=1, deadline=now, reminder_at=now, version=0, created_at=now,
                 next_event_at=None) for g in range(games)]
    powers = sorted(m.powers)
    seats = [dict(game_id=g + 1, kind="power", power=p, address=f"{p.lower()}{g}@example.org",
                  password_hash=hashes[g * len(powers) + i], wait=False, orders="{}",
                  status="active", joined_at=now, confirmed_at=now)
             for g in range(games) for i, p in enumerate(powers)]
    with store.transaction() as s:
        s.execute(insert(Game), rows)
        s.execute(insert(Seat), seats)
    texts = []
    for g in range(games):
        for p in powers[:-1]:  # one power stays silent: no phase is processed
            orders = [f"{u.code} H" for u in start.units_of(p)]
            texts.append(f"{p.lower()}{g}@example.org\n"
                         f"SIGNON {m.powers[p].letter}g{g} {PASSWORD}\r\n"
                         + "\r\n".join(orders) + "\r\nSIGNOFF\r\n")
    return store, texts


def arrivals(texts: list[str], round_no: int) -> list[Arrival]:
    out = []
    for i, text in enumerate(texts):
        sender, body = text.split("\n", 1)
        msgid = f"<order-{round_no}-{i}-{time.time_ns()}@example.org>"
        raw = (f"From: {sender}\r\nTo: {JUDGE}\r\nSubject: orders\r\n"
               f"Date: Thu, 01 Jan 2026 00:00:00 +0000\r\nMessage-ID: {msgid}\r\n"
               f"Content-Type: text/plain; charset=us-ascii\r\n\r\n{body}")
        out.append(Arrival(JUDGE, sender, raw.encode(), msgid))
    return out


def work_all(store: Store, config: Config, pipeline: Pipeline) -> int:
    """Process every waiting mail as the daemon's worker does; returns how many."""
    if not hasattr(worker, "work_batch"):
        return worker.process_pending(store, config, pipeline)
    done = 0
    while True:
        claimed = worker.work_batch(store, config, pipeline)
        if not claimed:
            return done
        done += claimed


def forget_checks() -> None:
    """A fresh process's state: nothing checked yet (when the judge keeps such a memory)."""
    forget = getattr(passwords, "forget_checks", None)
    if forget is not None:
        forget()


def one_run(games: int, rounds: int, hashes: list[str]) -> list[tuple[int, float]]:
    """(mails, seconds) of each round."""
    forget_checks()
    out = []
    with tempfile.TemporaryDirectory(prefix="judge-orders-") as tmp:
        store, texts = build(Path(tmp) / "judge.db", games, hashes)
        config = Config(judge=JudgeSection(address=JUDGE, replies_per_day=100_000))
        pipeline = Pipeline(config)
        for r in range(rounds):
            store_arrivals(store, arrivals(texts, r))
            t = time.perf_counter()
            done = work_all(store, config, pipeline)
            out.append((done, time.perf_counter() - t))
        with store.reading() as s:
            ok = s.scalar(select(func.count()).select_from(InboundMessage)
                          .where(InboundMessage.status == "done"))
            ordered = s.scalar(select(func.count()).select_from(Seat).where(Seat.orders != "{}"))
        store.dispose()
        if ok != len(texts) * rounds or ordered != len(texts):
            print(f"  warning: {ok} mails done of {len(texts) * rounds}, "
                  f"{ordered} powers ordered of {len(texts)}")
    return out


def measure(games: int = 10, rounds: int = 3, runs: int = 3,
            verbose: bool = True) -> dict[str, float]:
    n = games * len(load_map().powers)
    hashes = [passwords.hash_password(PASSWORD) for _ in range(n)]  # a salt of its own each
    overall, first, later = [], [], []
    for run in range(runs):
        result = one_run(games, rounds, hashes)
        mails = sum(d for d, _ in result)
        seconds = sum(t for _, t in result)
        overall.append(mails / seconds)
        first.append(result[0][0] / result[0][1])
        if rounds > 1:
            later.append(sum(d for d, _ in result[1:]) / sum(t for _, t in result[1:]))
        if verbose:
            print(f"  run {run + 1}: {mails} mails at {overall[-1]:.1f}/s; first round "
                  f"{first[-1]:.1f}/s" + (f", later rounds {later[-1]:.1f}/s" if later else ""))
    return dict(overall=statistics.median(overall), first=statistics.median(first),
                later=statistics.median(later) if later else float("nan"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"order mails: SIGNON + 3-4 orders, password cost 2^{passwords._N.bit_length() - 1}, "
          f"{args.games * 6} mails a round, {args.rounds} rounds")
    f = measure(args.games, args.rounds, args.runs)
    print(f"order mails: {f['overall']:.1f} mails/s over all rounds (target >= 80); first "
          f"sign-on of a seat {f['first']:.1f}/s, seat signed on before {f['later']:.1f}/s   "
          f"[median of {args.runs}]")


if __name__ == "__main__":
    main()
