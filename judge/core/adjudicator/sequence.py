"""The phase sequence: S M → S R → F M → F R → W A → next S M.

Empty retreat and adjustment phases are skipped unless ``skip_empty`` is false.  Supply-centre
ownership changes when the Fall turn is over (after the Fall retreats, or after the Fall
moves when there is nothing to retreat): each centre belongs to the power whose unit stands on
it; an empty centre keeps its owner.
"""

from __future__ import annotations

from collections.abc import Mapping

from judge.core.adjudicator.adjustments import adjustments_needed
from judge.core.board import Dislodged, Position, Unit, freeze_centers
from judge.core.maps import Map
from judge.core.phases import ADJUSTMENTS, RETREATS

Centers = Mapping[str, frozenset[str]]


def update_centers(m: Map, centers: Centers, units: tuple[Unit, ...]) -> Centers:
    """Ownership once the Fall turn is over: a centre belongs to the power whose unit stands
    on it; an empty centre keeps its owner."""
    owner = {c: p for p, cs in centers.items() for c in cs}
    for u in units:
        if u.province in m.supply_centers:
            owner[u.province] = u.power
    by_power: dict[str, set[str]] = {p: set() for p in centers}
    for c, p in owner.items():
        by_power.setdefault(p, set()).add(c)
    return freeze_centers({p: cs for p, cs in by_power.items() if cs})


def next_position(pos: Position, units: tuple[Unit, ...], dislodged: tuple[Dislodged, ...],
                  skip_empty: bool = True, build_any: bool = False) -> Position:
    """The position at the next phase to be played, after a phase produced ``units``.

    Empty retreat and adjustment phases are skipped unless ``skip_empty`` is false (the
    DONT_SKIP_PHASES game rule); ``build_any`` (BUILD_ANY) says where builds are possible."""
    m, centers = pos.map, pos.centers
    nxt = pos.phase.successor()
    while True:
        if nxt.type == RETREATS:
            if dislodged or not skip_empty:
                return Position(m, nxt, units, centers, dislodged)
            nxt = nxt.successor()
            continue
        if nxt.type == ADJUSTMENTS:
            centers = update_centers(m, centers, units)
            candidate = Position(m, nxt, units, centers)
            if not skip_empty or adjustments_needed(candidate, build_any):
                return candidate
            nxt = nxt.successor()
            continue
        return Position(m, nxt, units, centers)
