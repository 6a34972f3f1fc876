"""Positions in the store: the core's Position as JSON text, and the master's POSITION block.

The JSON has the shape of the input of ``judge adjudicate`` (``phase``, ``units``,
``centers``, ``dislodged``: docs/adjudication-json.md), so a stored position can be fed to it
as it is.
"""

from __future__ import annotations

import json
from typing import Any

from judge.core import (Hold, InputError, Map, OrderError, Position, load_map, make_position,
                        parse_order)
from judge.core.powers import PowerNameError, find_power
from judge.service.errors import GameError, UnreadableState


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
    """The stored form of ``pos``, proven to load back into the same position.

    Everything stored about a game must load again, or every later mail about it fails: so a
    position that would not is refused here (:class:`UnreadableState`) before it is stored.
    """
    text = json.dumps(position_to_dict(pos), sort_keys=True)
    try:
        again = load_position(pos.map.name, text)
    except InputError as exc:
        raise UnreadableState(f"the board of {pos.phase} would not load again: {exc}") from None
    if again != pos:
        raise UnreadableState(f"the board of {pos.phase} would load back differently")
    return text


def load_position(variant: str, text: str) -> Position:
    doc = json.loads(text)
    return make_position(load_map(variant), doc["phase"], doc["units"], doc["centers"],
                         doc.get("dislodged") or None)


def _power_named(m: Map, word: str) -> str:
    found = find_power(m, word)  # the one reader of power names
    if isinstance(found, PowerNameError):
        raise GameError("position_refused", reason=found.message)
    return found


def _province(m: Map, word: str) -> str:
    # The order parser already knows every spelling and abbreviation of a province.
    o = parse_order(m, f"A {word} H", "M")
    if isinstance(o, OrderError):
        raise GameError("position_province", word=word, reason=o.message)
    if not isinstance(o, Hold):  # "<unit> H" is always read as a hold
        raise GameError("position_province", word=word, reason=None)
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
            raise GameError("position_line_form", line=line)
        power = _power_named(m, who)
        unit_part, _, center_part = rest.partition(";")
        for item in filter(None, (s.strip() for s in unit_part.split(","))):
            o = parse_order(m, f"{item} H", "M")
            if not isinstance(o, Hold) or o.unit.kind is None:
                raise GameError("position_unit_form", item=item)
            units.setdefault(power, []).append(f"{o.unit.kind} {o.unit.location}")
        words = center_part.replace(",", " ").split()
        if words and words[0].lower() in ("centers", "centres", "center", "centre", "sc"):
            words = words[1:]
        elif words:
            raise GameError("position_centres_form", text=center_part.strip())
        for w in words:
            centers.setdefault(power, []).append(_province(m, w).partition("/")[0])
    try:
        return make_position(m, phase, units, centers)
    except InputError as exc:
        raise GameError("position_refused", reason=str(exc)) from None


def final_centres(pos: Position) -> tuple[tuple[str, int], ...]:
    """The supply centres each power owns, every power in map order (the end of a game)."""
    return tuple(pos.center_counts().items())


def holdings(pos: Position, power: str) -> dict[str, Any]:
    """What a power has on the board, for the mail that gives it to a player: its units
    (``"Army Vienna"``, map order), its home centres and the centres it owns (names)."""
    m = pos.map
    names = m.provinces
    return dict(units=tuple(u.text(m) for u in pos.units_of(power)),
                homes=tuple(sorted(names[c].name for c in m.powers[power].home_centers)),
                centres=tuple(sorted(names[c].name for c in pos.centers.get(power, ()))))
