#!/usr/bin/env python3
"""Long random play through the service layer: do games ever freeze?

Usage::

    .venv/bin/python benchmarks/random_games.py [--games 100] [--years 10] [--seed 1]
                                                [--database URL]

Plays ``--games`` seeded games of ``--years`` game-years each (1,000 game-years by default)
on a fresh SQLite store (or ``--database``), the way the daemon plays them: seven players per
game, random orders from every power each phase (moves, supports, convoys, retreats, builds,
removals; some powers leave orders out — the games have CIVIL_DISORDER), stored through the
service layer's order checks, each phase processed in a transaction of its own with its
results mail rendered and queued, like a deadline in the scheduler.

After every phase it checks that the stored board loads again, that the new phase gives some
power a choice (no retreat phase without a unit that can retreat, no adjustment phase without
an adjustment) and that every unit is accounted for.  It prints how many games froze (a phase
that could not be processed or a board that could not be loaded), how many empty phases were
opened, the phases played by type, and the time taken.  Not part of the test run; exits 1 if
a game froze or an empty phase was opened, else 0.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("JUDGE_PASSWORD_COST", "10")  # joining is not what is measured
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from randomplay import random_orders  # noqa: E402

from judge.basics.utc import utcnow  # noqa: E402
from judge.basics.config import Config  # noqa: E402
from judge.core.adjudicator.adjustments import adjustments_needed  # noqa: E402
from judge.mail.writing.compose import Composer  # noqa: E402
from judge.mail.writing.game_mail import queue_events  # noqa: E402
from judge.service.errors import GameError  # noqa: E402
from judge.service.games import create_game, join_game, lock_game, seats  # noqa: E402
from judge.service.orders import submit_line  # noqa: E402
from judge.service.processing import position_of, process_phase  # noqa: E402
from judge.store.db import Store  # noqa: E402
from judge.store.schema import ensure_schema  # noqa: E402

MASTER = "master@example.org"


def new_game(store: Store, name: str) -> int:
    now = utcnow()
    with store.transaction() as s:
        game, _ = create_game(s, name, "mpw", MASTER, now, rules=["CIVIL_DISORDER"])
        game_id = game.id
        for i in range(7):
            join_game(s, name, f"pw{i}", f"p{i}@example.org", now)
    return game_id


def play_phase(store: Store, composer: Composer, config: Config, game_id: int,
               rng: random.Random, tally: Counter[str]) -> str | None:
    """Order and process one phase; returns the new phase, or None when the game is over."""
    now = utcnow()
    with store.transaction() as s:
        game = lock_game(s, game_id)
        pos = position_of(game)
        by_power = {seat.power: seat for seat in seats(s, game, "power") if seat.power}
        for power, lines in random_orders(pos, rng, skip=0.15).items():
            for line in lines:
                try:
                    submit_line(by_power[power], pos, line)
                    tally["order lines accepted"] += 1
                except GameError:
                    tally["order lines refused"] += 1
        queue_events(s, composer, config, process_phase(s, game, now, "deadline"), now)
        tally[f"{pos.phase.type} phases"] += 1
        if game.state != "active":
            return None
        after = position_of(game)  # the stored board loads again
        if after.phase.type == "R" and not any(d.retreats for d in after.dislodged):
            tally["empty retreat phases"] += 1
        if after.phase.type == "A" and not adjustments_needed(after):
            tally["empty adjustment phases"] += 1
        if pos.phase.type == "M" and after.phase.type == "R":
            units = len(after.units) + len(after.dislodged)
            assert units <= len(pos.units), "units appeared"
        return game.phase


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--years", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--database", help="a database URL (default: a fresh SQLite file)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(args.database or f"sqlite:///{Path(tmp) / 'judge.db'}")
        ensure_schema(store.engine)
        config = Config()
        composer = Composer(config)
        tally: Counter[str] = Counter()
        frozen: list[str] = []
        years_played = 0
        started = time.perf_counter()
        for g in range(args.games):
            rng = random.Random(f"{args.seed}:{g}")
            name = f"rnd{g}"
            game_id = new_game(store, name)
            phase: str | None = "S1901M"
            try:
                while phase is not None and int(phase[1:5]) < 1901 + args.years:
                    phase = play_phase(store, composer, config, game_id, rng, tally)
            except Exception as exc:  # a freeze: say where, go on with the next game
                frozen.append(f"{name} at {phase}: {type(exc).__name__}: {exc}")
            years_played += (int(phase[1:5]) - 1901) if phase else args.years
            tally["games over early"] += phase is None
        elapsed = time.perf_counter() - started
        store.dispose()
    phases = sum(v for k, v in tally.items() if k.endswith(" phases") and "empty" not in k)
    print(f"random games: {args.games} games, {years_played} game-years, {phases} phases "
          f"({tally['M phases']} movement, {tally['R phases']} retreat, "
          f"{tally['A phases']} adjustment) in {elapsed:.1f} s = {phases / elapsed:.0f} "
          "phases/s")
    print(f"  order lines accepted {tally['order lines accepted']}, refused "
          f"{tally['order lines refused']}; games won or drawn before the end: "
          f"{tally['games over early']}")
    print(f"  frozen games: {len(frozen)}")
    for line in frozen:
        print(f"    {line}")
    print(f"  empty retreat phases opened: {tally['empty retreat phases']}")
    print(f"  empty adjustment phases opened: {tally['empty adjustment phases']}")
    bad = frozen or tally["empty retreat phases"] or tally["empty adjustment phases"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
