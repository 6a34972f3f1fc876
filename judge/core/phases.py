"""Phase names (``S1901M``, ``F1905R``, ``W1905A``) and their order in the game year."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from judge.core._frozen import draft_builder
from judge.core.errors import InputError

MOVEMENT, RETREATS, ADJUSTMENTS = "M", "R", "A"
_PHASE_RE = re.compile(r"^([SFW])(\d{4})([MRA])$")
_LEGAL = {("S", "M"), ("S", "R"), ("F", "M"), ("F", "R"), ("W", "A")}


@dataclass(frozen=True, order=True, slots=True)
class Phase:
    """Season (S/F/W), year and type (M movement, R retreats, A adjustments)."""

    year: int
    season_rank: int  # 0 spring, 1 fall, 2 winter: makes phases sort in play order
    type_rank: int
    season: str
    type: str

    @staticmethod
    def parse(text: str) -> "Phase":
        m = _PHASE_RE.match(text.strip().upper()) if isinstance(text, str) else None
        if not m or (m.group(1), m.group(3)) not in _LEGAL:
            raise InputError(f"bad phase {text!r}: expected like S1901M, F1901R or W1901A")
        return Phase.make(m.group(1), int(m.group(2)), m.group(3))

    @staticmethod
    def make(season: str, year: int, type_: str) -> "Phase":
        return _build_phase(year, "SFW".index(season), "MRA".index(type_), season, type_)

    def __str__(self) -> str:
        return f"{self.season}{self.year}{self.type}"

    def successor(self) -> "Phase":
        """The next phase, counting retreat and adjustment phases (never skipping)."""
        s, y, t = self.season, self.year, self.type
        if t == MOVEMENT:
            return Phase.make(s, y, RETREATS)
        if s == "S":
            return Phase.make("F", y, MOVEMENT)
        if s == "F":
            return Phase.make("W", y, ADJUSTMENTS)
        return Phase.make("S", y + 1, MOVEMENT)


# two or three phases are made for every phase adjudicated (see _frozen)
_build_phase: Callable[[int, int, int, str, str], Phase] = draft_builder(Phase)
