"""The SQL store's tables as SQLAlchemy 2.0 typed models.

Each change here needs an Alembic revision in ``migrations/versions``; a test checks that the
models and the migrations agree.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (BigInteger, Boolean, DateTime, ForeignKey, Index, Integer, LargeBinary,
                        String, Text, UniqueConstraint, false, true)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


# SQLite's rowid needs INTEGER; PostgreSQL gets a 64-bit key.
_Id = BigInteger().with_variant(Integer(), "sqlite")


class InboundStatus(StrEnum):
    """A received message: new → done | ignored (a robot, over the reply cap) | failed (set
    aside after ``[worker] max_attempts``; ``judge inbound retry`` makes it new again)."""

    NEW = "new"
    DONE = "done"
    IGNORED = "ignored"
    FAILED = "failed"


class OutboxStatus(StrEnum):
    """A mail to send: pending → sent | failed (refused for good, or out of attempts) |
    dropped (by the operator)."""

    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    DROPPED = "dropped"


class SeatKind(StrEnum):
    """Who a seat is for: a power's player, the game's master, or an observer."""

    POWER = "power"
    MASTER = "master"
    OBSERVER = "observer"


class SeatStatus(StrEnum):
    """A seat: active (played), dummy (no player; the master orders it), or left: resigned,
    ejected (by the master; an ejected observer may not observe the game again), replaced
    (REPLACE, by another player), closed (an observer of a game the master closed to
    observers, SET RULES NO_OBSERVATIONS)."""

    ACTIVE = "active"
    DUMMY = "dummy"
    RESIGNED = "resigned"
    EJECTED = "ejected"
    REPLACED = "replaced"
    CLOSED = "closed"


class InboundMessage(Base):
    """A received message, stored once before intake answers 250; processed exactly once.

    ``dedupe_key`` is a hash of the whole Message-ID (judge.mail.intake.accept.message_key): the same
    message delivered again, or to several judge addresses, is one row.  ``message_id`` is the
    id as text for people, cut to 998 characters.  ``raw`` is emptied once the message is
    older than ``[retention] raw_mail_days`` (judge.store.retention).
    """

    __tablename__ = "inbound"
    __table_args__ = (
        UniqueConstraint("dedupe_key", name="uq_inbound_dedupe_key"),
        Index("ix_inbound_status", "status", "id"),
    )

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    dedupe_key: Mapped[str] = mapped_column(String(64))
    message_id: Mapped[str | None] = mapped_column(String(998))
    # the judge addresses it was for, comma-separated
    recipients: Mapped[str] = mapped_column(Text)
    envelope_sender: Mapped[str] = mapped_column(String(320), default="")
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # new → done | ignored (robot, reply cap) | failed (set aside after max attempts)
    status: Mapped[str] = mapped_column(String(16), default=InboundStatus.NEW)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    processed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    note: Mapped[str | None] = mapped_column(Text)
    # A long mail is executed in several transactions: what is done so far (JSON, see
    # judge.pipeline.stages), so that a retry after a crash goes on where the last one stopped.
    progress: Mapped[str | None] = mapped_column(Text)


class OutboxMessage(Base):
    """A mail the judge will send, written in the transaction of the change that caused it.

    ``raw`` is emptied once the mail was sent (or dropped) longer ago than ``[retention]
    raw_mail_days`` (judge.store.retention); the row stays.
    """

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    message_id: Mapped[str] = mapped_column(String(998))
    mail_from: Mapped[str] = mapped_column(String(320))
    recipients: Mapped[str] = mapped_column(Text)  # comma-separated addr-specs
    subject: Mapped[str] = mapped_column(Text, default="")
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    # pending → sent | failed (permanent, or out of attempts) | dropped (by the operator)
    status: Mapped[str] = mapped_column(String(16), default=OutboxStatus.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_error: Mapped[str | None] = mapped_column(Text)
    inbound_id: Mapped[int | None] = mapped_column(_Id)
    # map pictures to draw and attach when the mail is sent (judge.mail.writing.attached_maps), JSON
    attachment: Mapped[str | None] = mapped_column(Text)


class ReplyCount(Base):
    """How many replies one address has triggered on one (UTC) day: the reply cap."""

    __tablename__ = "reply_count"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)  # YYYY-MM-DD
    count: Mapped[int] = mapped_column(Integer, default=0)


class GameState(StrEnum):
    """A game's life (stored as its text): forming → active ⇄ paused → finished (by a
    victory, a draw or a concession; RESUME may reopen it) or terminated (by its master)."""

    FORMING = "forming"
    ACTIVE = "active"
    PAUSED = "paused"
    FINISHED = "finished"
    TERMINATED = "terminated"


class Game(Base):
    """One game: its state, the current position (JSON) and the clock of its current phase.

    ``next_event_at`` is the one moment the scheduler must look at this game again (reminder,
    deadline or end of grace); it is NULL when the clock is stopped (forming, paused, over), and
    indexed so finding due games never reads the games that are not due.
    """

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_next_event", "next_event_at"),
                      Index("ix_games_tournament", "tournament_id"),
                      # the web view's list of public games (judge.web.views.list_games)
                      Index("ix_games_listing", "privacy_hash", "name_key"))

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    # lower-cased name: game names are unique regardless of case
    name_key: Mapped[str] = mapped_column(String(32), unique=True)
    variant: Mapped[str] = mapped_column(String(32), default="standard")
    # forming → active ⇄ paused → finished | terminated
    state: Mapped[str] = mapped_column(String(16), default=GameState.FORMING)
    phase: Mapped[str] = mapped_column(String(8))
    position: Mapped[str] = mapped_column(Text)  # judge.service.positions JSON
    rules: Mapped[str] = mapped_column(Text, default="")  # space-separated rule names
    movement_seconds: Mapped[int] = mapped_column(Integer)
    retreat_seconds: Mapped[int] = mapped_column(Integer)
    adjustment_seconds: Mapped[int] = mapped_column(Integer)
    grace_seconds: Mapped[int] = mapped_column(Integer)
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    reminder_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # 0 before the reminder, 1 reminded, 2 late notice sent (in grace), 3 grace over and
    # waiting for late powers (judge.service.clock.game_clock)
    clock_stage: Mapped[int] = mapped_column(Integer, default=0)
    next_event_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # bumped by every change of phase: processing is conditional on it
    version: Mapped[int] = mapped_column(Integer, default=0)
    # the winner, or the winners of a shared victory, space-separated
    winner: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # the master's SET NODIAS: draws may leave survivors out (DIAS, the default, when False)
    nodias: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # the tournament the game is played in (judge.service.tournaments), if any
    tournament_id: Mapped[int | None] = mapped_column(
        _Id, ForeignKey("tournaments.id", name="fk_games_tournament", ondelete="SET NULL"))
    # state a variant keeps beside the board (Formal Diplomacy: wars, spheres, points), JSON
    variant_state: Mapped[str | None] = mapped_column(Text)
    # press settings the master may change: grey (anonymous) press, broadcasts by observers
    grey_press: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    observer_press: Mapped[bool] = mapped_column(Boolean, default=False,
                                                 server_default=false())
    # centres needed to win (CREATE … VICTORY n); None: the map's own number (18)
    victory_centers: Mapped[int | None] = mapped_column(Integer)
    # judge.service.faults: failed attempts to process the game in a row (0 when healthy),
    # the last failure, and when the master was last told of one
    fault_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    fault_note: Mapped[str | None] = mapped_column(Text)
    fault_told_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # a private game's privacy password, hashed (judge.service.access.privacy); None: a public game
    privacy_hash: Mapped[str | None] = mapped_column(String(200))
    # SET CLOCK (judge.service.clock.game_clock): deadlines fall at this many minutes after midnight in
    # clock_zone (an IANA name, UTC or an offset, judge.basics.zones), on the ISO weekdays listed in
    # clock_days ("12345": Monday to Friday; empty: every day); None: at no fixed time of day
    clock_minute: Mapped[int | None] = mapped_column(Integer)
    clock_days: Mapped[str | None] = mapped_column(String(7))
    clock_zone: Mapped[str | None] = mapped_column(String(64))
    # where the clock (or the master) put the current deadline before absences moved it
    base_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # SET MAX ABSENCE: the longest absence a player may announce, in days (0: none)
    max_absence_days: Mapped[int] = mapped_column(Integer, default=14, server_default="14")
    # SET ADDRESSES PUBLIC: every one who may see the game sees its players' addresses;
    # False (the default): only its master does (judge.service.access.disclosure)
    addresses_public: Mapped[bool] = mapped_column(Boolean, default=False,
                                                   server_default=false())


class Tournament(Base):
    """A named series of games scored together (judge.service.tournaments); its director
    is the address that created it, and games are added to it with its password."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    # lower-cased name: tournament names are unique regardless of case
    name_key: Mapped[str] = mapped_column(String(32), unique=True)
    director: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # None for a tournament made before tournaments had passwords: no game can be added to
    # it by mail until the keeper sets one (judge tournament password)
    password_hash: Mapped[str | None] = mapped_column(String(200))


