"""Random play for long tests: seeded order lines for every phase type of any position.

``random_orders(pos, rng)`` gives each power's order lines as a player would mail them: mostly
legal moves, supports, convoys, retreats, builds and removals (with coasts where they matter),
some holds, a few orders that fail, and sometimes a power that leaves orders out.  Pure (no
store, no mail), so the same generator drives the core, the JSON contract, the service and
whole games by mail.  Used by tests and by ``benchmarks/random_games.py``.
"""

from __future__ import annotations

import random

from judge.core import Position
from judge.core.adjudicator.adjustments import adjustment_delta, buildable_centers
from judge.core.maps import ARMY, FLEET, Map, province_of

Orders = dict[str, list[str]]


def random_orders(pos: Position, rng: random.Random, *, skip: float = 0.1,
                  powers: list[str] | None = None, mistakes: bool = True) -> Orders:
    """Order lines for every power (or ``powers``) that has something to order in ``pos``.

    A power leaves all its orders out with probability ``skip``, and single units are left
    without an order now and then, so the defaults (holds, disbands, waives, chosen removals)
    get their share of play.  Supports mostly back moves that were really ordered, so units
    are dislodged (and retreat) about as often as in real games.  With ``mistakes`` a power
    now and then adds a line that any judge must refuse.
    """
    kind = pos.phase.type
    chosen = set(powers or pos.map.powers)
    playing = [p for p in pos.map.powers if p in chosen and rng.random() >= skip]
    if kind == "M":
        out = _movement(pos, playing, rng)
    else:
        make = _retreats if kind == "R" else _adjustments
        out = {p: make(pos, p, rng) for p in playing}
    for lines in out.values():  # players mistype now and then
        if mistakes and lines and rng.random() < 0.05:
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(MISTAKES))
    return {p: lines for p, lines in out.items() if lines}


# lines a player might send by mistake; each is refused, whatever the phase
MISTAKES = ["A Xyz-Par", "F Mun-Ber", "Bulid A Par", "A Par-Par", "F Nth C F Lon-Hol",
            "A Sev R Mos/nc"]


def _unit(kind: str, loc: str) -> str:
    return f"{kind} {loc}"


def _movement(pos: Position, playing: list[str], rng: random.Random) -> Orders:
    """Moves first (every power's), then supports of those moves and holds, then convoys."""
    m = pos.map
    where = {u.province: u for u in pos.units}
    moves: dict[str, str] = {}  # unit's province → destination location
    role: dict[str, str] = {}
    for u in pos.units:
        if u.power not in playing or rng.random() < 0.05:
            continue  # not ordered: the unit holds
        roll = rng.random()
        reach = _reach(m, u.kind, u.location)
        if roll < 0.5 and reach:
            enemies = [d for d in reach if province_of(d) in where
                       and where[province_of(d)].power != u.power]
            moves[u.province] = rng.choice(enemies if enemies and rng.random() < 0.4
                                           else reach)
            role[u.province] = "move"
        elif roll < 0.85:
            role[u.province] = "support"
        elif u.kind == FLEET and m.provinces[u.province].is_sea:
            role[u.province] = "convoy"
        else:
            role[u.province] = "hold"
    out: Orders = {}
    for u in pos.units:
        r = role.get(u.province)
        if r is None:
            continue
        me = _unit(u.kind, u.location)
        line = f"{me} H"
        if r == "move":
            line = f"{me} - {moves[u.province]}"
        elif r == "support":
            near = {province_of(x) for x in _reach(m, u.kind, u.location)}
            backed = [(p, d) for p, d in moves.items()
                      if province_of(d) in near and p != u.province]
            # backing an attack on another power's unit is what dislodges units
            attacks = [(p, d) for p, d in backed if province_of(d) in where
                       and where[province_of(d)].power != where[p].power]
            holders = [p for p in near if p in where]
            if backed and rng.random() < 0.75:
                p, d = rng.choice(attacks if attacks and rng.random() < 0.7 else backed)
                t = where[p]
                line = f"{me} S {_unit(t.kind, t.location)} - {province_of(d)}"
            elif holders:
                t = where[rng.choice(holders)]
                line = f"{me} S {_unit(t.kind, t.location)}"
        elif r == "convoy":
            armies = [where[p] for p in m.fleet_reach[u.province]
                      if p in where and where[p].kind == ARMY]
            coasts = [p for p in m.fleet_reach[u.province] if m.provinces[p].kind == "coast"]
            if armies:
                a = rng.choice(armies)
                dest = rng.choice([c for c in coasts if c != a.province] or coasts)
                line = f"{me} C A {a.province} - {dest}"
                if a.power in playing and rng.random() < 0.7:
                    out.setdefault(a.power, []).append(f"A {a.province} - {dest} VIA")
        out.setdefault(u.power, []).append(line)
    return out


def _reach(m: Map, kind: str, loc: str) -> list[str]:
    if kind == ARMY:
        return sorted(m.army_adj[loc])
    return sorted(m.fleet_adj.get(loc, ()))


def _retreats(pos: Position, power: str, rng: random.Random) -> list[str]:
    lines: list[str] = []
    for d in pos.dislodged:
        if d.unit.power != power:
            continue
        me = _unit(d.unit.kind, d.unit.location)
        roll = rng.random()
        if roll < 0.7 and d.retreats:
            lines.append(f"{me} R {rng.choice(d.retreats)}")
        elif roll < 0.85:
            lines.append(f"{me} D")
        # else: no order, the unit disbands
    return lines


def _adjustments(pos: Position, power: str, rng: random.Random) -> list[str]:
    m = pos.map
    delta = adjustment_delta(pos, power)
    lines: list[str] = []
    if delta > 0:
        free = buildable_centers(pos, power)
        rng.shuffle(free)
        for center in free[:delta]:
            if rng.random() < 0.1:
                lines.append("WAIVE")
                continue
            spots = [loc for loc in m.locations(center) if m.can_hold(FLEET, loc)]
            if spots and (rng.random() < 0.4 or not m.can_hold(ARMY, center)):
                lines.append(f"Build F {rng.choice(spots)}")
            else:
                lines.append(f"Build A {center}")
    elif delta < 0:
        units = list(pos.units_of(power))
        rng.shuffle(units)
        for u in units[:-delta]:
            if rng.random() < 0.85:
                lines.append(f"Remove {_unit(u.kind, u.location)}")
    return lines
