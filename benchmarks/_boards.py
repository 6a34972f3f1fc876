"""Boards, orders and the MILA comparison shared by the adjudication benchmarks.

Boards are generated with a fixed seed and by iterating sorted collections, so a seed gives
the same phases in every process: games played from 1901 with plausible orders (moves,
supports of own moves, convoys), dense boards (a unit on each of the 34 supply centres) and
small boards (10 units on random supply centres).

MILA's engine (the ``diplomacy`` package on PyPI) is never a dependency of the judge.  Install
it in a throwaway environment (``python3 -m venv /tmp/mila-venv && /tmp/mila-venv/bin/pip
install diplomacy``) and name that interpreter with ``--mila-python`` (or ``MILA_PYTHON``):
:class:`Mila` runs this file there as a worker that times ``set_orders`` + ``process`` on the
positions it is sent, round by round, so our rounds and MILA's interleave in one run.  Without
it the benchmarks print our figures only.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from typing import Any

Doc = dict[str, Any]  # one position of the JSON contract, with its orders


def _core() -> Any:
    # imported here, not at the top: the MILA worker runs this file where judge is absent
    import judge.core
    return judge.core


def plausible_orders(rng: random.Random, pos: Any) -> dict[str, list[str]]:
    """Orders a player might write: mostly moves, supports of them, some convoys."""
    from judge.core.maps import ARMY, FLEET, province_of
    m = pos.map
    units = {u.province: u for u in pos.units}
    orders: dict[str, list[str]] = {}
    planned: dict[str, str] = {}  # province → destination of a planned move
    for u in sorted(pos.units, key=lambda u: rng.random()):
        prov = u.province
        if prov in planned:
            continue
        if u.kind == FLEET and m.provinces[prov].is_sea and rng.random() < 0.3:
            coasts = [p for p in sorted(m.fleet_reach[prov]) if m.provinces[p].kind == "coast"]
            armies = [units[p] for p in coasts if p in units and units[p].kind == ARMY
                      and units[p].power == u.power and p not in planned]
            if armies:
                a = rng.choice(armies)
                dest = rng.choice([c for c in coasts if c != a.province])
                planned[a.province] = dest
                orders.setdefault(u.power, []).append(f"F {prov} C A {a.province} - {dest}")
                orders[u.power].append(f"A {a.province} - {dest}")
                continue
        reach = sorted(m.army_adj[prov] if u.kind == ARMY else
                       {province_of(x) for x in m.fleet_adj.get(u.location, ())})
        helpable = [p for p, d in planned.items() if d in reach and units[p].power == u.power]
        roll = rng.random()
        if helpable and roll < 0.45:
            p = rng.choice(helpable)
            t = units[p]
            orders.setdefault(u.power, []).append(f"{u.code} S {t.kind} {p} - {planned[p]}")
            planned[prov] = prov
        elif roll < 0.85 and reach:
            dest = rng.choice(reach)
            locs = [x for x in sorted(m.fleet_adj.get(u.location, ())) if province_of(x) == dest]
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


def play(rng: random.Random, years: int) -> list[tuple[Any, dict[str, list[str]]]]:
    """Movement phases of one game played with plausible orders and default builds."""
    core = _core()
    m = core.load_map()
    out = []
    pos = core.initial_position(m)
    while pos.phase.year < 1901 + years:
        if pos.phase.type == "M":
            orders = plausible_orders(rng, pos)
            out.append((pos, orders))
            pos = core.adjudicate(pos, orders).position
        elif pos.phase.type == "A":
            builds = {}
            for power in m.powers:
                free = [c for c in m.powers[power].home_centers
                        if c in pos.centers.get(power, ()) and pos.unit_at(c) is None]
                builds[power] = [f"Build A {c}" for c in free]
            pos = core.adjudicate(pos, builds).position
        else:
            pos = core.adjudicate(pos, {}).position
    return out


def _board(rng: random.Random, centres: list[str]) -> Any:
    """A spring 1905 board with one unit on each of ``centres``, home centres owned."""
    core = _core()
    m = core.load_map()
    units: dict[str, list[str]] = {}
    for c in centres:
        home = m.home_of(c) or rng.choice(list(m.powers))
        kind = "F" if m.provinces[c].kind == "coast" and rng.random() < 0.35 else "A"
        loc = m.locations(c)[0] if kind == "F" else c
        units.setdefault(home, []).append(f"{kind} {loc}")
    return core.make_position(m, "S1905M", units)


def dense_board(rng: random.Random) -> Any:
    """34 units: one on every supply centre, owned by a random neighbour-ish power."""
    return _board(rng, sorted(_core().load_map().supply_centers))


def small_board(rng: random.Random, n: int = 10) -> Any:
    """``n`` units on supply centres drawn at random."""
    return _board(rng, sorted(rng.sample(sorted(_core().load_map().supply_centers), n)))


def boards_with_orders(rng: random.Random, make: Any, count: int
                       ) -> list[tuple[Any, dict[str, list[str]]]]:
    return [(b, plausible_orders(rng, b)) for b in (make(rng) for _ in range(count))]


def position_doc(pos: Any, orders: dict[str, list[str]]) -> Doc:
    """The JSON contract's input for a movement position and its orders."""
    units: dict[str, list[str]] = {}
    for u in pos.units:
        units.setdefault(u.power, []).append(u.code)
    centers = {p: sorted(c) for p, c in pos.centers.items() if c}
    return {"phase": str(pos.phase), "units": units, "centers": centers, "orders": orders}


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def median(xs: list[float]) -> float:
    return statistics.median(xs)


