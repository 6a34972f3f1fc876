"""The Formal Diplomacy orders and their parser (its rules on war, surrender and spheres
of influence).

Accepted forms (case-insensitive; units and provinces in any syntax of the order parser)::

    DWO Germany              Declare War On Germany        (also the adjective: DWO German)
    SUR                      Surrender                     Uncle!
    A Pic SOI Bel            Army Picardy Sphere of Influence Belgium
    SOI Bel                  Sphere of Influence Belgium   (no unit: see ClaimSphere)
    A Bur S A Pic SOI Bel    A Bur Supports A Pic Sphere of Influence Belgium
    Undo SOI in Bel          Undo Sphere of Influence in Belgium   (``in`` may be left out)

:func:`parse_formal_order` returns a formal order, an :class:`OrderError` value for a line that
is plainly meant as one but is malformed, or ``None`` for any other line (a standard order).
Units and provinces are read by the standard parser (``parse_order``), so abbreviations,
coasts and ambiguity messages are the same as for ordinary orders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.core.maps import Map
from judge.core.powers import find_power as find_one_power
from judge.core.orders import Hold, OrderError, UnitSpec, parse_order


@dataclass(frozen=True)
class DeclareWar:
    target: str  # power name, e.g. "GERMANY"

    def text(self) -> str:
        return f"DWO {self.target}"


@dataclass(frozen=True)
class Surrender:
    def text(self) -> str:
        return "SUR"


@dataclass(frozen=True)
class ClaimSphere:
    """``[<unit>] SOI <province>``; ``unit`` is None when the writer left it out.

    Without a unit the claim is made by the power's unit in the province, or else by its only
    unit that could move there (several candidates: the claim is invalid and says so).
    """

    unit: UnitSpec | None
    province: str

    def text(self) -> str:
        return (f"{self.unit.text()} " if self.unit else "") + f"SOI {self.province}"


@dataclass(frozen=True)
class SupportClaim:
    """``<unit> S <unit> SOI <province>``: support for another unit's claim."""

    unit: UnitSpec
    target: UnitSpec
    province: str

    def text(self) -> str:
        return f"{self.unit.text()} S {self.target.text()} SOI {self.province}"


@dataclass(frozen=True)
class UndoSphere:
    province: str

    def text(self) -> str:
        return f"UNDO SOI IN {self.province}"


FormalOrder = DeclareWar | Surrender | ClaimSphere | SupportClaim | UndoSphere

_SOI = r"(?:soi|sphere\s+of\s+influence)"
_DWO_RE = re.compile(r"^\s*(?:dwo|declare\s+war\s+on)\b\s*(.*?)\s*$", re.I)
_SUR_RE = re.compile(r"^\s*(?:sur|surrender|uncle)\s*!?\s*$", re.I)
_UNDO_RE = re.compile(rf"^\s*undo\s+{_SOI}\b\s*(?:in\b)?\s*(.*?)\s*$", re.I)
_SUPPORT_RE = re.compile(
    rf"^\s*(.+?)\s+(?:s|sup|supp|support|supports)\s+(.+?)\s+{_SOI}\s+(.*?)\s*$", re.I)
_CLAIM_RE = re.compile(rf"^\s*(?:(.+?)\s+)?{_SOI}\b\s*(.*?)\s*$", re.I)


def parse_formal_order(m: Map, text: str) -> FormalOrder | OrderError | None:
    """One line → a formal order, an :class:`OrderError`, or ``None`` if it is not formal."""
    if _SUR_RE.match(text):
        return Surrender()
    if g := _DWO_RE.match(text):
        if not g.group(1):
            return OrderError(text, "declare war on whom? e.g. DWO Germany")
        power = find_power(m, g.group(1))
        if isinstance(power, str):
            return DeclareWar(power)
        return OrderError(text, power[0])
    if g := _UNDO_RE.match(text):
        prov = _province(m, g.group(1))
        return UndoSphere(prov) if isinstance(prov, str) else OrderError(text, prov[0])
    if g := _SUPPORT_RE.match(text):
        supporter, target, prov = (_unit(m, g.group(1)), _unit(m, g.group(2)),
                                   _province(m, g.group(3)))
        if isinstance(supporter, tuple):
            return OrderError(text, supporter[0])
        if isinstance(target, tuple):
            return OrderError(text, target[0])
        if isinstance(prov, tuple):
            return OrderError(text, prov[0])
        return SupportClaim(supporter, target, prov)
    if g := _CLAIM_RE.match(text):
        unit = _unit(m, g.group(1)) if g.group(1) else None
        prov = _province(m, g.group(2))
        for part in (unit, prov):
            if isinstance(part, tuple):
                return OrderError(text, part[0])
        return ClaimSphere(unit, prov)  # type: ignore[arg-type]
    return None


def find_power(m: Map, text: str) -> str | tuple[str]:
    """A power by initial, name, adjective or unambiguous beginning (≥ 3 letters), as every
    command reads one (:func:`judge.core.powers.find_power`); ``(message,)`` if not."""
    found = find_one_power(m, text)
    if isinstance(found, str):
        return found
    if not found.word:
        return ("expected a power",)
    if found.candidates:
        return (f"ambiguous power {found.word!r}: could be {', '.join(found.candidates)}",)
    return (f"unknown power {found.word!r} (powers: "
            f"{', '.join(p.capitalize() for p in m.powers)}, or their initials)",)


def _unit(m: Map, text: str) -> UnitSpec | tuple[str]:
    """A unit as the standard parser reads it (``A Pic``, ``Fleet St Petersburg (sc)``)."""
    o = parse_order(m, f"{text} H", "M")
    if isinstance(o, OrderError):
        return (o.message,)
    if not isinstance(o, Hold):
        return (f"expected a unit, found {text.strip()!r}",)
    return o.unit


def _province(m: Map, text: str) -> str | tuple[str]:
    """A province (any coast given is dropped: a sphere is a whole province)."""
    if not text.strip():
        return ("expected a province",)
    o = parse_order(m, f"A {text} H", "M")
    if isinstance(o, OrderError):
        return (o.message.replace("a unit's province", "a province"),)
    if not isinstance(o, Hold):
        return (f"expected a province, found {text.strip()!r}",)
    return o.unit.province


def find_province(m: Map, text: str) -> str | tuple[str]:
    """A whole province by any of its names (``Bel``, ``Belgium``); ``(message,)`` if not."""
    return _province(m, text)
