#!/usr/bin/env python3
"""Every speed figure of the judge, one benchmark after another.

Usage::

    .venv/bin/python benchmarks/all.py [--quick] [--only NAME[,NAME...]]

Runs, each in a process of its own (so one's caches and threads do not colour the next):
adjudication in the core (adjudicate.py) and through the CLI (cli_adjudicate.py), the CPU the
worker process spends on a mail (mail_cpu.py), intake of a burst of mail (intake.py), steady load
and burst end to end on a real ``judge serve`` (steady_load.py) and its timeline
(burst_timeline.py), order mails (order_mails.py),
due deadlines (deadlines.py), map pictures (map_render.py), and the web pages (web_pages.py)
when that benchmark exists.  Each prints its own figures as it goes; the wall time of each is
listed at the end.

``--quick`` runs each on a small sample, once, so the whole finishes in about a minute: a
smoke run, its figures rough.  Without it every benchmark runs at its own defaults (most take
the median of three runs), which takes several minutes.

Not part of the test run; exits 0 unless a benchmark failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name, script, arguments for a full run, arguments for --quick
BENCHMARKS: list[tuple[str, str, list[str], list[str]]] = [
    ("adjudicate (core)", "adjudicate.py", [],
     ["--games", "4", "--years", "4", "--dense", "40", "--runs", "1"]),
    ("adjudicate (CLI)", "cli_adjudicate.py", [],
     ["--dense", "40", "--small", "40", "--runs", "1", "--spawns", "1"]),
    ("mail CPU (worker, sender)", "mail_cpu.py", [], ["--messages", "300", "--runs", "1"]),
    ("intake burst", "intake.py", [], ["--messages", "300"]),
    ("steady load and burst", "steady_load.py", [],
     ["--seconds", "4", "--burst", "300", "--runs", "1"]),
    ("burst timeline", "burst_timeline.py", [], ["--messages", "300"]),
    ("order mails", "order_mails.py", [], ["--games", "2", "--rounds", "2", "--runs", "1"]),
    ("deadlines", "deadlines.py", ["--games", "1000,10000"],
     ["--games", "300", "--due", "50", "--runs", "1"]),
    ("map render", "map_render.py", [], ["--years", "1", "--rounds", "1"]),
    ("web pages", "web_pages.py", [], []),
]


def quick_flag(script: Path) -> list[str]:
    """A benchmark this file does not know the options of gets ``--quick`` if it has one."""
    try:
        help_text = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                                   text=True, timeout=60, cwd=HERE.parent).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return ["--quick"] if "--quick" in help_text else []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small samples, one run each (~1 min)")
    ap.add_argument("--only", help="comma-separated script names (e.g. deadlines,order_mails)")
    args = ap.parse_args()
    only = {n.strip().removesuffix(".py") for n in args.only.split(",")} if args.only else None
    timings: list[tuple[str, str]] = []
    failed = 0
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for name, script, full, quick in BENCHMARKS:
        if only is not None and script.removesuffix(".py") not in only:
            continue
        path = HERE / script
        print(f"\n=== {name} ({script}{' --quick' if args.quick else ''}) ===", flush=True)
        if not path.exists():
            print(f"skipped: benchmarks/{script} does not exist in this checkout")
            timings.append((name, "skipped"))
            continue
        extra = (quick or quick_flag(path)) if args.quick else full
        t = time.perf_counter()
        code = subprocess.call([sys.executable, str(path), *extra], cwd=HERE.parent, env=env)
        seconds = time.perf_counter() - t
        if code != 0:
            failed += 1
            print(f"{script} exited {code}")
        timings.append((name, f"{seconds:6.1f} s" + ("" if code == 0 else f" (exit {code})")))
    print("\n=== wall time per benchmark ===")
    for name, what in timings:
        print(f"  {name:<24}{what}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
