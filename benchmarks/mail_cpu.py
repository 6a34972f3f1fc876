#!/usr/bin/env python3
"""CPU per mail of the worker process's two jobs, in one process, without SMTP or contention.

Usage::

    .venv/bin/python benchmarks/mail_cpu.py [--messages N] [--runs R] [--baseline PATH]
                                            [--read M]

N ``VERSION`` mails (those of benchmarks/intake.py, each from its own address, so no reply cap
is reached) are stored in a fresh SQLite database; then the worker processes them in the
daemon's batches (judge.pipeline.worker.work_batch with the pipeline) and the sender delivers the
replies to a Maildir (judge.mail.sending.sender.deliver_due), each timed with
``time.process_time`` (user and system CPU, the fsyncs' waits excluded) and the clock on the
wall.  Logging goes to a file, as the daemon's goes to the journal.  The median of R runs.

This is the cost that bounds how fast a backlog of mail is answered; benchmarks/intake.py and
benchmarks/steady_load.py measure it through a real ``judge serve``, with intake and SMTP.

``--read M`` puts M mails into the Maildir's cur/ first, as a reader who has read that many
leaves them (the sender looks there for a mail it delivered before a crash).

``--baseline PATH`` runs the same measurement, interleaved, on another checkout of the judge
(a git worktree of an earlier commit, say) and prints the ratio, so that both are measured on
the machine as it is at that moment.

Not part of the test run; prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def measure(count: int, read: int = 0) -> dict[str, float]:
    """One run in this process: CPU and wall ms per mail for the worker and the sender."""
    sys.path.insert(0, str(HERE))
    from intake import JUDGE_ADDRESS, build_messages

    from judge.basics.config import load_config
    from judge.basics.logs import setup_logging
    from judge.mail.intake.accept import Arrival, message_id_of, store_arrivals
    from judge.mail.sending.sender import deliver_due
    from judge.mail.sending.transports import MaildirTransport
    from judge.pipeline.worker import work_batch
    from judge.pipeline.stages import Pipeline
    from judge.store.db import Store
    from judge.store.schema import ensure_schema

    with tempfile.TemporaryDirectory(prefix="judge-mail-cpu-") as folder:
        tmp = Path(folder)
        os.environ.update({"JUDGE_JUDGE_ADDRESS": JUDGE_ADDRESS,
                           "JUDGE_DATABASE_URL": f"sqlite:///{tmp / 'judge.db'}",
                           "JUDGE_OUTBOUND_TRANSPORT": f"maildir:{tmp / 'mail'}"})
        log = open(tmp / "log.txt", "w")
        setup_logging(stream=log)
        config = load_config(None)
        store = Store(config.database.url)
        ensure_schema(store.engine)
        arrivals = [Arrival(JUDGE_ADDRESS, sender, raw[:-3], message_id_of(raw[:-3]))
                    for sender, raw in build_messages(count, 1000, "cpu")]
        for i in range(0, count, 50):
            store_arrivals(store, arrivals[i:i + 50])
        pipeline, transport = Pipeline(config), MaildirTransport(str(tmp / "mail"))
        for sub in ("tmp", "new", "cur"):
            (tmp / "mail" / sub).mkdir(parents=True)
        for i in range(read):
            (tmp / "mail" / "cur" / f"{i}.read.example:2,S").write_bytes(b"Subject: read\n\nx\n")
        cpu0, wall0 = time.process_time(), time.perf_counter()
        while work_batch(store, config, pipeline):
            pass
        cpu1, wall1 = time.process_time(), time.perf_counter()
        sent = deliver_due(store, transport, config)
        cpu2, wall2 = time.process_time(), time.perf_counter()
        store.dispose()
        log.close()
        if sent != count:
            raise SystemExit(f"only {sent} of {count} replies were sent")
        ms = 1000.0 / count
        return dict(worker_cpu=(cpu1 - cpu0) * ms, worker_wall=(wall1 - wall0) * ms,
                    sender_cpu=(cpu2 - cpu1) * ms, sender_wall=(wall2 - wall1) * ms)


def run_in(checkout: Path | None, count: int, read: int = 0) -> dict[str, float]:
    """One run in a fresh process, on this checkout or on ``checkout``."""
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)  # ahead of the installed judge
    out = subprocess.run([sys.executable, __file__, "--one", str(count), "--read", str(read)],
                         env=env, check=True,
                         capture_output=True, text=True, cwd=checkout or HERE.parent).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", "-n", type=int, default=1500)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", type=Path, help="another checkout of the judge to compare with")
    ap.add_argument("--read", type=int, default=0,
                    help="mails already read (in the Maildir's cur/) before the run")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.read)))
        return 0
    runs: dict[str, list[dict[str, float]]] = {"this": [], "baseline": []}
    for _ in range(args.runs):  # interleaved: the machine's mood falls on both alike
        runs["this"].append(run_in(None, args.messages, args.read))
        if args.baseline:
            runs["baseline"].append(run_in(args.baseline.resolve(), args.messages, args.read))
    read = f", {args.read} read mails in cur/" if args.read else ""
    print(f"judge mail CPU: {args.messages} VERSION mails, worker then sender (Maildir{read}), "
          f"SQLite, {os.cpu_count()} CPUs, median of {args.runs}")
    print(f"{'':12}{'worker CPU':>12}{'worker wall':>13}{'sender CPU':>12}{'sender wall':>13}"
          "   (ms per mail)")
    medians = {}
    for name, rows in runs.items():
        if not rows:
            continue
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        medians[name] = med
        print(f"{name:<12}{med['worker_cpu']:>12.2f}{med['worker_wall']:>13.2f}"
              f"{med['sender_cpu']:>12.2f}{med['sender_wall']:>13.2f}")
    if "baseline" in medians:
        this, base = medians["this"], medians["baseline"]
        wall = {name: m["worker_wall"] + m["sender_wall"] for name, m in medians.items()}
        print(f"baseline/this: worker CPU {base['worker_cpu'] / this['worker_cpu']:.2f}x, "
              f"sender CPU {base['sender_cpu'] / this['sender_cpu']:.2f}x, wall (both) "
              f"{wall['baseline'] / wall['this']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
