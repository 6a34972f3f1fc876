"""The phase sequence: S M → S R → F M → F R → W A → next S M.

Empty retreat and adjustment phases are skipped unless ``skip_empty`` is false.  Supply-centre
ownership changes when the Fall turn is over (after the Fall retreats, or after the Fall
moves when there is nothing to retreat): each centre belongs to the power whose unit stands on
it; an empty centre keeps its owner.
"""

from __future__ import annotations

from typing import Mapping

from judge.core.adjudicator.adjustments import adjustments_needed
from judge.core.board import Dislodged, Position, Unit, build_position, freeze_centers
from judge.core.phases import ADJUSTMENTS, RETREATS, Phase


def update_centers(pos: Position, units: tuple[Unit, ...]) -> Mapping[str, frozenset[str]]:
    owner = {c: p for p, cs in pos.centers.items() for c in cs}
    for u in units:
        if u.province in pos.map.supply_centers:
            owner[u.province] = u.power
    by_power: dict[str, set[str]] = {p: set() for p in pos.centers}
    for c, p in owner.items():
        by_power.setdefault(p, set()).add(c)
    return freeze_centers({p: cs for p, cs in by_power.items() if cs})


def next_position(pos: Position, units: tuple[Unit, ...], dislodged: tuple[Dislodged, ...],
                  skip_empty: bool = True, build_any: bool = False) -> Position:
    """The position at the next phase to be played, after a phase produced ``units``.

    Empty retreat and adjustment phases are skipped unless ``skip_empty`` is false (the
    DONT_SKIP_PHASES game rule); ``build_any`` (BUILD_ANY) says where builds are possible."""
    m, phase, centers = pos.map, pos.phase, pos.centers
    nxt = phase.successor()
    while True:
        if nxt.type == RETREATS:
            if dislodged or not skip_empty:
                return build_position(m, nxt, units, centers, dislodged)
            nxt = nxt.successor()
            continue
        if nxt.type == ADJUSTMENTS:
            centers = update_centers(build_position(m, phase, units, centers), units)
            candidate = build_position(m, nxt, units, centers)
            if not skip_empty or adjustments_needed(candidate, build_any):
                return candidate
            nxt = nxt.successor()
            continue
        return build_position(m, nxt, units, centers)


def parse_phase(text: str) -> Phase:
    return Phase.parse(text)
