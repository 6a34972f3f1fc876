"""Benchmark: the cost of one map picture, and its size.

Plays a game of several years through the core with a fixed seed (moves, supports, the
retreats and builds that follow), makes the map document of every phase as a results mail
does, and times drawing each: document read, scene built, PNG written (the median, p95 and
worst over the phases, on one core).  The first picture of a process also draws the map's
static layers (land, sea, borders, names), which every later picture reuses; it is shown
apart.  Then the sizes: PNG bytes (the limit is 200 KB) and SVG bytes.  Last, the results of
one phase for seven players: seven copies of the mail, one drawing.

Times are the process's CPU time (what a picture costs on one core, whatever else the
machine is doing); the wall clock is shown beside them.

    python benchmarks/map_render.py [--years N] [--seed S] [--rounds R]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from judge.core import adjudicate, initial_position, load_map
from judge.core.board import Position
from judge.core.maps import ARMY, province_of
from judge.pictures import png_of, png_of_document, scene_of
from judge.pictures.document import picture_from_document, results_by_power
from judge.pictures.svg import render_svg
from judge.service.positions import position_to_dict

M = load_map()


def orders_for(rng: random.Random, pos: Position) -> dict[str, list[str]]:
    """Plausible orders: moves, supports of them and holds; retreats; builds at home."""
    out: dict[str, list[str]] = {}
    t = pos.phase.type
    if t == "R":
        for d in pos.dislodged:
            line = (f"{d.unit.code} R {rng.choice(d.retreats)}" if d.retreats
                    else f"{d.unit.code} D")
            out.setdefault(d.unit.power, []).append(line)
        return out
    if t == "A":
        occupied = {u.province for u in pos.units}
        for power, p in M.powers.items():
            owned = pos.centers.get(power, frozenset())
            room = len(owned) - len(pos.units_of(power))
            for home in sorted(p.home_centers):
                if room > 0 and home in owned and home not in occupied:
                    out.setdefault(power, []).append(f"Build A {home}")
                    room -= 1
        return out
    planned: dict[str, str] = {}
    for u in sorted(pos.units, key=lambda _: rng.random()):
        reach = sorted(M.army_adj[u.province] if u.kind == ARMY else
                       {province_of(x) for x in M.fleet_adj.get(u.location, ())})
        friends = [p for p, d in planned.items() if d in reach]
        roll = rng.random()
        if friends and roll < 0.3:
            p = rng.choice(friends)
            mover = pos.unit_at(p)
            assert mover is not None
            out.setdefault(u.power, []).append(f"{u.code} S {mover.code} - {planned[p]}")
        elif roll < 0.8 and reach:
            dest = rng.choice(reach)
            planned[u.province] = dest
            out.setdefault(u.power, []).append(f"{u.code} - {dest}")
        else:
            out.setdefault(u.power, []).append(f"{u.code} H")
    return out


def documents(years: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    pos = initial_position(M)
    docs = []
    while pos.phase.year < 1901 + years:
        res = adjudicate(pos, orders_for(rng, pos))
        after = position_to_dict(res.position)
        docs.append({"variant": "standard", **position_to_dict(pos), "game": "bench",
                     "outcome": {"results": results_by_power(res.results),
                                 "centers": after["centers"],
                                 "dislodged": after["dislodged"]
                                 if res.position.phase.type == "R" else {}}})
        pos = res.position
    return docs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--years", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1901)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    docs = documents(args.years, args.seed)

    start = time.process_time()
    png_of(picture_from_document(docs[0]))
    first = (time.process_time() - start) * 1000

    times, walls, sizes, svgs = [], [], [], []
    for _ in range(args.rounds):
        for doc in docs:
            start, wall = time.process_time(), time.perf_counter()
            png = png_of(picture_from_document(doc))
            times.append((time.process_time() - start) * 1000)
            walls.append((time.perf_counter() - wall) * 1000)
            sizes.append(len(png))
    for doc in docs:
        svgs.append(len(render_svg(scene_of(picture_from_document(doc))).encode()))
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(f"{len(docs)} phases of a {args.years}-year game (seed {args.seed}), "
          f"each drawn {args.rounds} times")
    print(f"first picture of the process (static layers drawn): {first:.1f} ms CPU")
    print(f"one picture: median {statistics.median(times):.1f} ms CPU, p95 {p95:.1f} ms, "
          f"worst {times[-1]:.1f} ms (wall clock median {statistics.median(walls):.1f} ms: "
          f"more on a busy machine)")
    print(f"PNG: median {statistics.median(sizes) / 1000:.1f} KB, "
          f"largest {max(sizes) / 1000:.1f} KB (limit 200 KB)")
    print(f"SVG: median {statistics.median(svgs) / 1000:.1f} KB, "
          f"largest {max(svgs) / 1000:.1f} KB")

    # a results mail to seven players: seven copies, one drawing
    doc = dict(docs[len(docs) // 2], game="seven")
    start = time.process_time()
    for _ in range(7):
        png_of_document(doc)
    seven = (time.process_time() - start) * 1000
    print(f"results for 7 players (7 copies, the picture drawn once): {seven:.1f} ms CPU")


if __name__ == "__main__":
    main()
