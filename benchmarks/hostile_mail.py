"""Benchmark: what one hostile mail costs the judge, through the real pipeline and store.

Each mail is stored as intake stores it and processed by the worker's pipeline (no SMTP), on a
fresh SQLite file (or ``--database URL``), with the production password cost unless
``JUDGE_PASSWORD_COST`` says otherwise.  For each mail it prints the wall time, the longest
write transaction (begin to commit) and how many there were, the size of the reply and how
many mails were queued:

* ``GET COMMANDS`` on every line of a full-size (256 KB) mail;
* a full-size mail of one-letter lines (as many lines as a mail can hold);
* ``HISTORY`` of a played game on 300 lines;
* 1000 ``CREATE`` lines;
* a master's 200 ``REPLACE`` lines to 200 new addresses.

    python benchmarks/hostile_mail.py [--database URL]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from typing import Any

from sqlalchemy import event, func, select

from judge.config import Config, JudgeSection
from judge.mail.intake import Arrival, message_id_of, store_arrivals
from judge.pipeline import Pipeline
from judge.mail.worker import process_pending
from judge.store.db import Store
from judge.store.models import InboundMessage, OutboxMessage
from judge.store.schema import ensure_schema

JUDGE = "judge@example.org"


class Transactions:
    """Times every write transaction of the store's engine."""

    def __init__(self, store: Store) -> None:
        self.started: dict[int, float] = {}
        self.lengths: list[float] = []
        event.listen(store.engine, "begin", self._begin)
        event.listen(store.engine, "commit", self._end)
        event.listen(store.engine, "rollback", self._end)

    def _begin(self, conn: Any) -> None:
        if not conn.get_execution_options().get("judge_read_only"):
            self.started[id(conn)] = time.perf_counter()

    def _end(self, conn: Any) -> None:
        began = self.started.pop(id(conn), None)
        if began is not None:
            self.lengths.append(time.perf_counter() - began)


def mail(sender: str, body: str, n: int) -> bytes:
    return (f"From: {sender}\r\nTo: {JUDGE}\r\nSubject: bench {n}\r\n"
            f"Message-ID: <bench{n}@example.org>\r\n\r\n{body}\r\n").encode()


def run(store: Store, pipeline: Pipeline, config: Config, sender: str, body: str,
        n: int) -> tuple[float, Transactions]:
    store_arrivals(store, [Arrival(JUDGE, sender, mail(sender, body, n),
                                   message_id_of(mail(sender, body, n)))])
    watch = Transactions(store)
    started = time.perf_counter()
    process_pending(store, config, pipeline)
    return time.perf_counter() - started, watch


def report(store: Store, name: str, n: int, seconds: float, watch: Transactions) -> None:
    with store.transaction() as s:
        row = s.scalars(select(InboundMessage).where(
            InboundMessage.message_id == f"<bench{n}@example.org>")).one()
        queued = s.scalar(select(func.count()).select_from(OutboxMessage)
                          .where(OutboxMessage.inbound_id == row.id))
        reply = max((len(r) for r in s.scalars(select(OutboxMessage.raw).where(
            OutboxMessage.inbound_id == row.id))), default=0)
    longest = max(watch.lengths, default=0.0)
    print(f"{name:36} {seconds * 1000:8.0f} ms  {len(watch.lengths):5d} write txns, "
          f"longest {longest * 1000:6.1f} ms  reply {reply / 1024:7.1f} KB  "
          f"{queued:4d} mails queued  ({row.status})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    url = args.database or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    store = Store(url)
    ensure_schema(store.engine)
    config = Config(judge=JudgeSection(address=JUDGE))
    pipeline = Pipeline(config)
    gm = "gm@example.org"
    # a played game for HISTORY and REPLACE: created, joined, started, one phase processed
    for n, (sender, body) in enumerate([(gm, "CREATE g mpw"), ("p@example.org", "JOIN g pw"),
                                        (gm, "SIGNON Mg mpw\nSTART\nPROCESS\nPROCESS")]):
        run(store, pipeline, config, sender, body, 1000 + n)
    cases = [
        ("GET COMMANDS x 19,700 (256 KB)", "x@example.org", "GET COMMANDS\n" * 19_700),
        ("one-letter lines x 125,000 (250 KB)", "w@example.org", "x\n" * 125_000),
        ("HISTORY g x 300", "y@example.org", "HISTORY g\n" * 300),
        ("CREATE x 1000", "z@example.org", "\n".join(f"CREATE f{i} pw" for i in range(1000))),
        ("REPLACE x 200 (master)", gm, "SIGNON Mg mpw\n" + "\n".join(
            f"REPLACE {'AEFGIRT'[i % 7]} v{i}@example.net pw{i}" for i in range(200))),
    ]
    for n, (name, sender, body) in enumerate(cases):
        seconds, watch = run(store, pipeline, config, sender, body, n)
        report(store, name, n, seconds, watch)
    store.dispose()


if __name__ == "__main__":
    main()