# -- MILA ----------------------------------------------------------------------------------------
class Mila:
    """A worker process running MILA's engine on the interpreter ``python``.

    ``load(docs)`` sends the positions once; ``time(first, last)`` has the worker play
    positions ``first`` to ``last - 1`` and returns seconds per phase (``set_orders`` and
    ``process``; making the game and placing its units is not timed).
    """

    def __init__(self, python: str) -> None:
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "--mila-worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.version = self._ask("version")

    @staticmethod
    def find(python: str | None) -> Mila | None:
        """The worker on ``python`` (else ``$MILA_PYTHON``), or None when there is none."""
        python = python or os.environ.get("MILA_PYTHON")
        if not python:
            return None
        try:
            return Mila(python)
        except (OSError, RuntimeError) as exc:
            print(f"MILA worker on {python} did not start: {exc}", file=sys.stderr)
            return None

    def _ask(self, request: Any) -> Any:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError("the MILA worker stopped (is the diplomacy package installed?)")
        return json.loads(answer)

    def load(self, docs: list[Doc]) -> None:
        self._ask({"docs": docs})

    def time(self, first: int, last: int) -> list[float]:
        times: list[float] = self._ask({"time": [first, last]})
        return times

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def _mila_worker() -> None:
    """The worker's loop (run by the MILA interpreter): one JSON request per line."""
    from importlib import import_module, metadata

    diplomacy = import_module("diplomacy")  # only where MILA's package is installed
    docs: list[Doc] = []
    for line in sys.stdin:
        request = json.loads(line)
        if request == "version":
            answer: Any = metadata.version("diplomacy")
        elif "docs" in request:
            docs = request["docs"]
            answer = len(docs)
        else:
            first, last = request["time"]
            answer = [_mila_phase(diplomacy.Game, d) for d in docs[first:last]]
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def _mila_phase(game_class: Any, doc: Doc) -> float:
    game = game_class()
    game.clear_units()
    for power, units in doc["units"].items():
        game.set_units(power, units, reset=True)
    for power, centres in doc.get("centers", {}).items():
        game.set_centers(power, centres, reset=True)
    t0 = time.perf_counter()
    for power, orders in doc["orders"].items():
        game.set_orders(power, orders)
    game.process()
    return time.perf_counter() - t0


if __name__ == "__main__" and sys.argv[1:] == ["--mila-worker"]:
    _mila_worker()
