"""Rule checks of Formal Diplomacy that need a position: entry without war, surrender, claims.

Pure functions over a :class:`~judge.core.board.Position` and a
:class:`~judge.core.formal.state.FormalState`; the turn processing and (later) the order
check of the mail layer share them.
"""

from __future__ import annotations

from judge.core.board import Position, Unit
from judge.core.formal.state import FormalState
from judge.core.maps import ARMY, Map


def _name(power: str) -> str:
    return power.capitalize()


def entry_blockers(position: Position, state: FormalState, power: str, province: str,
                   ) -> tuple[tuple[str, str], ...]:
    """Why ``power`` may not enter ``province`` (rule 4): ``(other power, reason)`` pairs.

    Without war a unit may not move or retreat into a province where another power's unit
    stands (at the start of the phase), a supply centre owned by another power, or another
    power's sphere of influence.  Empty when the move is allowed.
    """
    m = position.map
    out: list[tuple[str, str]] = []
    place = m.provinces[province].name
    occupant = position.unit_at(province)
    if occupant is not None and occupant.power != power:
        out.append((occupant.power, f"{_name(occupant.power)}'s "
                    f"{'army' if occupant.kind == ARMY else 'fleet'} is in {place}"))
    owner = position.owner_of(province) if province in m.supply_centers else None
    if owner is not None and owner != power:
        out.append((owner, f"{place} is a supply centre of {_name(owner)}"))
    sphere = state.spheres.get(province)
    if sphere is not None and sphere != power:
        out.append((sphere, f"{place} is a sphere of influence of {_name(sphere)}"))
    return tuple((p, why) for p, why in out if not state.at_war(power, p))


def blockers_message(blockers: tuple[tuple[str, str], ...]) -> str:
    """``"void: not at war with Germany (Germany's army is in Belgium)"``."""
    enemies = sorted({p for p, _ in blockers})
    reasons = "; ".join(why for _, why in blockers)
    return f"void: not at war with {', '.join(map(_name, enemies))} ({reasons})"


def surrender_refusal(position: Position, state: FormalState, power: str) -> str | None:
    """Why ``power`` may not surrender now (rule 5), or ``None`` if it may."""
    m = position.map
    enemies = state.enemies(power)
    if not enemies:
        return "refused: you are at war with nobody"
    reasons = []
    owned = position.centers.get(power, frozenset())
    for e in enemies:
        home = set(m.powers[e].home_centers)
        for c in sorted(owned & home):
            reasons.append(f"you own {m.provinces[c].name}, a home centre of {_name(e)}")
        for u in position.units_of(power):
            if u.province in home:
                reasons.append(f"your unit is in {m.provinces[u.province].name}, "
                               f"a home province of {_name(e)}")
    if reasons:
        return "refused: " + "; ".join(dict.fromkeys(reasons))
    return None


def can_reach(m: Map, unit: Unit, province: str) -> bool:
    """Whether the unit could move to the province by its own movement rules (no convoy)."""
    if unit.kind == ARMY:
        return province in m.army_adj.get(unit.province, ())
    return province in m.fleet_moves.get(unit.location, {})


def claim_reach_problem(position: Position, unit: Unit, province: str) -> str | None:
    """Why ``unit`` cannot claim ``province`` from where it stands (rule 6), or ``None``.

    This part depends on the board alone, so the mail layer can check it when the order
    arrives; the rest of :func:`claim_problem` depends on wars and spheres, which may still
    change before the claims are settled.
    """
    m = position.map
    place = m.provinces[province].name
    if unit.province != province:
        if not can_reach(m, unit, province):
            return (f"{unit.text(m)} is neither in nor next to {place} "
                    f"(by its own moves)")
        if position.unit_at(province) is not None:
            return f"{place} is not vacant: a unit may claim it only from inside"
    return None


def claiming_unit(position: Position, power: str, province: str) -> Unit | str:
    """The unit that makes a claim written without one (``SOI Bel``), or why there is none.

    It is the power's unit in the province, or else its only unit that could move there.
    """
    m = position.map
    place = m.provinces[province].name
    inside = position.unit_at(province)
    if inside is not None and inside.power == power:
        return inside
    cands = [u for u in position.units_of(power) if can_reach(m, u, province)]
    if len(cands) == 1 and inside is None:
        return cands[0]
    if inside is None and len(cands) > 1:
        return (f"several of your units could claim {place}: name one, "
                f"e.g. {cands[0].code} SOI {province}")
    return f"you have no unit that can claim {place}"


def claim_problem(position: Position, state: FormalState, power: str, unit: Unit,
                  province: str) -> str | None:
    """Why ``unit`` of ``power`` may not claim ``province`` (rule 6), or ``None``."""
    m = position.map
    place = m.provinces[province].name
    reach = claim_reach_problem(position, unit, province)
    if reach:
        return reach
    sphere = state.spheres.get(province)
    if sphere == power:
        return f"{place} is already your sphere of influence"
    if sphere is not None:
        return f"{place} is a sphere of influence of {_name(sphere)}"
    owner = position.owner_of(province) if province in m.supply_centers else None
    if owner is not None and owner != power and not state.at_war(power, owner):
        return f"{place} is a supply centre of {_name(owner)} and you are not at war with it"
    return None
