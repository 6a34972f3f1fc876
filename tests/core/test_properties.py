"""Property tests on random legal positions and orders (hypothesis drives the seeds)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.core import adjudicate, load_map, make_position
from judge.core.maps import ARMY, FLEET, province_of

M = load_map()
POWERS = list(M.powers)
LAND = [p for p, v in M.provinces.items() if v.kind in ("land", "coast")]
SEA = [p for p, v in M.provinces.items() if v.kind == "sea"]


def random_board(rng: random.Random, n: int) -> dict[str, list[str]]:
    units: dict[str, list[str]] = {}
    for prov in rng.sample(LAND + SEA, n):
        kind = FLEET if prov in SEA else rng.choice([ARMY, FLEET]) \
            if M.provinces[prov].kind == "coast" else ARMY
        loc = rng.choice(M.locations(prov)) if kind == FLEET else prov
        units.setdefault(rng.choice(POWERS), []).append(f"{kind} {loc}")
    return units


def random_orders(rng: random.Random, units: dict[str, list[str]]) -> dict[str, list[str]]:
    where = {province_of(u[2:]): u for us in units.values() for u in us}
    orders: dict[str, list[str]] = {}
    for power, us in units.items():
        for u in us:
            kind, loc = u.split()
            prov = province_of(loc)
            reach = sorted(M.army_adj[prov] if kind == ARMY else
                           {province_of(x) for x in M.fleet_adj.get(loc, ())})
            roll = rng.random()
            if roll < 0.15 or not reach:
                o = f"{u} H"
            elif roll < 0.6:
                o = f"{u} - {rng.choice(reach)}"
            elif roll < 0.85:
                friend = [where[p] for p in reach if p in where]
                if not friend:
                    o = f"{u} - {rng.choice(reach)}"
                else:
                    t = rng.choice(friend)
                    tp = province_of(t[2:])
                    tdest = [p for p in M.any_adj[tp] if p in reach]
                    o = f"{u} S {t}" + (f" - {rng.choice(tdest)}" if tdest and rng.random() < .7
                                        else "")
            elif kind == FLEET and M.provinces[prov].is_sea:
                coasts = [p for p in M.fleet_reach[prov] if M.provinces[p].kind == "coast"]
                armies = [where[p] for p in coasts if p in where and where[p][0] == ARMY]
                if armies and len(coasts) > 1:
                    a = rng.choice(armies)
                    d = rng.choice([c for c in coasts if c != province_of(a[2:])])
                    o = f"{u} C {a} - {d}"
                    if rng.random() < 0.8:
                        orders.setdefault(power, []).append(f"{a} - {d}")
                else:
                    o = f"{u} H"
            else:
                o = f"{u} - {rng.choice(reach)}"
            orders.setdefault(power, []).append(o)
    return orders


def snapshot(res):
    return (sorted((r.power, r.text, r.result, r.dislodged) for r in res.results),
            sorted(res.units), sorted((d.unit, d.retreats) for d in res.dislodged),
            str(res.next_phase))


boards = st.tuples(st.integers(0, 2**32), st.integers(2, 34))


@settings(max_examples=150, deadline=None)
@given(boards)
def test_order_of_orders_does_not_matter(seed_n) -> None:
    seed, n = seed_n
    rng = random.Random(seed)
    units = random_board(rng, n)
    orders = random_orders(rng, units)
    pos = make_position(M, "S1901M", units)
    first = snapshot(adjudicate(pos, orders))
    shuffled = {}
    for power in rng.sample(list(orders), len(orders)):
        # the last order for a unit wins, so keep each unit's own sequence
        shuffled[power] = list(orders[power])
        rng.shuffle(shuffled[power]) if len(set(o.split()[1] for o in orders[power])) == len(
            orders[power]) else None
    assert snapshot(adjudicate(pos, shuffled)) == first
    assert snapshot(adjudicate(pos, orders)) == first  # identical input, identical output


@settings(max_examples=150, deadline=None)
@given(boards)
def test_units_are_conserved_and_retreats_are_legal(seed_n) -> None:
    seed, n = seed_n
    rng = random.Random(seed)
    units = random_board(rng, n)
    orders = random_orders(rng, units)
    pos = make_position(M, "S1901M", units)
    res = adjudicate(pos, orders)
    before = sorted((u.power, u.kind) for u in pos.units)
    after = sorted([(u.power, u.kind) for u in res.units] +
                   [(d.unit.power, d.unit.kind) for d in res.dislodged])
    assert before == after
    occupied = {u.province for u in res.units}
    assert len(occupied) == len(res.units)
    dislodged_units = {d.unit for d in res.dislodged}
    standoffs = {province_of(r.order.dest) for r in res.results
                 if r.result == "bounce" and r.unit not in dislodged_units}
    convoyed_from = {r.unit.province for r in res.results
                     if r.result == "ok" and getattr(r.order, "dest", None)
                     and province_of(r.order.dest) not in M.army_adj[r.unit.province]
                     and r.unit.kind == ARMY}
    for d in res.dislodged:
        for loc in d.retreats:
            prov = province_of(loc)
            assert prov not in occupied
            assert prov not in standoffs
            assert prov != d.attacker_from or d.attacker_from in convoyed_from
