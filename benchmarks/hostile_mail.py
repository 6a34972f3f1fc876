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
* a master's 200 ``REPLACE`` lines to 200 new addresses;
* mails whose shape made reading them dear (judge.mail.reading.bounds): HTML of 15,000 unclosed
  ``<i>`` (75 KB in base64; 30,000 and 60,000 at 150 and 300 KB), a From: of 24,000
  addresses, MIME nested 1,000 deep, a Content-Type of 10,000 parameters, 180 KB labelled
  ``charset=punycode``.

Then the HTML reader alone (judge.mail.reading.html_text.html_to_text) on markup of those shapes at
75, 150 and 300 KB with its bounds lifted: its time grows as the markup does.  ``--shapes``
runs only the mails of awkward shapes and the HTML reader (they need no game).

    python benchmarks/hostile_mail.py [--database URL] [--shapes]
"""

from __future__ import annotations

import argparse
import base64
import tempfile
import time
from dataclasses import replace
from typing import Any, Callable

from sqlalchemy import event, func, select

from judge.basics.config import Config, JudgeSection, LimitsSection
from judge.mail.intake.accept import Arrival, message_id_of, store_arrivals
from judge.pipeline.stages import Pipeline
from judge.pipeline.worker import process_pending
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


def run(store: Store, pipeline: Pipeline, config: Config, sender: str, body: str | bytes,
        n: int) -> tuple[float, Transactions]:
    """Store the mail (``body``, or the whole mail when bytes) and have the worker process it."""
    raw = body if isinstance(body, bytes) else mail(sender, body, n)
    store_arrivals(store, [Arrival(JUDGE, sender, raw, message_id_of(raw))])
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


# --------------------------------------------------------------------------- awkward shapes


def _whole(n: int, headers: list[tuple[str, str]], body: str) -> bytes:
    """A whole mail: the headers given after the usual ones, then the body (CRLF lines)."""
    head = [("To", JUDGE), ("Subject", f"bench {n}"), ("Message-ID", f"<bench{n}@example.org>"),
            *headers]
    return ("".join(f"{k}: {v}\r\n" for k, v in head) + "\r\n"
            + body.replace("\n", "\r\n")).encode()


def nested_html(tags: int, lines: int) -> str:
    return "<i>" * tags + "a<br>" * lines


def _html_mail(sender: str, n: int, markup: str) -> bytes:
    return _whole(n, [("From", sender), ("MIME-Version", "1.0"),
                      ("Content-Type", "text/html; charset=utf-8"),
                      ("Content-Transfer-Encoding", "base64")],
                  base64.encodebytes(markup.encode()).decode())


def _folded(start: str, items: list[str], separator: str = ",") -> str:
    """``start`` and the items, each followed by ``separator``, folded into lines of about
    900 characters (the last separator left off)."""
    lines, line = [], start
    for item in items:
        if len(line) + len(item) > 900:
            lines.append(line)
            line = ""
        line += f" {item}{separator}"
    return "\r\n".join([*lines, line.removesuffix(separator)])


def shape_cases() -> list[tuple[str, str, Callable[[int], bytes]]]:
    """(name, sender, mail by its number) of each mail of an awkward shape."""
    def many_from(n: int) -> bytes:
        head = _folded("From:", ["f@example.org"] + [f"a{i % 10}@x.y" for i in range(23_999)])
        return head.encode() + b"\r\n" + _whole(n, [], "VERSION\n")

    def deep_mime(n: int) -> bytes:
        body = "".join(f"--b{i}\nContent-Type: multipart/mixed; boundary=b{i + 1}\n\n"
                       for i in range(1000)) + "--b1000\nContent-Type: text/plain\n\nVERSION\n"
        return _whole(n, [("From", "d@example.org"), ("MIME-Version", "1.0"),
                          ("Content-Type", "multipart/mixed; boundary=b0")], body)

    def many_params(n: int) -> bytes:
        return _whole(n, [("From", "c@example.org"),
                          ("Content-Type", _folded("text/plain;", ["a=b"] * 10_000, ";"))],
                      "VERSION\n")

    def punycode(n: int) -> bytes:
        text = b"a" * 90_000 + b"-" + b"b" * 90_000  # all but the first half to decode
        return _whole(n, [("From", "u@example.org"),
                          ("Content-Type", "text/plain; charset=punycode"),
                          ("Content-Transfer-Encoding", "base64")],
                      base64.encodebytes(text).decode())

    return [
        *((f"nested HTML {tags} tags ({tags // 200} KB)", "h@example.org",
           lambda n, t=tags: _html_mail("h@example.org", n, nested_html(t, t * 2 // 15)))
          for tags in (15_000, 30_000, 60_000)),
        ("From: of 24,000 addresses", "f@example.org", many_from),
        ("MIME nested 1,000 deep", "d@example.org", deep_mime),
        ("Content-Type of 10,000 parameters", "c@example.org", many_params),
        ("180 KB labelled punycode (base64)", "u@example.org", punycode),
    ]


def html_reader_alone() -> None:
    """The HTML reader on markup of each shape, doubling in size, its bounds lifted."""
    from judge.mail.reading.html_text import html_to_text

    lifted = replace(LimitsSection(), html_depth=10**9, html_nodes=10**9)
    shapes: list[tuple[str, Callable[[int], str]]] = [
        ("<i> x N, then a<br> x 2N/15", lambda n: nested_html(n, n * 2 // 15)),
        ("<div>x x N, never closed", lambda n: "<div>x" * n),
        ('<a b=" x N, never closed', lambda n: '<a b="' * n),
        ("<!-- x N, never closed", lambda n: "<!--" * n),
    ]
    for name, make in shapes:
        figures = []
        for n in (15_000, 30_000, 60_000):
            markup = make(n)
            started = time.process_time()
            html_to_text(markup, lifted)
            cpu = (time.process_time() - started) * 1000
            figures.append(f"{len(markup) // 1000:4d} KB {cpu:6.1f} ms")
        print(f"html_to_text {name:30}", "   ".join(figures))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--shapes", action="store_true",
                        help="only the mails of awkward shapes and the HTML reader")
    args = parser.parse_args()
    url = args.database or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    store = Store(url)
    ensure_schema(store.engine)
    config = Config(judge=JudgeSection(address=JUDGE))
    pipeline = Pipeline(config)
    gm = "gm@example.org"
    # (name, sender, the body, or the whole mail by its number)
    cases: list[tuple[str, str, str | Callable[[int], bytes]]] = []
    if not args.shapes:
        # a played game for HISTORY and REPLACE: created, joined, started, one phase processed
        for n, (sender, body) in enumerate([(gm, "CREATE g mpw"), ("p@example.org", "JOIN g pw"),
                                            (gm, "SIGNON Mg mpw\nSTART\nPROCESS\nPROCESS")]):
            run(store, pipeline, config, sender, body, 1000 + n)
        cases += [
            ("GET COMMANDS x 19,700 (256 KB)", "x@example.org", "GET COMMANDS\n" * 19_700),
            ("one-letter lines x 125,000 (250 KB)", "w@example.org", "x\n" * 125_000),
            ("HISTORY g x 300", "y@example.org", "HISTORY g\n" * 300),
            ("CREATE x 1000", "z@example.org", "\n".join(f"CREATE f{i} pw" for i in range(1000))),
            ("REPLACE x 200 (master)", gm, "SIGNON Mg mpw\n" + "\n".join(
                f"REPLACE {'AEFGIRT'[i % 7]} v{i}@example.net pw{i}" for i in range(200))),
        ]
    cases += [(name, sender, make) for name, sender, make in shape_cases()]
    for n, (name, sender, body) in enumerate(cases):
        seconds, watch = run(store, pipeline, config, sender,
                             body if isinstance(body, str) else body(n), n)
        report(store, name, n, seconds, watch)
    store.dispose()
    html_reader_alone()


if __name__ == "__main__":
    main()
