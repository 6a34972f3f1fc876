"""Phase names (``S1901M``, ``F1905R``, ``W1905A``) and their order in the game year."""

from __future__ import annotations

import re
from functools import lru_cache

import msgspec

from judge.core.errors import InputError

MOVEMENT, RETREATS, ADJUSTMENTS = "M", "R", "A"
_PHASE_RE = re.compile(r"^([SFW])(\d{4})([MRA])$")
_LEGAL = {("S", "M"), ("S", "R"), ("F", "M"), ("F", "R"), ("W", "A")}


class Phase(msgspec.Struct, frozen=True, order=True, gc=False):
    """Season (S/F/W), year and type (M movement, R retreats, A adjustments).

    A frozen value (a msgspec struct, built in C).  Phases are read and followed by their
    successors for every phase adjudicated: both answers are kept (a phase is a value).
    """

    year: int
    season_rank: int  # 0 spring, 1 fall, 2 winter: makes phases sort in play order
    type_rank: int
    season: str
    type: str

    @staticmethod
    def parse(text: str) -> Phase:
        if not isinstance(text, str):
            raise InputError(f"bad phase {text!r}: expected like S1901M, F1901R or W1901A")
        return _parse(text)

    @staticmethod
    def make(season: str, year: int, type_: str) -> Phase:
        return Phase(year, "SFW".index(season), "MRA".index(type_), season, type_)

    def __str__(self) -> str:
        return f"{self.season}{self.year}{self.type}"

    def successor(self) -> Phase:
        """The next phase, counting retreat and adjustment phases (never skipping)."""
        return _successor(self)


@lru_cache(maxsize=1024)
def _parse(text: str) -> Phase:
    m = _PHASE_RE.match(text.strip().upper())
    if not m or (m.group(1), m.group(3)) not in _LEGAL:
        raise InputError(f"bad phase {text!r}: expected like S1901M, F1901R or W1901A")
    return Phase.make(m.group(1), int(m.group(2)), m.group(3))


@lru_cache(maxsize=1024)
def _successor(phase: Phase) -> Phase:
    s, y, t = phase.season, phase.year, phase.type
    if t == MOVEMENT:
        return Phase.make(s, y, RETREATS)
    if s == "S":
        return Phase.make("F", y, MOVEMENT)
    if s == "F":
        return Phase.make("W", y, ADJUSTMENTS)
    return Phase.make("S", y + 1, MOVEMENT)
