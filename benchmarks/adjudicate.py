"""Benchmark: time per movement phase (parse + adjudicate) of the core adjudicator.

Generates realistic play with a fixed seed — games from 1901 with moves, supports of own and
allied moves, and convoys — plus dense boards of 34 units, then prints the median and p95 time
per movement phase and phases per second.  "cold" clears the order-parser cache before every
phase (each order string parsed afresh); "warm" keeps it, as a judge does between phases.
If the MILA ``diplomacy`` package happens to be importable, its ``set_orders`` + ``process``
are timed on the dense boards and compared with our cold time (the like-for-like figure:
both parse every order) and our warm time (it is never a dependency).  Board generation
iterates sorted sets, so a seed gives the same phases in every process.

    python benchmarks/adjudicate.py [--phases N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from judge.core import adjudicate, initial_position, load_map, make_position
from judge.core.board import Position
from judge.core.maps import ARMY, FLEET, province_of
from judge.core.orders import clear_parse_cache

M = load_map()


def plausible_orders(rng: random.Random, pos: Position) -> dict[str, list[str]]:
    """Orders a player might write: mostly moves, supports of them, some convoys."""
    units = {u.province: u for u in pos.units}
    orders: dict[str, list[str]] = {}
    planned: dict[str, str] = {}  # province → destination of a planned move
    for u in sorted(pos.units, key=lambda u: rng.random()):
        prov = u.province
        if prov in planned:
            continue
        if u.kind == FLEET and M.provinces[prov].is_sea and rng.random() < 0.3:
            coasts = [p for p in sorted(M.fleet_reach[prov]) if M.provinces[p].kind == "coast"]
            armies = [units[p] for p in coasts if p in units and units[p].kind == ARMY
                      and units[p].power == u.power and p not in planned]
            if armies:
                a = rng.choice(armies)
                dest = rng.choice([c for c in coasts if c != a.province])
                planned[a.province] = dest
                orders.setdefault(u.power, []).append(f"F {prov} C A {a.province} - {dest}")
                orders[u.power].append(f"A {a.province} - {dest}")
                continue
        reach = sorted(M.army_adj[prov] if u.kind == ARMY else
                       {province_of(x) for x in M.fleet_adj.get(u.location, ())})
        helpable = [p for p, d in planned.items() if d in reach and units[p].power == u.power]
        roll = rng.random()
        if helpable and roll < 0.45:
            p = rng.choice(helpable)
            t = units[p]
            orders.setdefault(u.power, []).append(f"{u.code} S {t.kind} {p} - {planned[p]}")
            planned[prov] = prov
        elif roll < 0.85 and reach:
            dest = rng.choice(reach)
            locs = [x for x in sorted(M.fleet_adj.get(u.location, ())) if province_of(x) == dest]
            target = locs[0] if u.kind == FLEET else dest
            orders.setdefault(u.power, []).append(f"{u.code} - {target}")
            planned[prov] = dest
        else:
            friends = [units[p] for p in reach if p in units]
            if friends and rng.random() < 0.6:
                t = rng.choice(friends)
                orders.setdefault(u.power, []).append(f"{u.code} S {t.code}")
            else:
                orders.setdefault(u.power, []).append(f"{u.code} H")
            planned[prov] = prov
    return orders


def play(rng: random.Random, years: int) -> list[tuple[Position, dict[str, list[str]]]]:
    """Movement phases of one game played with plausible orders and default builds."""
    out = []
    pos = initial_position(M)
    while pos.phase.year < 1901 + years:
        if pos.phase.type == "M":
            orders = plausible_orders(rng, pos)
            out.append((pos, orders))
            pos = adjudicate(pos, orders).position
        elif pos.phase.type == "A":
            builds = {}
            for power in M.powers:
                free = [c for c in M.powers[power].home_centers
                        if c in pos.centers.get(power, ()) and pos.unit_at(c) is None]
                builds[power] = [f"Build A {c}" for c in free]
            pos = adjudicate(pos, builds).position
        else:
            pos = adjudicate(pos, {}).position
    return out


def dense_board(rng: random.Random) -> Position:
    """34 units: one on every supply centre, owned by a random neighbour-ish power."""
    units: dict[str, list[str]] = {}
    for c in sorted(M.supply_centers):
        home = M.home_of(c) or rng.choice(list(M.powers))
        kind = FLEET if M.provinces[c].kind == "coast" and rng.random() < 0.35 else ARMY
        loc = M.locations(c)[0] if kind == FLEET else c
        units.setdefault(home, []).append(f"{kind} {loc}")
    return make_position(M, "S1905M", units)


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def time_phases(samples, cold: bool) -> list[float]:
    times = []
    for pos, orders in samples:
        if cold:
            clear_parse_cache()
        t0 = time.perf_counter()
        adjudicate(pos, orders)
        times.append(time.perf_counter() - t0)
    return times


def report(name: str, times: list[float], units: float) -> None:
    med, p95 = statistics.median(times), percentile(times, 0.95)
    print(f"{name:28s} median {med * 1e6:8.1f} µs   p95 {p95 * 1e6:8.1f} µs   "
          f"{1 / statistics.mean(times):8.0f} phases/s   ({len(times)} phases, "
          f"{units:.1f} units avg)")


def mila_ratio(samples, cold: list[float], warm: list[float]) -> None:
    """MILA ``set_orders`` (which parses the order strings) + ``process``, against ours.

    The like-for-like figure is our cold time (every order string parsed afresh, as MILA
    does each time); the warm ratio, with our parse cache filled, is printed for reference.
    """
    try:
        from diplomacy import Game  # type: ignore[import-not-found]
    except ImportError:
        print("MILA 'diplomacy' package not importable: no comparison")
        return
    times = []
    for pos, orders in samples:
        game = Game()
        game.clear_units()
        for power, us in {p: [u.code for u in pos.units_of(p)] for p in M.powers}.items():
            game.set_units(power, us, reset=True)
        t0 = time.perf_counter()
        for power, os in orders.items():
            game.set_orders(power, os)
        game.process()
        times.append(time.perf_counter() - t0)
    mila = statistics.median(times)
    print(f"MILA engine (set_orders + process), dense boards: median {mila * 1e6:.1f} µs")
    for what, ours in (("cold (parse + adjudicate, like for like)", cold),
                       ("warm (parse cache filled)", warm)):
        print(f"  ours {what:41s} {mila / statistics.median(ours):5.1f}x faster")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--years", type=int, default=10)
    ap.add_argument("--dense", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1901)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    game_phases = [s for _ in range(args.games) for s in play(rng, args.years)]
    dense = [(b, plausible_orders(rng, b)) for b in (dense_board(rng) for _ in range(args.dense))]
    for _ in range(2):  # warm-up: imports, caches of the map
        time_phases(dense[:20], cold=False)
    for name, samples in (("games (all movement phases)", game_phases),
                          ("dense 34-unit boards", dense)):
        avg = statistics.mean(len(p.units) for p, _ in samples)
        cold = time_phases(samples, cold=True)
        report(f"{name}, cold", cold, avg)
        warm = time_phases(samples, cold=False)
        report(f"{name}, warm", warm, avg)
    mila_ratio(dense, cold, warm)  # the dense boards: the last pair timed


if __name__ == "__main__":
    main()
