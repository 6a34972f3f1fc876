"""The words of a claim and of a support of a claim, as every part of a results mail writes
them (the per-unit lines and the Formal section alike): ``France: Army Picardy claims
Belgium (strength 2): established.``"""

from __future__ import annotations

from judge.core.board import Unit
from judge.core.maps import ARMY, Map
from judge.core.orders import UnitSpec


def unit_words(m: Map, unit: Unit | UnitSpec) -> str:
    """``Army Picardy``, ``Fleet St Petersburg (south coast)``."""
    if isinstance(unit, Unit):
        return unit.text(m)
    word = {ARMY: "Army", None: "Unit"}.get(unit.kind, "Fleet")
    return f"{word} {m.location_text(unit.location)}"


def claim_line(m: Map, power: str, unit: Unit | UnitSpec | None, province: str,
               outcome: str, strength: int = 0, why: str = "") -> str:
    """A claim and what became of it (``established``, ``standoff``, ``invalid`` …)."""
    who = unit_words(m, unit) if unit is not None else "a claim:"
    verb = "claims" if unit is not None else ""
    place = m.provinces[province].name
    power_s = f" (strength {strength})" if strength else ""
    reason = f" ({why})" if why else ""
    return f"{power.capitalize()}: {' '.join(w for w in (who, verb) if w)} {place}{power_s}: " \
           f"{outcome}{reason}."


def support_line(m: Map, power: str, unit: Unit, target: Unit | UnitSpec, province: str,
                 outcome: str, why: str = "") -> str:
    """A support of a claim and what became of it (``given``, ``cut``, ``void`` …)."""
    reason = f" ({why})" if why else ""
    return (f"{power.capitalize()}: {unit_words(m, unit)} supports the claim of "
            f"{unit_words(m, target)} to {m.provinces[province].name}: {outcome}{reason}.")
