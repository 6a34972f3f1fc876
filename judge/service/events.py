"""Domain events: what happened to a game, as plain values, for the mail layer to announce.

Each event names who must hear of it (``to``: mail addresses); the mail layer decides how it
reads.  Nothing here knows about templates or SMTP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class GameEvent:
    game: str
    variant: str
    to: tuple[str, ...]


@dataclass(frozen=True)
class GameStarted(GameEvent):
    phase: str
    deadline: datetime | None
    assignments: tuple[tuple[str, str], ...]  # (power, address), map order


@dataclass(frozen=True)
class PowerAssigned(GameEvent):
    """Told to one player when the game starts (or the master hands them a power): which
    power they play."""

    power: str
    phase: str
    deadline: datetime | None
    by_master: bool = False  # a replacement: the master chose the password


@dataclass(frozen=True)
class PhaseProcessed(GameEvent):
    phase: str
    facts: dict = field(hash=False)  # see judge.service.phases.results_facts
    next_phase: str | None
    deadline: datetime | None
    reason: str  # "orders complete", "deadline", "grace ended", "master"


@dataclass(frozen=True)
class GameEnded(GameEvent):
    phase: str
    how: str  # victory | terminated | draw | concession
    winner: str | None = None
    members: tuple[str, ...] = ()  # a draw's powers or the power conceded to (map order)
    reason: str = ""  # why a vote passed, never whose vote it was
    # Formal Diplomacy: the victory points at the end, most first (empty for other games)
    points: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Reminder(GameEvent):
    phase: str
    deadline: datetime
    powers: tuple[str, ...]  # those without complete orders


@dataclass(frozen=True)
class LateNotice(GameEvent):
    phase: str
    deadline: datetime
    grace_until: datetime
    powers: tuple[str, ...]


@dataclass(frozen=True)
class GameNotice(GameEvent):
    """Anything else everybody in the game should know: paused, resumed, rolled back …"""

    phase: str
    title: str  # goes into the subject after the phase
    text: str
    deadline: datetime | None = None


@dataclass(frozen=True)
class PressSent(GameEvent):
    """A press message: ``to`` get the readers' copy (grey hides the sender from them),
    ``master_to`` the master's copy, which always names the sender."""

    phase: str
    deadline: datetime | None
    sender: str  # the power, MASTER or OBSERVER
    powers: tuple[str, ...]  # the powers addressed (map order); empty for a broadcast
    to_master: bool
    broadcast: bool
    grey: bool
    body: tuple[str, ...]
    master_to: tuple[str, ...] = ()


Event = (GameStarted | PowerAssigned | PhaseProcessed | GameEnded | Reminder | LateNotice
         | GameNotice | PressSent)
