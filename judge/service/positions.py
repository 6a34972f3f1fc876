"""Positions in the store: the core's Position as JSON text, and the master's POSITION block.

The JSON has the shape of DESIGN §3.3's input (``phase``, ``units``, ``centers``,
``dislodged``), so a stored position can be fed to ``judge adjudicate`` as it is.
"""

from __future__ import annotations

import json
from typing import Any

from judge.core import InputError, Map, OrderError, Position, load_map, make_position, parse_order
from judge.service.errors import GameError


def position_to_dict(pos: Position) -> dict[str, Any]:
    units: dict[str, list[str]] = {}
    for u in pos.units:
        units.setdefault(u.power, []).append(u.code)
    dislodged: dict[str, dict[str, list[str]]] = {}
    for d in pos.dislodged:
        dislodged.setdefault(d.unit.power, {})[d.unit.code] = list(d.retreats)
    return {"phase": str(pos.phase), "units": units,
            "centers": {p: sorted(c) for p, c in sorted(pos.centers.items()) if c},
            "dislodged": dislodged}


def dump_position(pos: Position) -> str:
    return json.dumps(position_to_dict(pos), sort_keys=True)


def load_position(variant: str, text: str) -> Position:
    doc = json.loads(text)
    return make_position(load_map(variant), doc["phase"], doc["units"], doc["centers"],
                         doc.get("dislodged") or None)


def _power_named(m: Map, word: str) -> str:
    w = word.strip().upper()
    for name, power in m.powers.items():
        if w in (name, power.adjective.upper()) or (len(w) == 1 and w == power.letter):
            return name
    raise GameError(f'"{word.strip()}" is not a power of this map')


def _province(m: Map, word: str) -> str:
    # The order parser already knows every spelling and abbreviation of a province.
    o = parse_order(m, f"A {word} H", "M")
    if isinstance(o, OrderError):
        raise GameError(f'"{word}" is not a province: {o.message}')
    return o.unit.location


def parse_position_block(m: Map, phase: str, lines: list[str]) -> Position:
    """``France: A Par, F Bre; centers Par Bre Mar`` per line; unlisted powers have nothing."""
    units: dict[str, list[str]] = {}
    centers: dict[str, list[str]] = {}
    for raw in lines:
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        who, sep, rest = line.partition(":")
        if not sep:
            raise GameError(f'"{line}": expected "<Power>: <units>; centers <centres>"')
        power = _power_named(m, who)
        unit_part, _, center_part = rest.partition(";")
        for item in filter(None, (s.strip() for s in unit_part.split(","))):
            o = parse_order(m, f"{item} H", "M")
            if isinstance(o, OrderError) or o.unit.kind is None:
                raise GameError(f'"{item}": a unit is A or F and a province, e.g. "A Par"')
            units.setdefault(power, []).append(f"{o.unit.kind} {o.unit.location}")
        words = center_part.replace(",", " ").split()
        if words and words[0].lower() in ("centers", "centres", "center", "centre", "sc"):
            words = words[1:]
        elif words:
            raise GameError(f'"{center_part.strip()}": write "centers" before the centres')
        for w in words:
            centers.setdefault(power, []).append(_province(m, w).partition("/")[0])
    try:
        return make_position(m, phase, units, centers)
    except InputError as exc:
        raise GameError(str(exc)) from None
