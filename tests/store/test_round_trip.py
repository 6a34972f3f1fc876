"""Everything the judge stores about a phase loads again, as it was.

For thousands of random positions (hypothesis drives the seeds) a few phases are played in a
row — movement, retreats and adjustments, armies and fleets on every kind of coast, standard and
Formal Diplomacy — and after each the next position (and the Formal state) goes through the real
store and back.  The same property holds for the adjudication JSON contract: the adjudicator's
own output, fed back as the input of the next phase, is the same board.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from randomplay import random_orders

from judge.core import Position, adjudicate, load_map, make_position
from judge.core.formal import adjudicate_formal, initial_formal_state
from judge.core.jsonio import adjudicate_document
from judge.core.maps import ARMY, FLEET
from judge.service.formal import state as formal_state
from judge.service.positions import dump_position, load_position, position_to_dict
from judge.store.db import Store
from judge.store.models import Game
from judge.store.schema import ensure_schema

M = load_map()
POWERS = list(M.powers)
PLACES = [p for p, v in M.provinces.items() if v.kind != "impassable"]


def random_position(rng: random.Random) -> Position:
    """A random board in a random phase: units of both kinds on every kind of place (fleets
    on one coast of Spain, Bulgaria and St Petersburg) and centres owned at random."""
    units: dict[str, list[str]] = {}
    for prov in rng.sample(PLACES, rng.randint(2, 34)):
        kinds = [k for k in (ARMY, FLEET) if any(M.can_hold(k, loc) for loc in
                                                 {prov, *M.locations(prov)})]
        kind = rng.choice(kinds)
        loc = rng.choice([x for x in {prov, *M.locations(prov)} if M.can_hold(kind, x)])
        units.setdefault(rng.choice(POWERS), []).append(f"{kind} {loc}")
    centers: dict[str, list[str]] = {}
    for c in sorted(M.supply_centers):
        if rng.random() < 0.8:
            centers.setdefault(rng.choice(POWERS), []).append(c)
    phase = rng.choice(["S1901M", "F1901M", "F1905M", "S1910M"])
    return make_position(M, phase, units, centers)


@pytest.fixture(scope="module")
def game_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    path: Path = tmp_path_factory.mktemp("round_trip") / "judge.db"
    store = Store(f"sqlite:///{path}")
    ensure_schema(store.engine)
    with store.transaction() as s:
        s.add(Game(id=1, name="g", name_key="g", variant="standard", phase="S1901M",
                   position="{}", movement_seconds=1, retreat_seconds=1,
                   adjustment_seconds=1, grace_seconds=0, created_at=datetime.now(timezone.utc)))
    yield store
    store.dispose()


def through_the_store(store: Store, pos: Position, variant_state: str | None = None
                      ) -> tuple[Position, str | None]:
    with store.transaction() as s:
        g = s.get(Game, 1)
        assert g is not None
        g.phase, g.position, g.variant_state = str(pos.phase), dump_position(pos), variant_state
    with store.transaction() as s:
        g = s.get(Game, 1)
        assert g is not None
        return load_position("standard", g.position), g.variant_state


seeds = st.integers(0, 2**32)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds)
def test_every_phase_stored_loads_again(game_store: Store, seed: int) -> None:
    rng = random.Random(seed)
    pos = random_position(rng)
    for _ in range(4):  # movement, then retreats and adjustments as they come
        res = adjudicate(pos, random_orders(pos, rng), skip_empty=rng.random() < 0.8)
        loaded, _ = through_the_store(game_store, res.position)
        assert loaded == res.position
        assert position_to_dict(loaded) == position_to_dict(res.position)
        pos = res.position


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds)
def test_every_formal_phase_stored_loads_again(game_store: Store, seed: int) -> None:
    rng = random.Random(seed)
    pos = random_position(rng)
    state = initial_formal_state(M, turns=rng.randint(1, 5))
    for _ in range(4):
        orders = random_orders(pos, rng)
        if pos.phase.type == "M":  # declarations and claims among the standard orders
            for power, lines in orders.items():
                if rng.random() < 0.3:
                    lines.append(f"DWO {rng.choice([p for p in POWERS if p != power])}")
                mine = pos.units_of(power)
                if mine and rng.random() < 0.3:
                    u = rng.choice(mine)
                    near = sorted(M.any_adj[u.province])
                    lines.append(f"{u.kind} {u.location} SOI {rng.choice(near)}")
        res = adjudicate_formal(pos, state, orders)
        saved = formal_state._dump(res.state, draws=False)
        loaded, text = through_the_store(game_store, res.position, saved)
        assert loaded == res.position
        game = Game(variant="formal", variant_state=text)
        assert formal_state.state_of(game) == res.state
        pos, state = res.position, res.state
        if state.over:
            break


@settings(max_examples=300, deadline=None)
@given(seeds)
def test_the_json_contract_takes_its_own_output_as_the_next_input(seed: int) -> None:
    rng = random.Random(seed)
    pos = random_position(rng)
    doc = position_to_dict(pos)
    for _ in range(4):
        orders = random_orders(pos, rng, mistakes=False)
        out = adjudicate_document({**doc, "orders": orders})
        res = adjudicate(pos, orders)
        doc = {"phase": out["next_phase"], "units": out["units"], "centers": out["centers"],
               "dislodged": out["dislodged"]}
        again = make_position(M, doc["phase"], doc["units"], doc["centers"], doc["dislodged"])
        # the same board as the core's own next position (units that had to disband, listed
        # with no retreats, are gone in the next phase either way)
        assert (again.phase, again.units, again.centers) == (
            res.position.phase, res.position.units, res.position.centers)
        assert [d for d in again.dislodged if d.retreats] == list(res.position.dislodged)
        pos = res.position
        doc = position_to_dict(pos)
