"""Benchmark: time per movement phase (parse + adjudicate) of the core adjudicator.

Generates realistic play with a fixed seed — games from 1901 with moves, supports of own and
allied moves, and convoys — plus dense boards of 34 units (see ``_boards.py``), then prints
the median and p95 time per movement phase and phases per second, per run and as the median
of the runs.  "cold" clears the order-parser cache before every phase (each order string
parsed afresh); "warm" keeps it, as a judge does between phases.  This times the core alone,
from a position and order lines to the phase result; ``cli_adjudicate.py`` times the whole
``judge adjudicate --jsonl`` path.

With ``--mila-python`` (an interpreter with MILA's ``diplomacy`` package, never a dependency)
MILA's ``set_orders`` + ``process`` is timed on the dense boards after ours in each run (both
see the same machine load), and compared with our cold time (the like-for-like figure: both
parse every order) and our warm time.

    python benchmarks/adjudicate.py [--games 40] [--dense 400] [--runs 3] [--seed 1901]
                                    [--mila-python /tmp/mila-venv/bin/python]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from _boards import (
    Mila,
    boards_with_orders,
    dense_board,
    median,
    percentile,
    play,
    position_doc,
)

from judge.core import adjudicate
from judge.core.orders import clear_parse_cache

Sample = tuple[Any, dict[str, list[str]]]


def time_phases(samples: list[Sample], cold: bool) -> list[float]:
    times = []
    clock = time.perf_counter
    for pos, orders in samples:
        if cold:
            clear_parse_cache()
        t0 = clock()
        adjudicate(pos, orders)
        times.append(clock() - t0)
    return times


def one_run(samples: list[Sample], mila: Mila | None) -> dict[str, list[float]]:
    """Cold, warm (and MILA's) seconds per phase: ours over every phase, then MILA's."""
    cold = time_phases(samples, cold=True)
    time_phases(samples, cold=False)  # fills the parse cache with every line
    warm = time_phases(samples, cold=False)
    return {"cold": cold, "warm": warm,
            "mila": mila.time(0, len(samples)) if mila is not None else []}


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:8.1f}"


def report(name: str, runs: list[list[float]], units: float) -> float:
    medians = [median(r) for r in runs]
    p95 = median([percentile(r, 0.95) for r in runs])
    mean = statistics.mean(t for r in runs for t in r)
    print(f"{name:32s} median {_us(median(medians))} µs   p95 {_us(p95)} µs   "
          f"{1 / mean:7.0f} phases/s   runs {' '.join(_us(x) for x in medians)} µs   "
          f"({len(runs[0])} phases, {units:.1f} units avg)")
    return median(medians)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--years", type=int, default=10)
    ap.add_argument("--dense", type=int, default=400)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1901)
    ap.add_argument("--mila-python", help="an interpreter with the diplomacy package")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    game_phases = [s for _ in range(args.games) for s in play(rng, args.years)]
    dense = boards_with_orders(rng, dense_board, args.dense)
    mila = Mila.find(args.mila_python)
    if mila is not None:
        mila.load([position_doc(p, o) for p, o in dense])
        mila.time(0, 50)  # warm-up
    for _ in range(2):  # warm-up: imports, caches of the map
        time_phases(dense[:20], cold=False)
    try:
        for name, samples in (("games (all movement phases)", game_phases),
                              ("dense 34-unit boards", dense)):
            runs = [one_run(samples, mila if samples is dense else None)
                    for _ in range(args.runs)]
            avg = statistics.mean(len(p.units) for p, _ in samples)
            cold = report(f"{name}, cold", [r["cold"] for r in runs], avg)
            warm = report(f"{name}, warm", [r["warm"] for r in runs], avg)
        if mila is None:
            print("MILA not compared (no --mila-python / MILA_PYTHON): our figures only")
            return
        theirs = report(f"MILA {mila.version}, dense boards", [r["mila"] for r in runs], 34)
        for what, ours in (("cold (parse + adjudicate, like for like)", cold),
                           ("warm (parse cache filled)", warm)):
            print(f"  ours {what:41s} {theirs / ours:5.1f}x faster")
    finally:
        if mila is not None:
            mila.close()


if __name__ == "__main__":
    main()
