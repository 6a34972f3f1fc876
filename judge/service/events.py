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
    """``to`` get the players' copy, ``master_to`` the master's, which names every power's
    address; the players' copy names them only when the game's addresses are public
    (judge.service.access.disclosure), and says who plays which power only outside ANONYMOUS games."""

    phase: str
    deadline: datetime | None
    assignments: tuple[tuple[str, str], ...]  # (power, address), map order
    master_to: tuple[str, ...] = ()
    addresses_public: bool = False
    anonymous: bool = False


@dataclass(frozen=True)
class PowerAssigned(GameEvent):
    """Told to one player when the game starts (or the master hands them a power): which
    power they play."""

    power: str
    phase: str
    deadline: datetime | None
    by_master: bool = False  # a replacement: the master chose the password
    units: tuple[str, ...] = ()  # the power's units now ("Army Vienna"), map order
    homes: tuple[str, ...] = ()  # its home centres' names, alphabetical
    centres: tuple[str, ...] = ()  # the centres it owns now, alphabetical
    # a replacement at an address that has not confirmed it wants the game's mail: the code
    # it answers with (judge.service.access.confirmations), and until when the code works
    confirm_code: str | None = None
    confirm_until: datetime | None = None


@dataclass(frozen=True)
class PlayerRemoved(GameEvent):
    """Told to one player (or observer) whom the master took out of the game: ``how``
    ejected (EJECT), replaced (REPLACE: the power has a new player), dummy (DUMMY: the master
    orders it) or closed (an observer: SET RULES NO_OBSERVATIONS); ``power`` is None for a
    player ejected before powers were assigned, and for an observer."""

    power: str | None
    phase: str
    how: str
    observer: bool = False


@dataclass(frozen=True)
class ConfirmationAsked(GameEvent):
    """Told to the new address of a role (SET ADDRESS), which has never confirmed it wants
    the game's mail: the role's mail comes to it once it answers CONFIRM with ``code``
    (before ``until``); until then it goes to the old address."""

    phase: str
    role: str  # the power, MASTER or OBSERVER
    code: str
    until: datetime


@dataclass(frozen=True)
class OrdersByMaster(GameEvent):
    """Told to a power's player when the master entered orders for the power (BECOME): the
    power's orders as they now stand."""

    power: str
    phase: str
    deadline: datetime | None
    orders: tuple[str, ...]
    missing: tuple[str, ...]


@dataclass(frozen=True)
class PhaseProcessed(GameEvent):
    phase: str
    facts: dict = field(hash=False)  # see judge.service.processing.results_facts
    next_phase: str | None
    deadline: datetime | None
    reason: str  # "orders complete", "deadline", "grace ended", "master"


@dataclass(frozen=True)
class GameEnded(GameEvent):
    phase: str
    how: str  # victory | terminated | draw | concession
    winner: str | None = None
    members: tuple[str, ...] = ()  # a draw's powers or the power conceded to (map order)
    # Formal Diplomacy: the victory points at the end, most first (empty for other games)
    points: tuple[tuple[str, int], ...] = ()
    # the supply centres each power owns at the end (every power, map order)
    centres: tuple[tuple[str, int], ...] = ()


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
    # the powers whose missing orders will not be filled in when the grace ends (no
    # CIVIL_DISORDER, or dummies without CD_DUMMIES): the game will wait for them
    awaited: tuple[str, ...] = ()


@dataclass(frozen=True)
class OrdersAwaited(GameEvent):
    """The grace is over and the game waits: these powers' orders are not filled in (no
    CIVIL_DISORDER; dummies without CD_DUMMIES).  Told once, to them and the master."""

    phase: str
    grace_until: datetime
    powers: tuple[str, ...]
    dummies: tuple[str, ...] = ()  # those of ``powers`` that are dummies


@dataclass(frozen=True)
class FormalRepaired(GameEvent):
    """The master changed a Formal game's wars, spheres or points directly (SET WAR, SET
    PEACE, SET SPHERE, SET NOSPHERE, SET POINTS)."""

    phase: str
    what: str  # war | peace | sphere | nosphere | points
    powers: tuple[str, ...] = ()
    province: str = ""  # its name, for spheres
    points: int = 0
    status: tuple[str, ...] = ()  # the wars, spheres and points after the change