class Seat(Base):
    """A role in a game: a power's player, the master or an observer, with its password."""

    __tablename__ = "seats"
    __table_args__ = (Index("ix_seats_game", "game_id", "kind"),
                      Index("ix_seats_confirm_hash", "confirm_hash"))

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    game_id: Mapped[int] = mapped_column(_Id, ForeignKey("games.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))  # SeatKind
    power: Mapped[str | None] = mapped_column(String(32))  # None until powers are assigned
    # a named power wanted at JOIN (POWER_CHOICE games)
    wanted_power: Mapped[str | None] = mapped_column(String(32))
    address: Mapped[str] = mapped_column(String(320))
    password_hash: Mapped[str] = mapped_column(String(200))
    wait: Mapped[bool] = mapped_column(Boolean, default=False)
    orders: Mapped[str] = mapped_column(Text, default="{}")  # unit key → order text (JSON)
    # active | dummy (no player; the master orders it) | resigned | ejected | replaced
    status: Mapped[str] = mapped_column(String(16), default=SeatStatus.ACTIVE)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # SET MAP ON/OFF: whether this role's copies of the results carry the map picture
    map_pictures: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    # SET ZONE: the zone the judge writes times in to this role (judge.basics.zones); None: UTC
    zone: Mapped[str | None] = mapped_column(String(64))
    # When the address confirmed it wants the game's mail (judge.service.access.confirmations);
    # None: it has not yet (an OBSERVE or a REPLACE put it here), so it gets none of the
    # game's mail and the role cannot be signed on to.  ``pending_address``: the new address
    # a SET ADDRESS asked for, which replaces ``address`` once it confirms.  The code last
    # mailed (its SHA-256) and when it was mailed.
    confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    pending_address: Mapped[str | None] = mapped_column(String(320))
    confirm_hash: Mapped[str | None] = mapped_column(String(64))
    confirm_asked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class AbsenceStatus(StrEnum):
    """An absence: granted, or withdrawn (by the player), refused (by the master, before it
    began) or cancelled (by the master, once begun)."""

    GRANTED = "granted"
    WITHDRAWN = "withdrawn"
    REFUSED = "refused"
    CANCELLED = "cancelled"


class Absence(Base):
    """A player's announced absence (SET ABSENCE): deadlines that fall in [starts_at, ends_at)
    move to its end while its seat is played.  ``status``: granted | withdrawn (by the player)
    | refused (by the master, before it began) | cancelled (by the master, once begun)."""

    __tablename__ = "absences"
    __table_args__ = (Index("ix_absences_game", "game_id", "status"),)

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    game_id: Mapped[int] = mapped_column(_Id, ForeignKey("games.id", ondelete="CASCADE"))
    seat_id: Mapped[int] = mapped_column(_Id, ForeignKey("seats.id", ondelete="CASCADE"))
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ends_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(16), default=AbsenceStatus.GRANTED)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PhaseSnapshot(Base):
    """A processed phase: board before, orders, results, board after. HISTORY and ROLLBACK."""

    __tablename__ = "phase_snapshots"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_snapshot_game_seq"),)

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    game_id: Mapped[int] = mapped_column(_Id, ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, … in the order played
    phase: Mapped[str] = mapped_column(String(8))
    position_before: Mapped[str] = mapped_column(Text)
    orders: Mapped[str] = mapped_column(Text)  # power → unit key → order text (JSON)
    results: Mapped[str] = mapped_column(Text)  # the results mail's facts (JSON)
    position_after: Mapped[str] = mapped_column(Text)
    processed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # a rolled-back phase stays until ROLLFORWARD redoes it or a new phase replaces it
    rolled_back: Mapped[bool] = mapped_column(Boolean, default=False)
    # the game's variant_state before and after the phase (None for the standard game)
    variant_before: Mapped[str | None] = mapped_column(Text)
    variant_after: Mapped[str | None] = mapped_column(Text)


class Press(Base):
    """A press message as sent: HISTORY shows it to those who could read it then.

    ``sender`` is the power (upper case), ``MASTER`` or ``OBSERVER``; ``recipients`` the
    powers it went to, space-separated, with ``MASTER`` when the master is addressed
    (``broadcast`` means everybody in the game); ``grey`` hides the sender from readers.
    """

    __tablename__ = "press"
    __table_args__ = (Index("ix_press_game", "game_id", "id"),)

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    game_id: Mapped[int] = mapped_column(_Id, ForeignKey("games.id", ondelete="CASCADE"))
    phase: Mapped[str] = mapped_column(String(8))
    sender_seat_id: Mapped[int | None] = mapped_column(
        _Id, ForeignKey("seats.id", ondelete="SET NULL"))
    sender: Mapped[str] = mapped_column(String(32))
    recipients: Mapped[str] = mapped_column(Text)
    broadcast: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    grey: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    body: Mapped[str] = mapped_column(Text)
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class WebLinkUse(Base):
    """A link from mail to a private game's page that has been opened: each is good once
    (judge.service.access.passes).  Kept until the link would have expired anyway."""

    __tablename__ = "web_link_uses"
    __table_args__ = (Index("ix_web_link_uses_expires", "expires_at"),)

    nonce: Mapped[str] = mapped_column(String(32), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DailyCount(Base):
    """How often something happened on one (UTC) day: CREATEs by an address, new addresses
    written to because of an address's mail, failed SIGNONs for a role (judge.store.counters).
    ``subject`` says who or what is counted; ``last_at`` is the latest time it happened."""

    __tablename__ = "daily_counts"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    subject: Mapped[str] = mapped_column(String(400), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)  # YYYY-MM-DD
    count: Mapped[int] = mapped_column(Integer, default=0)
    last_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class KnownAddress(Base):
    """An address the judge has heard from (``confirmed_at``: a mail from it was processed) or
    written to unasked (``notified_at``: the one notice an address gets before it writes)."""

    __tablename__ = "known_addresses"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    notified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class DrawVote(Base):
    """One survivor's vote of the current phase; every row of a game goes when a phase is
    processed.  ``kind`` and ``value`` by voting mode (judge.service.draws):

    * ``draw``: SET DRAW -- ``ALL`` (DIAS) or the listed powers, space-separated (NoDIAS);
    * ``concede``: SET CONCEDE -- the power conceded to;
    * ``proposal``: PROPOSE (PROPOSE_DIAS) -- ``DIAS`` or ``CONCEDE <power>``, one per game;
    * ``answer``: VOTE YES|NO to the proposal (PROPOSE_DIAS) -- ``YES`` or ``NO``;
    * ``nodias``: VOTE SOLO|LOSS|<n> (NO_DIAS) -- ``SOLO``, ``LOSS`` or the number.
    """

    __tablename__ = "draw_votes"

    game_id: Mapped[int] = mapped_column(_Id, ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True)
    power: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    cast_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class GameResult(Base):
    """How a game ended, for tournaments (judge.core.scoring reads the same facts).

    ``result`` is solo | concession | draw | ended (the master's TERMINATE); ``members`` the
    winner or the draw's powers, space-separated; ``phase``/``year`` when it ended; JSON maps
    power → final centres, power → player address, power → phase of elimination (the phase
    whose processing took the power's last centre and unit; null when the master's POSITION
    took it off the board).  RESUME or ROLLBACK of an ended game deletes the row.
    """

    __tablename__ = "game_results"

    game_id: Mapped[int] = mapped_column(_Id, ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True)
    result: Mapped[str] = mapped_column(String(16))
    members: Mapped[str] = mapped_column(Text, default="")
    phase: Mapped[str] = mapped_column(String(8))
    year: Mapped[int] = mapped_column(Integer)
    centers: Mapped[str] = mapped_column(Text)
    players: Mapped[str] = mapped_column(Text)
    eliminated: Mapped[str] = mapped_column(Text)
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AddressBounces(Base):
    """What came back of the judge's mail to one address (judge.mail.reading.bounces): the token of
    its return path, and its hard bounces since it last wrote to the judge.  An address with
    ``failing_since`` set gets no mail until a mail from it is processed."""

    __tablename__ = "address_bounces"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    # in the return path of every mail to the address (judge+bounce-<token>@…): random, so
    # nobody can name another address in a forged bounce
    token: Mapped[str] = mapped_column(String(32), unique=True)
    hard_bounces: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_bounce_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # what the receiving server said, as the bounce quotes it
    last_diagnostic: Mapped[str | None] = mapped_column(Text)
    failing_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
