"""Benchmark: ``judge adjudicate --jsonl``, the whole CLI path per line, against MILA.

Per line the CLI decodes the JSON, builds and checks the position, adjudicates, builds the
result and encodes it.  That path is timed in-process, line by line, through the function the
CLI itself calls for each line (``judge.core.jsonio.adjudicate_json``): a spawned process
could only be timed per batch, where pipes and start-up blur the per-line figure.  As a
cross-check the real CLI is also spawned on each whole batch: (wall time of the batch − wall
time of one line) / (lines − 1).  Each run starts with an empty parse cache, as a freshly
started CLI does.

MILA's ``set_orders`` + ``process`` runs on the same positions in a worker process (see
``_boards.py``; ``--mila-python``).  Each run times our pass over the batch, then MILA's over
the same batch, so both see the same machine load; the runs alternate.  (Alternating in small
chunks would not be like for like: each of our chunks, a few milliseconds, would start on
caches emptied by MILA's chunk, fifty times longer.)  Figures are printed per run, then the
median of the runs, p95 and the ratio.
Start-up is the median wall time of spawning ``judge adjudicate`` on a one-unit position;
``--imports`` lists the slowest imports of that start.

    python benchmarks/cli_adjudicate.py [--dense 400] [--small 400] [--runs 3]
                                        [--mila-python /tmp/mila-venv/bin/python] [--imports]

:func:`measure` returns the figures for a caller that prints them itself.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _boards import (
    Mila,
    boards_with_orders,
    dense_board,
    median,
    percentile,
    position_doc,
    small_board,
)

TINY = b'{"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}}\n'


def line_function() -> tuple[str, Callable[[bytes], bytes]]:
    """What the CLI runs for each line, and its name."""
    try:
        from judge.core.jsonio import adjudicate_json
        return "judge.core.jsonio.adjudicate_json", adjudicate_json
    except ImportError:  # an older judge: its CLI's per-line steps, as the CLI wrote them
        from judge.core.jsonio import adjudicate_document

        def old_line(line: bytes) -> bytes:
            return json.dumps(adjudicate_document(json.loads(line)), sort_keys=False).encode()
        return "json.loads + adjudicate_document + json.dumps (older CLI)", old_line


def _fresh_cli() -> None:
    """Forget parsed orders, as a newly started CLI has none."""
    from judge.core.orders import clear_parse_cache
    clear_parse_cache()


def judge_command() -> list[str]:
    exe = Path(sys.executable).with_name("judge")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("judge")
    return [found] if found else [sys.executable, "-m", "judge.cli.main"]


def _spawn(args: list[str], data: bytes, env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([*judge_command(), *args], input=data, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env, check=False)
    wall = time.perf_counter() - t0
    if done.returncode:
        raise RuntimeError(f"judge {' '.join(args)} failed: {done.stderr.decode()[-500:]}")
    return wall


def startup(spawns: int) -> tuple[float, float]:
    """Median wall times of ``judge adjudicate`` on a one-unit position and, for scale, of
    the bare interpreter (``python -c pass``), spawned alternately."""
    judge, bare = [], []
    for _ in range(spawns):
        judge.append(_spawn(["adjudicate"], TINY))
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t0)
    return median(judge), median(bare)


def slowest_imports(top: int = 10) -> list[tuple[str, float]]:
    """The top-level imports of ``judge adjudicate``'s start, by cumulative time (ms)."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    done = subprocess.run([*judge_command(), "adjudicate"], input=TINY, env=env,
                          capture_output=True, check=True)
    found = []
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line[len("import time:"):].split("|")
            if cumulative.strip().isdigit() and not name[1:].startswith(" "):
                found.append((name.strip(), int(cumulative) / 1000))
    return sorted(found, key=lambda kv: -kv[1])[:top]


def spawned_per_line(lines: list[bytes], spawns: int, repeat: int = 5) -> float:
    """Per line through the real CLI: (batch − one line) / (lines − 1), median of spawns.

    The batch is the lines ``repeat`` times over, so that its work outweighs the noise of
    the start-up it is measured against."""
    batch, one = b"".join(lines) * repeat, lines[0]
    diffs = [(_spawn(["adjudicate", "--jsonl"], batch) - _spawn(["adjudicate", "--jsonl"], one))
             / (len(lines) * repeat - 1) for _ in range(spawns)]
    return median(diffs)


