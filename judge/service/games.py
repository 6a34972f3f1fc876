"""Game lifecycle over the store: create, join, sign on, start, pause, resume, end.

(Observers, and confirming an address, are judge.service.membership's.)

Every function takes the caller's session (one transaction per mail or scheduler tick) and
locks the game row before changing it.  Refusals raise :class:`GameError`; announcements are
returned as events.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Iterable, cast

from sqlalchemy import Select, bindparam, select
from sqlalchemy.orm import Session

from judge.basics.utc import utcnow
from judge.core import initial_position, load_map
from judge.core.powers import PowerNameError, find_power
from judge.service import game_rules
from judge.service.clock import game_clock as clock
from judge.service.access import confirmations
from judge.service.access import disclosure
from judge.service.formal import state as formal_state
from judge.service.access import signon_guard
from judge.service.errors import GameError
from judge.service.events import (Change, ConfirmationAsked, Event, GameEnded, GameNotice,
                                  GameStarted, ParameterChanged, PlayerRemoved, PowerAssigned,
                                  SignonFailures)
from judge.service.access.passwords import UNUSABLE, check_password, hash_password
from judge.service.positions import dump_position, final_centres, holdings, load_position
from judge.service.access.privacy import require_sight
from judge.service.game_results import record_result
from judge.store.models import Game, GameState, Seat, SeatKind, SeatStatus

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,19}$")
VARIANTS = {"standard": "Standard", "formal": "Formal"}
RUNNING = (GameState.ACTIVE, GameState.PAUSED)

_rng = random.SystemRandom()


# --------------------------------------------------------------------------- lookups

# The statements run several times a mail, built once: building one (its clauses, then its
# cache key) cost about as much as running it.
_FIND_GAME = select(Game).where(Game.name_key == bindparam("key"))
_LOCK_GAME = (select(Game).where(Game.id == bindparam("game_id")).with_for_update()
              .execution_options(populate_existing=True))


def find_game(session: Session, name: str) -> Game:
    game = session.scalars(_FIND_GAME, dict(key=name.lower())).first()
    if game is None:
        raise GameError("no_such_game", name=name)
    return game


def lock_game(session: Session, game_id: int) -> Game:
    """The game row, locked for this transaction (a no-op on SQLite, whose BEGIN IMMEDIATE
    already serialises writers) and re-read so no stale copy is changed.

    Where several daemons share the database (PostgreSQL), what this transaction read before
    it held the lock (the game's seats, say) may have been changed and committed by another
    since: every other row it holds is read again when next used (the session keeps what it
    loaded, judge.store.db).  The query flushed this transaction's own changes first.

    Once locked, the game is not read again by the same (sub)transaction: a mail of orders
    asks for it at every line, and nobody else can change it while the lock is held.  The
    memory is kept per savepoint, because rolling one back releases the row locks taken in it
    (PostgreSQL) and expires what the session read (SQLAlchemy)."""
    current = session.get_nested_transaction() or session.get_transaction()
    held = session.info.get("locked_games")
    if held is not None and held[0] is current and game_id in held[1]:
        game = session.get(Game, game_id)
        if game is not None:
            return game
    game = session.scalars(_LOCK_GAME, dict(game_id=game_id)).one()
    if session.get_bind().dialect.name != "sqlite":
        for other in list(session.identity_map.values()):
            if other is not game:
                session.expire(other)
    if held is None or held[0] is not current:
        held = session.info["locked_games"] = (current, set[int]())
    held[1].add(game_id)
    return game


# commands whose first argument names a game (SIGNON's after the power letter)
_NAMING_GAMES = {"SIGNON", "LIST", "HISTORY", "SUMMARY", "JOIN", "OBSERVE", "MAP"}


def games_named(session: Session, lines: Iterable[str]) -> list[Game]:
    """The existing games a mail's lines name, by the commands that name one (first seen
    first): who to tell when a mail about them could not be processed."""
    keys: list[str] = []
    for line in lines:
        words = line.split()
        if len(words) > 1 and words[0].upper() in _NAMING_GAMES:
            name = words[1][1:] if words[0].upper() == "SIGNON" else words[1]
            keys.append(name.lstrip("?").lower()[:32])
    if not keys:
        return []
    found = {g.name_key: g for g in session.scalars(select(Game).where(Game.name_key.in_(keys)))}
    return [found[k] for k in dict.fromkeys(keys) if k in found]


def seats(session: Session, game: Game, kind: str | None = None,
          active: bool = True) -> list[Seat]:
    return list(session.scalars(_seats_query(kind, active), dict(game_id=game.id)))


@functools.cache
def _seats_query(kind: str | None, active: bool) -> Select[Seat]:
    """Built once for each kind (see _FIND_GAME)."""
    q = select(Seat).where(Seat.game_id == bindparam("game_id"))
    if kind:
        q = q.where(Seat.kind == kind)
    if active:
        q = q.where(Seat.status == SeatStatus.ACTIVE)
    return q.order_by(Seat.id)


def power_seat(session: Session, game: Game, power: str) -> Seat | None:
    return next((s for s in seats(session, game, "power") if s.power == power), None)


def dummy_seats(session: Session, game: Game) -> list[Seat]:
    """The powers the master has made dummies (SOLITAIRE: all of them)."""
    return list(session.scalars(select(Seat).where(
        Seat.game_id == game.id, Seat.kind == SeatKind.POWER, Seat.status == SeatStatus.DUMMY)
        .order_by(Seat.id)))


def ordering_seats(session: Session, game: Game) -> list[Seat]:
    """Every seat whose orders count: the players' and the dummies' (the master's orders)."""
    return seats(session, game, "power") + dummy_seats(session, game)


def make_dummy(session: Session, game: Game, power: str, now: datetime) -> Seat:
    """A dummy seat for ``power``: no player; the master orders it with BECOME.

    Its address is the master's (nothing is mailed to it: only active seats hear of the game)
    and it has no password, so nobody can sign on as it.
    """
    master = seats(session, game, "master")[0]
    seat = Seat(game_id=game.id, kind=SeatKind.POWER, power=power, address=master.address,
                password_hash=UNUSABLE, wait=False,
                orders="{}", status=SeatStatus.DUMMY, joined_at=now, confirmed_at=now)
    session.add(seat)
    session.flush()
    return seat


def audience(session: Session, game: Game) -> tuple[str, ...]:
    """Everybody who hears of the game: players, observers and the master."""
    return tuple(dict.fromkeys(s.address for s in seats(session, game)))


def variant_title(game: Game) -> str:
    return title_of_variant(game.variant)


def title_of_variant(variant: str) -> str:
    """A variant as people name it: ``standard`` is "Standard", ``formal`` "Formal"."""
    return VARIANTS.get(variant, variant.capitalize())


def rules_of(game: Game) -> set[str]:
    return set(game.rules.split())


def power_named(game: Game, word: str) -> str:
    """The power ``word`` names in the game's map: the one reader of power names (initial,
    name, adjective, unambiguous beginning), as in orders and votes."""
    found = find_power(load_map(game.variant), word)
    if isinstance(found, PowerNameError):
        raise GameError("power_refused", reason=found.message)
    return found


# --------------------------------------------------------------------------- creating, joining

def create_game(session: Session, name: str, password: str, address: str, now: datetime, *,
                variant: str = "standard", rules: list[str] | None = None,
                durations: dict[str, int] | None = None, grace: int | None = None,
                victory: int | None = None, turns: int | None = None) -> tuple[Game, Seat]:
    """A new forming game and its master's seat (the creator's).

    ``rules`` are resolved by the registry (unknown or conflicting ones are refused);
    ``victory`` is the number of centres needed to win (the map's own by default);
    ``turns`` is the length in years of a Formal Diplomacy game (refused for other variants).
    """
    if not NAME_RE.match(name):
        raise GameError("game_name_form", name=name)
    if session.scalars(select(Game.id).where(Game.name_key == name.lower())).first():
        raise GameError("game_exists", name=name)
    variant = variant.lower()
    if variant not in VARIANTS:
        raise GameError("unknown_variant", variant=variant, known=list(VARIANTS))
    require_password_form(password)
    chosen = game_rules.choose(rules or [])
    variant_state = formal_state.new_variant_state(variant, turns)
    m = load_map(variant)
    if victory is not None and not 1 <= victory <= len(m.supply_centers):
        raise GameError("victory_range", most=len(m.supply_centers))
    pos = initial_position(m)
    d = {**clock.DEFAULT_SECONDS, **(durations or {})}
    game = Game(name=name, name_key=name.lower(), variant=variant, state=GameState.FORMING,
                phase=str(pos.phase), position=dump_position(pos),
                rules=" ".join(chosen.names), victory_centers=victory,
                movement_seconds=d["M"], retreat_seconds=d["R"], adjustment_seconds=d["A"],
                grace_seconds=clock.DEFAULT_GRACE if grace is None else grace,
                clock_stage=0, version=0, created_at=now, variant_state=variant_state)
    session.add(game)
    session.flush()
    master = Seat(game_id=game.id, kind=SeatKind.MASTER, address=address,
                  password_hash=hash_password(password), wait=False, orders="{}",
                  status=SeatStatus.ACTIVE, joined_at=now, confirmed_at=now)
    session.add(master)
    session.flush()
    return game, master


def require_password_form(password: str) -> None:
    """A password is one word of at most 64 characters."""
    if not password or len(password) > 64:
        raise GameError("password_form")


def join_game(session: Session, name: str, password: str, address: str, now: datetime,
              power: str | None = None, privacy: str | None = None
              ) -> tuple[Seat, list[Event]]:
    """A place in a forming game (``privacy``: the privacy password of a private game)."""
    game = lock_game(session, find_game(session, name).id)
    require_sight(session, game, now, password=privacy, sender=address,
                  what=f"JOIN {game.name} <password> PRIVACY <privacy password>")
    if game.state != GameState.FORMING:
        raise GameError("not_forming", game=game.name, state=game.state)
    require_password_form(password)
    players = seats(session, game, "power")
    rules = rules_of(game)
    if "MULTIPLE_POWERS_PER_PLAYER" not in rules and any(s.address == address for s in players):
        raise GameError("already_joined", address=address, game=game.name)
    npowers = len(load_map(game.variant).powers)
    if len(players) >= npowers:
        raise GameError("game_full", game=game.name)
    wanted = None
    if power:
        if "POWER_CHOICE" not in rules:
            raise GameError("no_power_choice", game=game.name)
        wanted = power_named(game, power)
        if any(s.wanted_power == wanted for s in players):
            raise GameError("power_taken", power=wanted, game=game.name)
    # The JOIN's own sender plays: a game has a seat for each power at most, and holding one
    # is what a player asked for (only seats that others' mail gives an address wait for it
    # to confirm, judge.service.access.confirmations).
    seat = Seat(game_id=game.id, kind=SeatKind.POWER, wanted_power=wanted, address=address,
                password_hash=hash_password(password), wait=False, orders="{}",
                status=SeatStatus.ACTIVE, joined_at=now, confirmed_at=now)
    session.add(seat)
    session.flush()
    events: list[Event] = []
    if len(players) + 1 == npowers and "START_MASTER" not in rules:
        events = start_game(session, game, now)
    return seat, events


# --------------------------------------------------------------------------- signing on

def role_seats(session: Session, game: Game, letter: str) -> list[Seat]:
    """The seats ``SIGNON <letter><game>`` may reach: a power's player, the master(s), the
    observers; GameError when the letter reaches nobody."""
    letter = letter.upper()
    if letter == "M":
        return seats(session, game, "master")
    if letter == "O":
        # those who confirmed first: a password two observers share signs on the one whose
        # address wants the game's mail (judge.service.access.confirmations)
        return sorted(seats(session, game, "observer"), key=lambda s: s.confirmed_at is None)
    m = load_map(game.variant)
    power = next((p for p, v in m.powers.items() if v.letter == letter), None)
    if power is None:
        raise GameError("no_such_role", letter=letter)
    if game.state == GameState.FORMING:
        raise GameError("powers_not_assigned", game=game.name)
    candidates = [s for s in seats(session, game, "power") if s.power == power]
    if not candidates:
        raise GameError("nobody_plays", power=power, game=game.name)
    return candidates


def _signon_game(session: Session, name: str, letter: str) -> Game:
    """The game a SIGNON names; one whose initial was left out (``SIGNON war1901 pw``, the
    game ``ar1901`` not being there) is refused so, and named."""
    try:
        return find_game(session, name)
    except GameError:
        whole = session.scalars(_FIND_GAME, dict(key=(letter + name).lower())).first()
        if whole is None:
            raise
        letters = [p.letter for p in load_map(whole.variant).powers.values()]
        raise GameError("initial_missing", game=whole.name, letters=letters) from None


@dataclass(frozen=True)
class SignonResult:
    """A SIGNON's outcome: the seat reached, or the refusal (returned, not raised: the failure
    is counted and must be kept, and the events tell the role's player and the master when
    guessing has begun)."""

    seat: Seat | None
    refusal: GameError | None = None
    events: tuple[Event, ...] = ()


def signon(session: Session, name: str, letter: str, password: str, now: datetime, *,
           sender: str, per_sender: int, per_role: int) -> SignonResult:
    """``SIGNON <letter><name> <password>`` from ``sender``, throttled (judge.service.
    signon_guard) except from the role's own address.  GameError for a game or role that
    does not exist; a wrong or unchecked password is a refusal in the result, so that the
    failure counted is kept."""
    game = _signon_game(session, name, letter)
    letter = letter.upper()
    candidates = role_seats(session, game, letter)
    own = any(s.address == sender and s.confirmed_at is not None for s in candidates)
    refused = signon_guard.refusal(session, game, letter, sender, own, now, per_sender,
                                   per_role)
    if refused:
        return SignonResult(None, refused)
    for seat in candidates:
        if check_password(password, seat.password_hash):
            if seat.confirmed_at is None:  # not the role of anyone who asked for it yet
                return SignonResult(None, GameError("signon_unconfirmed", letter=letter,
                                                    game=game.name))
            return SignonResult(seat)
    failures = signon_guard.record_failure(session, game, letter, sender, own, now)
    events: tuple[Event, ...] = ()
    if failures is not None:
        told = [s.address for s in candidates] if letter not in ("M", "O") else []
        told += [s.address for s in seats(session, game, "master")]
        role = {"M": "MASTER", "O": "OBSERVER"}.get(letter) or str(candidates[0].power)
        events = (SignonFailures(game=game.name, variant=variant_title(game),
                                 to=tuple(dict.fromkeys(told)), phase=game.phase, role=role,
                                 letter=letter, failures=failures),)
    return SignonResult(None, GameError("wrong_signon_password", letter=letter, game=game.name),
                        events)


# --------------------------------------------------------------------------- master controls

def start_game(session: Session, game: Game, now: datetime) -> list[Event]:
    if game.state != GameState.FORMING:
        raise GameError("already_started", game=game.name)
    players = seats(session, game, "power")
    m = load_map(game.variant)
    solitaire = game_rules.has(game, "SOLITAIRE")
    if not players and not solitaire:  # SOLITAIRE needs no players
        raise GameError("no_players", game=game.name)
    free = [p for p in m.powers if p not in {s.wanted_power for s in players}]
    _rng.shuffle(free)
    for seat in players:
        seat.power = seat.wanted_power or free.pop()
    if solitaire:
        # every power nobody joined for is a dummy run by the master
        for power in free:
            make_dummy(session, game, power, now)
    game.state = GameState.ACTIVE
    clock.start_clock(game, now)
    # Powers nobody plays are vacant, in civil disorder: their units hold, their builds are
    # waived, and the game never waits for them.
    order = {p: i for i, p in enumerate(m.powers)}
    assignments = tuple(sorted(((cast(str, s.power), s.address) for s in players),
                               key=lambda pa: order[pa[0]]))
    base: dict[str, Any] = dict(game=game.name, variant=variant_title(game))
    masters = tuple(dict.fromkeys(s.address for s in seats(session, game, "master")))
    events: list[Event] = [GameStarted(
        **base, to=tuple(a for a in audience(session, game) if a not in masters),
        master_to=masters, phase=game.phase, deadline=clock.deadline_of(game),
        assignments=assignments, addresses_public=disclosure.addresses_public(game),
        anonymous=disclosure.is_anonymous(game))]
    pos = load_position(game.variant, game.position)
    for power, address in assignments:
        events.append(PowerAssigned(**base, to=(address,), power=power, phase=game.phase,
                                    deadline=clock.deadline_of(game),
                                    **holdings(pos, power)))
    return events


def notice(session: Session, game: Game, kind: str, **facts: object) -> GameNotice:
    """Tell everybody in the game: the template of ``kind`` says it in words."""
    return GameNotice(game=game.name, variant=variant_title(game), to=audience(session, game),
                      phase=game.phase, kind=kind, facts=facts,
                      deadline=clock.deadline_of(game) if game.state == GameState.ACTIVE else None)


def parameter_change(session: Session, game: Game, *changes: Change) -> ParameterChanged:
    """Everybody in the game is told that when or how it moves has changed."""
    running = game.state == GameState.ACTIVE and game.deadline is not None
    return ParameterChanged(game=game.name, variant=variant_title(game),
                            to=audience(session, game), phase=game.phase,
                            deadline=clock.deadline_of(game) if running else None,
                            changes=changes, state=game.state,
                            grace_until=clock.grace_until(game) if running else None)


def set_addresses(session: Session, game: Game, public: bool) -> list[Event]:
    """SET ADDRESSES PUBLIC / PRIVATE, told to everyone in the game in a Parameter Change (an
    unchanged setting is refused, so nothing is announced); an ANONYMOUS game refuses
    PUBLIC."""
    if public and disclosure.is_anonymous(game):
        raise GameError("anonymous_addresses", game=game.name)
    if bool(game.addresses_public) == public:
        raise GameError("addresses_unchanged", game=game.name, public=public)
    game.addresses_public = public
    return [parameter_change(session, game,
                             Change("addresses", how="public" if public else "private"))]


def pause_game(session: Session, game: Game) -> list[Event]:
    if game.state != GameState.ACTIVE:
        raise GameError("not_active", game=game.name, state=game.state)
    game.state = GameState.PAUSED
    clock.stop_clock(game)
    return [notice(session, game, "paused")]


def terminate_game(session: Session, game: Game, now: datetime | None = None) -> list[Event]:
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise GameError("already_over", game=game.name)
    centres: tuple[tuple[str, int], ...] = ()
    if game.state != GameState.FORMING:  # a game that never started has no result to record
        pos = load_position(game.variant, game.position)
        record_result(session, game, "ended", (), game.phase, pos, now or utcnow())
        centres = final_centres(pos)
    game.state = GameState.TERMINATED
    clock.stop_clock(game)
    return [GameEnded(game=game.name, variant=variant_title(game), to=audience(session, game),
                      phase=game.phase, how="terminated", centres=centres)]


def leave(session: Session, game: Game, seat: Seat, status: str) -> list[Event]:
    """A player resigns or is ejected; an assigned power goes into civil disorder.  An
    ejected player is told so in a mail of their own."""
    seat.status = status
    seat.orders = "{}"
    told: list[Event] = [removed(game, seat, SeatStatus.EJECTED)] if status == SeatStatus.EJECTED else []
    if seat.power is None:
        return told
    return [notice(session, game, "player_left", power=seat.power, how=status), *told]


def removed(game: Game, seat: Seat, how: str) -> PlayerRemoved:
    """The mail to a player (or observer) the master took out of ``game`` (``how``: see
    PlayerRemoved)."""
    return PlayerRemoved(game=game.name, variant=variant_title(game), to=(seat.address,),
                         power=seat.power, phase=game.phase, how=how,
                         observer=seat.kind == SeatKind.OBSERVER)


def _holder(session: Session, game: Game, power: str) -> Seat | None:
    """The seat that orders ``power`` now: its player's or its dummy's."""
    return power_seat(session, game, power) or next(
        (s for s in dummy_seats(session, game) if s.power == power), None)


def dummy_power(session: Session, game: Game, power: str, now: datetime) -> list[Event]:
    """The master makes ``power`` a dummy: its player (if any) leaves, its orders stay, and
    from now on the master orders it (BECOME)."""
    old = _holder(session, game, power)
    if old is not None and old.status == SeatStatus.DUMMY:
        raise GameError("already_dummy", power=power, game=game.name)
    seat = make_dummy(session, game, power, now)
    events: list[Event] = []
    if old is not None:
        if old.status == SeatStatus.ACTIVE:  # its player is told in a mail of their own
            events.append(removed(game, old, "dummy"))
        seat.orders, old.status, old.orders = old.orders, SeatStatus.REPLACED, "{}"
    return [notice(session, game, "dummy", power=power), *events]


def replace_player(session: Session, game: Game, power: str, address: str, password: str,
                   now: datetime, days: int) -> tuple[Seat, list[Event]]:
    """The master gives ``power`` to a new player (it was vacant, a dummy or played).  An
    address that has not confirmed it wants the game's mail gets one mail, with the code to
    confirm (good ``days``), and nothing more until it does."""
    require_password_form(password)
    old = _holder(session, game, power)
    if old is not None and old.status == SeatStatus.ACTIVE and old.address == address:
        if old.confirmed_at is not None:
            raise GameError("already_plays", address=address, power=power, game=game.name)
        # still waiting: the master asks again (a new code, and the password given now)
        old.password_hash = hash_password(password)
        return old, [_assigned(game, old, confirmations.ask(old, now), days)]
    confirmed = confirmations.member(session, game, address)
    seat = Seat(game_id=game.id, kind=SeatKind.POWER, power=power, address=address,
                password_hash=hash_password(password), wait=False, orders="{}",
                status=SeatStatus.ACTIVE, joined_at=now, confirmed_at=now if confirmed else None)
    dropped = old if old is not None and old.status == SeatStatus.ACTIVE else None
    if old is not None:  # the orders given so far stay with the power
        seat.orders, old.status, old.orders = old.orders, SeatStatus.REPLACED, "{}"
    session.add(seat)
    session.flush()
    told = notice(session, game, "new_player", power=power)
    # the new player hears it in their own mail (the one mail a new address gets at first)
    told = replace(told, to=tuple(a for a in told.to if a != address))
    code = None if confirmed else confirmations.ask(seat, now)
    events: list[Event] = [told, _assigned(game, seat, code, days)]
    if dropped is not None:  # the player it was taken from is told in a mail of their own
        events.append(removed(game, dropped, "replaced"))
    return seat, events


def _assigned(game: Game, seat: Seat, code: str | None, days: int) -> PowerAssigned:
    """The mail that gives a replacement player its power (with the code to confirm)."""
    assert seat.power is not None
    return PowerAssigned(game=game.name, variant=variant_title(game), to=(seat.address,),
                         power=seat.power, phase=game.phase, deadline=clock.deadline_of(game),
                         by_master=True, confirm_code=code,
                         confirm_until=confirmations.expiry(seat, days) if code else None,
                         **holdings(load_position(game.variant, game.position), seat.power))


def move_seat(session: Session, game: Game, seat: Seat, address: str, now: datetime,
              days: int) -> list[Event]:
    """SET ADDRESS: the role's mail goes to ``address`` from now on if it has confirmed a
    seat in this game; otherwise it is asked to (one mail, with the code, good ``days``) and
    the mail goes on to the old address until it does.  The same address again withdraws a
    change still waiting."""
    if address == seat.address:
        seat.pending_address = seat.confirm_hash = seat.confirm_asked_at = None
        return []
    if confirmations.member(session, game, address):
        seat.address = address
        seat.pending_address = seat.confirm_hash = seat.confirm_asked_at = None
        return []
    code = confirmations.ask(seat, now, new_address=address)
    role = {SeatKind.MASTER: "MASTER", SeatKind.OBSERVER: "OBSERVER"}.get(
        SeatKind(seat.kind), str(seat.power))
    until = confirmations.expiry(seat, days)
    assert until is not None
    return [ConfirmationAsked(game=game.name, variant=variant_title(game), to=(address,),
                              phase=game.phase, role=role, code=code, until=until)]
