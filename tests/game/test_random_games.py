"""Whole games by mail with random orders, for several game-years each (seeded).

Every power mails random orders each phase (moves, supports, convoys, retreats, builds and
removals), some powers leave their orders out and the master's PROCESS then moves the game on.
After every phase: no mail was set aside, the new phase gives somebody a choice (no retreat
phase without a unit that can retreat, no adjustment phase without an adjustment), the stored
board is what the adjudicator makes of the stored orders, and every unit is accounted for.
"""

from __future__ import annotations

import json
import random

import pytest
from gamekit import Judge, start_full_game
from randomplay import random_orders
from sqlalchemy import select

from judge.core import PhaseResult, Position, adjudicate, load_map
from judge.core.adjudicator.adjustments import adjustments_needed
from judge.core.order_results import OK
from judge.service.positions import load_position
from judge.store.models import Game, InboundMessage, PhaseSnapshot

M = load_map()


def current(j: Judge, name: str) -> tuple[Game, Position]:
    with j.store.transaction() as s:
        g = s.scalars(select(Game).where(Game.name_key == name)).one()
        return g, load_position(g.variant, g.position)


def last_snapshot(j: Judge, name: str) -> PhaseSnapshot:
    with j.store.transaction() as s:
        g = s.scalars(select(Game).where(Game.name_key == name)).one()
        return s.scalars(select(PhaseSnapshot).where(PhaseSnapshot.game_id == g.id)
                         .order_by(PhaseSnapshot.seq.desc())).first()


def accounted_for(before: Position, res: PhaseResult) -> None:
    """Nobody's units appear or vanish except by the rules."""
    kind = before.phase.type
    if kind == "M":
        assert len(res.units) + len(res.dislodged) == len(before.units)
    elif kind == "R":
        came_back = sum(1 for r in res.results if r.result == OK)
        assert len(res.units) == len(before.units) + came_back
    else:
        for power in M.powers:
            delta = len(before.centers.get(power, ())) - len(before.units_of(power))
            have = len([u for u in res.units if u.power == power])
            mine = len(before.units_of(power))
            # removals are always complete (chosen when missing); builds may fall short
            assert (have == mine + delta) if delta < 0 else (mine <= have <= mine + delta)
    assert len({u.province for u in res.units}) == len(res.units)


def play(j: Judge, name: str, seed: int, years: int) -> int:
    rng = random.Random(seed)
    players = start_full_game(j, name, extra="RULES CIVIL_DISORDER")
    phases = 0
    while True:
        game, pos = current(j, name)
        if game.state != "active" or pos.phase.year >= 1901 + years:
            return phases
        orders = random_orders(pos, rng, skip=0.15)
        for power, lines in orders.items():
            reply = j.mail(players[power], "\n".join(
                [f"SIGNON {power[0]}{name} {j.passwords[power]}", *lines]))
            assert "Signed on" in reply.body, reply.body
        game, _ = current(j, name)
        if game.phase == str(pos.phase) and game.state == "active":
            reply = j.mail("master@example.org", f"SIGNON M{name} mpw\nPROCESS")
            assert "has been processed;" in reply.body, reply.body
        phases += 1
        # what the judge stored is what the adjudicator makes of the stored orders
        snap = last_snapshot(j, name)
        assert snap.phase == str(pos.phase)
        before = load_position(game.variant, snap.position_before)
        stored = {p: list(o.values()) for p, o in json.loads(snap.orders).items()}
        res = adjudicate(before, stored,
                         random_removals_seed=f"{game.id}:{before.phase}")
        after = load_position(game.variant, snap.position_after)
        assert after == res.position
        accounted_for(before, res)
        # somebody has a choice in the phase now open
        game, nxt = current(j, name)
        if nxt.phase.type == "R":
            assert any(d.retreats for d in nxt.dislodged), nxt
        elif nxt.phase.type == "A":
            assert adjustments_needed(nxt), nxt
        with j.store.transaction() as s:
            assert not s.scalars(select(InboundMessage).where(
                InboundMessage.status == "failed")).all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_games_by_mail_never_freeze(judge_in_process: Judge, seed: int) -> None:
    phases = play(judge_in_process, f"rnd{seed}", seed, years=4)
    assert phases >= 8  # four years: at least two movement phases each