def _run(fn: Callable[[bytes], bytes], lines: list[bytes], mila: Mila | None
         ) -> tuple[list[float], list[float]]:
    """One run: every line through ours, then through MILA: seconds per line."""
    ours: list[float] = []
    _fresh_cli()
    clock = time.perf_counter
    for line in lines:
        t0 = clock()
        fn(line)
        ours.append(clock() - t0)
    return ours, mila.time(0, len(lines)) if mila is not None else []


def measure_boards(docs: list[dict[str, Any]], runs: int, mila: Mila | None) -> dict[str, Any]:
    name, fn = line_function()
    lines = [json.dumps(d).encode() + b"\n" for d in docs]
    if mila is not None:
        mila.load(docs)
        mila.time(0, min(len(docs), 50))  # warm-up
    for line in lines[:50]:  # warm-up: the map's tables, the first imports
        fn(line)
    per_run = [_run(fn, lines, mila) for _ in range(runs)]
    ours = [median(o) for o, _ in per_run]
    out: dict[str, Any] = {
        "entry": name, "lines": len(lines), "units": median([
            sum(len(v) for v in d["units"].values()) for d in docs]),
        "ours_runs": ours, "ours": median(ours),
        "ours_p95": median([percentile(o, 0.95) for o, _ in per_run]),
    }
    if mila is not None:
        theirs = [median(t) for _, t in per_run]
        out.update(mila_runs=theirs, mila=median(theirs),
                   mila_p95=median([percentile(t, 0.95) for _, t in per_run]),
                   ratio=median([t / o for o, t in zip(ours, theirs)]))
    return out


def measure(dense: int = 400, small: int = 400, runs: int = 3, seed: int = 1901,
            mila_python: str | None = None, spawns: int = 5) -> dict[str, Any]:
    """Every figure of this benchmark, as a dict (seconds)."""
    rng = random.Random(seed)
    sets = {"dense 34-unit boards": boards_with_orders(rng, dense_board, dense),
            "10-unit boards": boards_with_orders(rng, small_board, small)}
    mila = Mila.find(mila_python)
    figures: dict[str, Any] = {"mila_version": mila.version if mila else None, "boards": {}}
    try:
        for label, boards in sets.items():
            docs = [position_doc(p, o) for p, o in boards]
            got = measure_boards(docs, runs, mila)
            lines = [json.dumps(d).encode() + b"\n" for d in docs]
            got["spawned"] = spawned_per_line(lines, spawns)
            figures["boards"][label] = got
    finally:
        if mila is not None:
            mila.close()
    figures["startup"] = startup(max(spawns, 9))
    return figures


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:7.1f}"


def report(figures: dict[str, Any]) -> None:
    first = next(iter(figures["boards"].values()))
    print(f"judge adjudicate --jsonl, per line, in-process through {first['entry']}")
    mila = figures["mila_version"]
    print(f"against MILA diplomacy {mila} (set_orders + process)" if mila else
          "MILA not compared (no --mila-python / MILA_PYTHON): our figures only")
    for label, f in figures["boards"].items():
        runs = " ".join(_us(x) for x in f["ours_runs"])
        print(f"{label} ({f['lines']} lines, {f['units']:.0f} units):")
        print(f"  ours   runs {runs} µs   median {_us(f['ours'])} µs   p95 {_us(f['ours_p95'])} µs")
        if "mila" in f:
            runs = " ".join(_us(x) for x in f["mila_runs"])
            print(f"  MILA   runs {runs} µs   median {_us(f['mila'])} µs   "
                  f"p95 {_us(f['mila_p95'])} µs")
            print(f"  ratio  {f['ratio']:.1f}x (median of the runs' MILA/ours)")
        print(f"  spawned CLI, (batch − one line)/(lines − 1): {_us(f['spawned'])} µs per line")
    judge, bare = figures["startup"]
    print(f"start-up of `judge adjudicate` on one unit: median {judge * 1e3:.0f} ms "
          f"(python -c pass: {bare * 1e3:.0f} ms)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dense", type=int, default=400)
    ap.add_argument("--small", type=int, default=400)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1901)
    ap.add_argument("--spawns", type=int, default=5)
    ap.add_argument("--mila-python", help="an interpreter with the diplomacy package")
    ap.add_argument("--imports", action="store_true", help="list the slowest imports at start")
    args = ap.parse_args()
    report(measure(args.dense, args.small, args.runs, args.seed, args.mila_python, args.spawns))
    if args.imports:
        print("slowest top-level imports of that start (cumulative):")
        for name, ms in slowest_imports():
            print(f"  {ms:7.1f} ms  {name}")


if __name__ == "__main__":
    main()
