"""Commands about when a game moves: the master's SET DEADLINE, SET GRACE, SET CLOCK and SET
MAX ABSENCE; anyone signed on's SET ZONE; a player's SET ABSENCE; SET NOABSENCE (a player
withdraws their own absence, the master refuses or cancels a player's).

Every change to when or how a game moves is told to everybody in it (a Parameter Change
mail, judge.service.events.ParameterChanged); times a person writes are read in their zone
(SET ZONE, UTC by default), and the reply writes times in it too.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.parse import Command
from judge.commands.registry import Role, command
from judge.mail.writing.game_mail import outgoing_for
from judge.mail.writing.times import clock_time, day_names
from judge.service import game_rules
from judge.service.clock import absences
from judge.service.clock import game_clock as clock
from judge.service.clock import moments
from judge.service.events import Change, Event
from judge.service.games import lock_game, parameter_change, power_named, power_seat
from judge.service.clock.moments import parse_clock, parse_moment, parse_when
from judge.store.models import Game, GameState, Seat, SeatKind, SeatStatus
from judge.basics.zones import tz, zone_named

PLAYING = frozenset({GameState.FORMING, GameState.ACTIVE, GameState.PAUSED})
MAX_ABSENCE_LIMIT = 365
_DURATION_FIELDS = {"M": "movement_seconds", "R": "retreat_seconds", "A": "adjustment_seconds"}


def _game(ctx: Context) -> Game:
    identity = ctx.signed_on
    return lock_game(ctx.session, identity.game_id)


def _tell(ctx: Context, events: list[Event]) -> None:
    ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))


def _deadline_text(ctx: Context, game: Game) -> str:
    deadline = clock.deadline_of(game)
    if game.state != GameState.ACTIVE or deadline is None:
        return ""
    return f" The deadline of {game.phase} is {ctx.when(deadline)}."


@command("SET", "DEADLINE", roles=Role.MASTER, syntax="SET DEADLINE <when>",
         summary="the deadline of the current phase (or M|R|A|ALL <duration>)")
def set_deadline(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    if len(cmd.args) == 2 and cmd.args[0].upper() in ("M", "R", "A", "ALL"):
        seconds = moments.parse_duration(cmd.args[1])
        if seconds < 60:
            raise CommandError("a phase lasts at least a minute.")
        kinds = "MRA" if cmd.args[0].upper() == "ALL" else cmd.args[0].upper()
        for t in kinds:
            setattr(game, _DURATION_FIELDS[t], seconds)
        _tell(ctx, [parameter_change(ctx.session, game,
                                     Change("duration", phases=kinds, seconds=seconds))])
        ctx.answer(cmd.line_no, cmd.text, f"Phases of type {cmd.args[0].upper()} now last "
                   f"{moments.format_duration(seconds)}, from the next such phase on; everybody"
                   " in the game is told.")
        return
    if not cmd.args:
        raise CommandError("SET DEADLINE needs a time: a duration from now (24h), a date and"
                           " time (2026-12-01 18:00, in your zone), with an offset or zone if"
                           " you like (2026-12-01 18:00 +0100, … Europe/Paris), or a weekday"
                           " and time (Friday 18:00).")
    if game.state != GameState.ACTIVE:
        raise CommandError(f"{game.name} is {game.state}: its clock is not running.")
    if game_rules.has(game, "NO_DEADLINE"):
        raise CommandError(f"{game.name} has no deadlines (NO_DEADLINE): phases move on when"
                           " all have ordered, or by PROCESS. SET RULES can drop the rule.")
    when = parse_when(cmd.rest, ctx.now, ctx.zone)
    if when <= ctx.now:
        raise CommandError(f"the deadline must be in the future ({ctx.when(when)} has"
                           " passed).")
    clock.start_clock(game, ctx.now, deadline=when)
    deadline = clock.deadline_of(game)
    moved = deadline != when
    _tell(ctx, [parameter_change(ctx.session, game, Change("deadline", moment=when,
                                                            moved=moved))])
    text = f"The deadline of {game.phase} is now {ctx.when(deadline)}"
    if moved:
        text += f" (not {ctx.when(when)}: that falls in a player's absence)"
    ctx.answer(cmd.line_no, cmd.text, text + "; everybody in the game is told.")


@command("SET", "GRACE", roles=Role.MASTER, syntax="SET GRACE <duration>",
         summary="time allowed after the deadline",
         args=(1, 1), wrong_args="SET GRACE needs a duration, e.g. SET GRACE 12h (0 for none).")
def set_grace(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    game.grace_seconds = 0 if cmd.args[0] == "0" else moments.parse_duration(cmd.args[0])
    clock.schedule_next(game)
    _tell(ctx, [parameter_change(ctx.session, game,
                                 Change("grace", seconds=game.grace_seconds))])
    ctx.answer(cmd.line_no, cmd.text,
               f"Grace is now {moments.format_duration(game.grace_seconds)}; everybody in the"
               " game is told.")


@command("SET", "CLOCK", roles=Role.MASTER, syntax="SET CLOCK <hh:mm> [<days>] [ZONE <zone>]",
         summary="the time of day (and weekdays) deadlines fall on; SET CLOCK OFF: none")
def set_clock(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise CommandError(f"{game.name} is over.")
    if [a.upper() for a in cmd.args] in (["OFF"], ["NONE"]):
        game.clock_minute = game.clock_days = game.clock_zone = None
        _tell(ctx, [parameter_change(ctx.session, game, Change("noclock"))])
        ctx.answer(cmd.line_no, cmd.text, "Deadlines no longer fall at a fixed time of day:"
                   " from the next phase on each is a phase's length after the phase begins."
                   + _deadline_text(ctx, game))
        return
    setting = parse_clock(list(cmd.args), ctx.zone)
    game.clock_minute = setting.minute
    game.clock_days = "".join(str(d) for d in setting.days)
    game.clock_zone = setting.zone
    _tell(ctx, [parameter_change(ctx.session, game, Change(
        "clock", minute=setting.minute, days=setting.days, zone=setting.zone))])
    current = _deadline_text(ctx, game)
    ctx.answer(cmd.line_no, cmd.text,
               f"From the next phase on, deadlines fall at {clock_time(setting.minute)}"
               f" {setting.zone} time, {day_names(setting.days)}: at the first such time at"
               " least the phase's length after it begins. Everybody in the game is told."
               + current + (" SET DEADLINE moves the current one." if current else ""))


@command("SET", "ZONE", roles=Role.SIGNED_ON, syntax="SET ZONE <zone>",
         summary="the time zone the judge writes times to you in (UTC by default)",
         args=(1, 1), wrong_args="SET ZONE needs one zone: an IANA name such as Europe/Paris or"
                           " America/New_York, UTC, or an offset such as +01:00.")
def set_zone(ctx: Context, cmd: Command) -> None:
    zone = zone_named(cmd.args[0])
    if zone is None:
        raise CommandError(f'"{cmd.args[0]}" is not a time zone the judge knows (write e.g.'
                           " Europe/Paris, America/New_York, UTC or +01:00).")
    identity = ctx.signed_on
    seat = ctx.session.get(Seat, identity.seat_id)
    if seat is None or seat.status != SeatStatus.ACTIVE:
        raise CommandError("you have no place in this game any more.")
    seat.zone = None if zone == "UTC" else zone
    ctx.answer(cmd.line_no, cmd.text,
               f"The judge now writes times to you in {zone} time (it is now"
               f" {ctx.when(ctx.now)}); the :: header lines stay in UTC. Times you write"
               " without a zone are read in it too.")


def _player_seat(ctx: Context) -> Seat:
    identity = ctx.signed_on
    seat = ctx.session.get(Seat, identity.power_seat_id or identity.seat_id)
    if seat is None or seat.kind != SeatKind.POWER or seat.status != SeatStatus.ACTIVE:
        raise CommandError("only a power's player announces an absence (the master of a"
                           " dummy needs none).")
    return seat


def _day_after(moment: datetime, zone: str | None, now: datetime) -> datetime:
    """The end of the day ``moment`` (a day's start) begins, in ``zone``."""
    day = moment.astimezone(tz(zone)).date()
    following = parse_moment((day + timedelta(days=1)).isoformat(), now, zone)
    assert following is not None
    return following.when


@command("SET", "ABSENCE", roles=Role.POWER, states=PLAYING,
         syntax="SET ABSENCE <from> TO <to>",
         summary="announce that you will be away: deadlines in that time move to its end",
         moves_game=True)
def set_absence(ctx: Context, cmd: Command) -> None:
    words = cmd.rest.split()
    upper = [w.upper() for w in words]
    if upper.count("TO") != 1 or upper.index("TO") in (0, len(words) - 1):
        raise CommandError("SET ABSENCE needs when you leave and when you are back, e.g."
                           " SET ABSENCE 2026-12-20 TO 2026-12-27 (whole days, in your zone)"
                           " or SET ABSENCE 2026-12-20 18:00 TO 2026-12-27 09:00.")
    i = upper.index("TO")
    zone = ctx.zone
    start = parse_moment(" ".join(words[:i]), ctx.now, zone)
    end = parse_moment(" ".join(words[i + 1:]), ctx.now, zone)
    for text, found in ((" ".join(words[:i]), start), (" ".join(words[i + 1:]), end)):
        if found is None:
            raise CommandError(f'"{text}" is not a date (write e.g. 2026-12-20, or 2026-12-20'
                               " 18:00).")
    assert start is not None and end is not None
    ends = _day_after(end.when, zone, ctx.now) if end.date_only else end.when
    seat = _player_seat(ctx)
    game = lock_game(ctx.session, seat.game_id)
    events, moved = absences.announce(ctx.session, game, seat, start.when, ends, ctx.now)
    _tell(ctx, events)
    text = (f"Your absence from {ctx.when(start.when)} until {ctx.when(ends)} is noted;"
            " deadlines that fall in it move to its end, and everybody in the game is told.")
    if moved:
        text += _deadline_text(ctx, game)
    ctx.answer(cmd.line_no, cmd.text, text)


@command("SET", "NOABSENCE", roles=Role.POWER | Role.MASTER, states=PLAYING,
         syntax="SET NOABSENCE [<power>]", aliases=(("SET", "NO", "ABSENCE"),),
         summary="withdraw your absence (the master: refuse or cancel a power's)",
         moves_game=True)
def set_noabsence(ctx: Context, cmd: Command) -> None:
    identity = ctx.signed_on
    if len(cmd.args) > 1:
        raise CommandError("SET NOABSENCE takes at most a power (the master's).")
    if cmd.args:
        if not identity.role & Role.MASTER:
            raise CommandError("only the master ends another player's absence.")
        game = _game(ctx)
        power = power_named(game, cmd.args[0])
        found = power_seat(ctx.session, game, power)
        if found is None:
            raise CommandError(f"nobody plays {power.capitalize()} in {game.name}.")
        seat, by_master = found, True
    else:
        if not identity.role & Role.POWER:
            raise CommandError("SET NOABSENCE needs the power whose absence you refuse or"
                               " cancel, e.g. SET NOABSENCE France.")
        seat, by_master = _player_seat(ctx), False
        game = lock_game(ctx.session, seat.game_id)
    events, moved = absences.withdraw(ctx.session, game, seat, ctx.now, by_master)
    _tell(ctx, events)
    whose = f"The absence of {(seat.power or seat.address).capitalize()}" if by_master \
        else "Your absence"
    text = f"{whose} is ended; everybody in the game is told."
    text += _deadline_text(ctx, game) if moved else ""
    ctx.answer(cmd.line_no, cmd.text, text)


@command("SET", "MAX", "ABSENCE", roles=Role.MASTER, syntax="SET MAX ABSENCE <days>",
         summary="the longest absence a player may announce (0: none)")
def set_max_absence(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) != 1 or not cmd.args[0].isdigit() \
            or int(cmd.args[0]) > MAX_ABSENCE_LIMIT:
        raise CommandError(f"SET MAX ABSENCE needs a number of days from 0 (no absences) to"
                           f" {MAX_ABSENCE_LIMIT}, e.g. SET MAX ABSENCE 14.")
    game = _game(ctx)
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise CommandError(f"{game.name} is over.")
    game.max_absence_days = int(cmd.args[0])
    _tell(ctx, [parameter_change(ctx.session, game,
                                 Change("max_absence", count=game.max_absence_days))])
    days = game.max_absence_days
    allowed = (f"Players may announce absences of up to {days} day{'s' if days != 1 else ''}"
               if days else "Players may announce no more absences")
    ctx.answer(cmd.line_no, cmd.text, f"{allowed}; everybody in the game is told.")