@dataclass(frozen=True)
class GameNotice(GameEvent):
    """Anything else everybody in the game should know: paused, rolled back, a power left …

    ``kind`` names its template (templates/game/notices/<kind>.txt, which holds the subject's
    words and the text); ``facts`` are the values that template needs."""

    phase: str
    kind: str
    facts: dict[str, object] = field(default_factory=dict)
    deadline: datetime | None = None


@dataclass(frozen=True)
class Change:
    """One change to when or how a game moves, as data (the template says it in words).

    ``what``: ``deadline`` (``moment``: the master's new deadline for the phase), ``duration``
    (``phases``: the types M, R and A it applies to, ``seconds``), ``grace`` (``seconds``),
    ``clock`` (``minute`` after midnight, ``days`` ISO weekdays or none for every day,
    ``zone``), ``noclock``, ``rules`` (``names`` now in force), ``max_absence`` (``count``
    days),
    ``absence`` (``power`` will be away from ``starts`` to ``ends``), ``noabsence`` (that
    absence ended early: ``how`` withdrawn, refused or cancelled), ``addresses`` (``how``:
    public or private, SET ADDRESSES).  ``moved``: the current
    deadline moved because of it."""

    what: str
    moment: datetime | None = None
    phases: str = ""
    seconds: int = 0
    minute: int = 0
    days: tuple[int, ...] = ()
    zone: str = ""
    names: tuple[str, ...] = ()
    power: str = ""
    starts: datetime | None = None
    ends: datetime | None = None
    moved: bool = False
    how: str = ""
    count: int = 0


@dataclass(frozen=True)
class ParameterChanged(GameEvent):
    """The classic Judge's Parameter Change: told to everybody in the game, with the
    deadline of the current phase as it now is (None when the game has no running clock)."""

    phase: str
    deadline: datetime | None
    changes: tuple[Change, ...]
    state: str = "active"  # the game's: forming, active or paused
    grace_until: datetime | None = None  # late orders are taken until then


@dataclass(frozen=True)
class GameResumed(GameEvent):
    """The master resumed a paused game, or one ended by a draw or concession (``after``:
    draw | concession; its votes are cleared); ``ready``: every order is in, so the phase is
    processed at once."""

    phase: str
    deadline: datetime | None
    ready: bool = False
    after: str = ""


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


@dataclass(frozen=True)
class GameFault(GameEvent):
    """Told to the masters: processing the game failed because of a fault in the judge."""

    phase: str
    what: str  # what the judge was doing
    detail: str  # the failure, one line
    failures: int  # failures in a row so far
    retry_at: datetime | None  # when the scheduler tries again (None: the clock is stopped)



@dataclass(frozen=True)
class SignonFailures(GameEvent):
    """Passwords for a role were guessed wrong several times today (told once a day to the
    role's player and the master)."""

    phase: str
    role: str  # the power, MASTER or OBSERVER
    letter: str  # as in SIGNON <letter><game>
    failures: int



@dataclass(frozen=True)
class AddressFailing(GameEvent):
    """Told to the masters once: the judge's mail to a seat's address keeps bouncing, so the
    judge writes to it no more until a mail from it comes (judge.mail.guards.dead_addresses)."""

    phase: str
    address: str
    seats: tuple[str, ...]  # what the address holds in the game: powers, MASTER, OBSERVER
    bounces: int  # hard bounces since it last wrote
    diagnostic: str  # what its server said, as the last bounce quotes it


Event = (GameStarted | PowerAssigned | PlayerRemoved | OrdersByMaster | PhaseProcessed | GameEnded
         | Reminder | LateNotice | OrdersAwaited | FormalRepaired | GameNotice | PressSent | GameFault
         | SignonFailures | ParameterChanged | GameResumed | ConfirmationAsked
         | AddressFailing)
