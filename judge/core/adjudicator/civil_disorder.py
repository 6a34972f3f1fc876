"""Civil-disorder removals (2023 rulebook, DATC 4.D.8 and 6.J).

When a power must remove units and orders too few removals, the judge removes for it the unit
farthest from the power's nearest *owned* supply centre, counting moves where armies and fleets
alike may cross land and sea.  Ties: fleets before armies, then the province's English name in
alphabetical order.

DPjudge's CIVIL_DISORDER game rule chooses differently: at random, keeping units on
supply centres (:func:`random_removals`); the judge applies it by giving those removals as
the power's orders.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Iterable

from judge.core.board import Unit
from judge.core.maps import FLEET, Map


def distance_to_owned(m: Map, province: str, owned: frozenset[str]) -> int:
    """Moves from a province to the nearest owned centre over the whole map (∞ if none)."""
    if province in owned:
        return 0
    seen = {province}
    queue = deque([(province, 0)])
    while queue:
        here, dist = queue.popleft()
        for nxt in m.any_adj[here]:
            if nxt in seen:
                continue
            if nxt in owned:
                return dist + 1
            seen.add(nxt)
            queue.append((nxt, dist + 1))
    return 10**6


def civil_disorder_removals(m: Map, units: Iterable[Unit], owned: frozenset[str],
                            count: int) -> list[Unit]:
    """The ``count`` units to remove, in removal order."""
    def key(u: Unit) -> tuple[int, int, str]:
        return (-distance_to_owned(m, u.province, owned), 0 if u.kind == FLEET else 1,
                m.provinces[u.province].name)
    return sorted(units, key=key)[:max(count, 0)]


def random_removals(m: Map, units: Iterable[Unit], count: int, seed: str) -> list[Unit]:
    """The CIVIL_DISORDER game rule's removals (DPjudge's rules): ``count`` units chosen at random,
    keeping units that stand on supply centres as long as others can go.

    ``seed`` makes the choice reproducible: the judge passes the game, phase and power, so
    reprocessing a phase (after a ROLLBACK) removes the same units.
    """
    rng = random.Random(seed)
    # sort first: the draw must not depend on the order the units were given in
    ordered = sorted(units, key=lambda u: u.province)
    off = [u for u in ordered if u.province not in m.supply_centers]
    on = [u for u in ordered if u.province in m.supply_centers]
    rng.shuffle(off)
    rng.shuffle(on)
    return (off + on)[:max(count, 0)]
