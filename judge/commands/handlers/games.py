"""Commands about games that anyone may send: CREATE, JOIN, SIGNON, OBSERVE, CONFIRM, HISTORY,
SUMMARY.

(LIST lives in :mod:`judge.commands.handlers.information` with the other commands for anyone.)
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Callable

from sqlalchemy.orm import Session

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.handlers.press import press_for_history
from judge.commands.identity import Identity
from judge.commands.parse import Command, trailing_option
from judge.commands.prepare import Preparation, with_privacy
from judge.commands.registry import Role, command, positions, privacy_keyword
from judge.basics.config import Config
from judge.core import load_map
from judge.mail.writing.game_mail import outgoing_for
from judge.mail.writing.refusals import refusal_text
from judge.service import game_rules
from judge.service.clock import game_clock as clock
from judge.service.clock import moments
from judge.service.access import signon_guard
from judge.service.errors import GameError
from judge.service.formal.games import formal_length
from judge.service.access.confirmations import expiry
from judge.service.games import (create_game, find_game, join_game, role_seats, signon,
                                 start_game, variant_title)
from judge.service.membership import confirm, observe_game
from judge.service.processing import snapshots
from judge.service.access.privacy import assign_privacy, is_private, require_sight, set_privacy
from judge.service.tournaments import (WrongPassword, add_game, check_tournament_for,
                                       existing_tournament, tournament_for)
from judge.store import counters
from judge.store.models import Game, GameState, Seat, SeatKind, SeatStatus

CREATED = "create"

_KIND_ROLE = {"master": Role.MASTER, "observer": Role.OBSERVER, "power": Role.POWER}


def sign_on_as(ctx: Context, seat: Seat, game_name: str) -> Identity:
    """Make ``seat`` the mail's identity; its registered address gets the reply too (once it
    has confirmed it wants the game's mail)."""
    identity = Identity(_KIND_ROLE[seat.kind], seat.game_id, game_name, seat.id, ctx.session,
                        power=seat.power, power_seat_id=seat.id if seat.power else None)
    ctx.identity = identity
    if seat.confirmed_at is not None:
        ctx.copy_to(seat.address, seat.id)
    return identity


def _parse_create(args: tuple[str, ...], shown: Callable[[int], str]) -> dict:
    """CREATE's options, ``args`` being the words after the game's password; ``shown(i)``
    is ``args[i]`` as a refusal may quote it (``****`` where it is a password)."""
    opts: dict = {"rules": [], "durations": {}}
    i = 0
    while i < len(args):
        word = args[i].upper()
        if word == "VARIANT" and i + 1 < len(args):
            opts["variant"] = args[i + 1]
            i += 2
        elif word == "RULES":
            i += 1
            while i < len(args) and args[i].upper() not in ("VARIANT", "DEADLINE", "GRACE",
                                                            "TOURNAMENT", "VICTORY", "RULES",
                                                            "TURNS", "PRIVACY"):
                opts["rules"].append(args[i].upper())
                i += 1
        elif word == "DEADLINE" and i + 1 < len(args):
            parts = args[i + 1].split("/")
            if len(parts) not in (1, 3):
                raise CommandError("DEADLINE takes one duration, or movement/retreat/adjustment"
                                   " durations, e.g. DEADLINE 48h/24h/24h.")
            seconds = [moments.parse_duration(p) for p in parts]
            opts["durations"] = dict(zip("MRA", seconds * 3 if len(seconds) == 1 else seconds))
            i += 2
        elif word == "GRACE" and i + 1 < len(args):
            opts["grace"] = moments.parse_duration(args[i + 1])
            i += 2
        elif word == "TOURNAMENT" and i + 1 < len(args):
            if i + 2 >= len(args):
                raise CommandError("TOURNAMENT needs the tournament's name and its password,"
                                   " e.g. TOURNAMENT club1 secret (a new tournament gets the"
                                   " password given).")
            opts["tournament"] = (args[i + 1], args[i + 2])
            i += 3
        elif word == "PRIVACY" and i + 1 < len(args):
            opts["privacy"] = args[i + 1]
            i += 2
        elif word == "VICTORY" and i + 1 < len(args):
            if not args[i + 1].isdigit():
                raise CommandError("VICTORY takes the number of supply centres needed to win,"
                                   " e.g. VICTORY 15.")
            opts["victory"] = int(args[i + 1])
            i += 2
        elif word == "TURNS":
            if i + 1 == len(args) or not args[i + 1].isdigit():
                raise CommandError("TURNS needs the number of game years, e.g. VARIANT formal"
                                   " TURNS 5.")
            opts["turns"] = int(args[i + 1])
            i += 2
        else:
            raise CommandError(f'"{shown(i)}" is not understood here:'
                               " CREATE <game> <password>"
                               " [VARIANT <name>] [TURNS <years>] [RULES <RULE> ...]"
                               " [DEADLINE <duration>] [GRACE <duration>] [VICTORY <centres>]"
                               " [TOURNAMENT <name> <password>] [PRIVACY <privacy password>].")
    return opts


# The words of CREATE that start an option: a word after the password that is none of them
# is taken for more of the password (mistyped as two words), and hidden too.
_CREATE_OPTIONS = ("VARIANT", "TURNS", "RULES", "DEADLINE", "GRACE", "TOURNAMENT", "VICTORY",
                   "PRIVACY")


def _create_secrets(args: tuple[str, ...]) -> tuple[int, ...]:
    """The game's password (and the words after it up to the first option), the
    tournament's after TOURNAMENT <name>, and the privacy password after PRIVACY."""
    found = []
    i = 1
    while i < len(args) and (i == 1 or args[i].upper() not in _CREATE_OPTIONS):
        found.append(i)
        i += 1
    for i in range(2, len(args) - 2):
        if args[i].upper() == "TOURNAMENT":
            found.append(i + 2)
            break
    found += [i + 1 for i in range(2, len(args) - 1) if args[i].upper() == "PRIVACY"]
    return tuple(sorted(set(found)))


def _join_secrets(args: tuple[str, ...]) -> tuple[int, ...]:
    """JOIN <game> <password> [<power>] [PRIVACY <privacy password>]: the password, the
    privacy password, and what cannot be a power (more of a mistyped password): any word
    after the power, and a "power" with other characters than letters (a misspelt power
    stays readable, so that the answer can say what is wrong with it)."""
    found = set(positions(1, privacy=2)(args))
    keyword = privacy_keyword(args, 2)
    for i in range(2, len(args) if keyword is None else keyword):
        if i > 2 or not args[i].isalpha():
            found.add(i)
    return tuple(sorted(found))


def _creates_left(session: Session, config: Config, sender: str, now: datetime) -> int:
    """How many more games ``sender`` may CREATE today (the keeper: any number)."""
    if config.judge.keeper and config.judge.keeper.lower() == sender:
        return 1 << 30
    return config.limits.creates_per_day - counters.count(session, CREATED, sender, now)


def _prepare_create(prep: Preparation, cmd: Command) -> None:
    if len(cmd.args) < 2:
        return
    # only the CREATEs the day still allows are worth a hash: the others are refused
    left = prep.once(CREATED, lambda: _creates_left(prep.session, prep.config,
                                                    prep.mail.sender, prep.now))
    if prep.count(CREATED) >= left:
        return
    prep.hash_new(cmd, cmd.args[1])
    try:
        tournament = _parse_create(cmd.args[2:], lambda i: cmd.shown(i + 2)).get("tournament")
    except (CommandError, GameError):
        return
    if tournament is None:
        return
    name, password = tournament
    row = existing_tournament(prep.session, name)
    if row is None:
        prep.hash_new(cmd, password)
    elif row.password_hash and prep.spend(cmd):
        prep.passwords.add_check(password, row.password_hash)


@command("CREATE", syntax="CREATE <game> <password> [VARIANT <name> [TURNS <years>]]"
         " [RULES <RULE> ...] [DEADLINE <duration>] [GRACE <duration>] [VICTORY <centres>]"
         " [TOURNAMENT <name> <password>] [PRIVACY <privacy password>]",
         summary="a new game; you become its master",
         secrets=_create_secrets, prepare=_prepare_create,
         args=(2, None), wrong_args="CREATE needs a game name and a password.")
def create_command(ctx: Context, cmd: Command) -> None:
    name, password = cmd.args[0], cmd.args[1]
    opts = _parse_create(cmd.args[2:], lambda i: cmd.shown(i + 2))
    tournament_asked = opts.pop("tournament", None)
    privacy_password = opts.pop("privacy", None)
    sender = ctx.mail.sender
    if _creates_left(ctx.session, ctx.config, sender, ctx.now) <= 0:
        limit = ctx.config.limits.creates_per_day
        raise CommandError(f"{sender} has created {limit} game{'s' if limit != 1 else ''}"
                           " today, as many as one address may in a day.")
    if tournament_asked is not None:  # refuse before the game exists: a refusal changes nothing
        try:
            check_tournament_for(ctx.session, tournament_asked[0], tournament_asked[1])
        except WrongPassword as exc:
            # counted like a CREATE (and kept: no exception undoes it), so that one address
            # cannot guess a tournament's password faster than it may create games
            counters.bump(ctx.session, CREATED, sender, ctx.now)
            ctx.answer(cmd.line_no, cmd.text, f"Error: {refusal_text(exc)}", ok=False)
            return
    game, master = create_game(ctx.session, name, password, sender, ctx.now, **opts)
    counters.bump(ctx.session, CREATED, sender, ctx.now)
    if privacy_password is not None:
        set_privacy(game, privacy_password)
    in_tournament = ""
    if tournament_asked is not None:
        tournament = tournament_for(ctx.session, tournament_asked[0], tournament_asked[1],
                                    sender, ctx.now)
        add_game(ctx.session, tournament, game)
        in_tournament = f" in tournament {tournament.name}"
    sign_on_as(ctx, master, game.name)
    text = _created_text(game, opts["rules"], in_tournament, privacy_password is not None)
    if game_rules.has(game, "SOLITAIRE"):
        # DPjudge's rules: the forming phase is skipped, every power a dummy of the master's,
        # and a privacy password is assigned
        text += solitaire_privacy_text(game)
        ctx.outgoing.extend(outgoing_for(start_game(ctx.session, game, ctx.now),
                                         ctx.config.judge.name))
        text += (f"SOLITAIRE: {game.name} has started at {game.phase}; every power is a dummy."
                 " Order one with BECOME <power> and its orders (several powers in one mail),"
                 " then PROCESS.")
    else:
        join = "<password>" + (" PRIVACY <privacy password>" if is_private(game) else "")
        text += f"Players join with JOIN {game.name} {join}."
    ctx.answer(cmd.line_no, cmd.text, text)


def _created_text(game: Game, rules_asked: list[str], in_tournament: str, private: bool) -> str:
    """What CREATE tells the new master about the game: its rules (and what brought each in),
    victory, deadlines, the Formal settings and its privacy."""
    rules = f" with rules {game.rules}" if game.rules else ""
    explained = game_rules.choose(rules_asked)  # as asked: says what brought what in
    text = (f"Game {game.name} ({variant_title(game)}{rules}) created{in_tournament};"
            " you are its master"
            f" and signed on as such (SIGNON M{game.name} <password> later).\n")
    if explained.brought_in:
        text += "Rules:\n" + game_rules.explain(explained) + "\n"
    if game.victory_centers:
        text += f"Victory: {game.victory_centers} supply centres.\n"
    if game_rules.has(game, "NO_DEADLINE"):
        text += "No deadlines (NO_DEADLINE): phases move on when all have ordered, or by" \
                " PROCESS.\n"
    else:
        text += (f"Deadlines: movement {moments.format_duration(game.movement_seconds)}, "
                 f"retreats {moments.format_duration(game.retreat_seconds)}, adjustments "
                 f"{moments.format_duration(game.adjustment_seconds)}, grace "
                 f"{moments.format_duration(game.grace_seconds)}.\n")
    formal = formal_length(game)
    if formal is not None:
        years, last = formal
        text += (f"It is a Formal Diplomacy game of {years} game year{'s' if years != 1 else ''}:"
                 f" it ends after the Fall of {last}, won on victory points (GET FORMAL). Draw"
                 " votes are off; SET DRAWS ON switches them on.\n")
    if private:
        text += (f"{game.name} is private: strangers must give its privacy password to see or"
                 " join it (GET COMMANDS, PRIVACY).\n")
    return text


def solitaire_privacy_text(game: Game) -> str:
    """SOLITAIRE games are private: assign a privacy password (unless the master gave one)
    and tell the master what it is."""
    password = assign_privacy(game)
    if password is None:
        return ""
    return (f"SOLITAIRE games are private: the judge has given {game.name} the privacy password"
            f" {password} (strangers need it to see or join the game; SET PRIVACY <password>"
            " changes it, SET NOPRIVACY makes the game public).\n")


def _join(ctx: Context, cmd: Command, name: str, password: str, power: str | None,
          privacy: str | None = None) -> None:
    seat, events = join_game(ctx.session, name, password, ctx.mail.sender, ctx.now, power,
                             privacy)
    game = find_game(ctx.session, name)
    joined = sum(1 for s in ctx.session.query(Seat).filter_by(game_id=game.id, kind=SeatKind.POWER,
                                                              status=SeatStatus.ACTIVE))
    text = f"You have joined {game.name} ({joined} player{'s' if joined != 1 else ''} so far)."
    if events:
        text += f"\nThe game is full and has started; your power is {str(seat.power).capitalize()}."
        ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))
    else:
        text += " Powers are assigned when the game starts; you will be told yours."
    ctx.answer(cmd.line_no, cmd.text, text)


@command("JOIN", syntax="JOIN <game> <password> [<power>] [PRIVACY <privacy password>]",
         summary="a place in a forming game", secrets=_join_secrets,
         prepare=with_privacy(1), moves_game=True)
def join_command(ctx: Context, cmd: Command) -> None:
    args, privacy = trailing_option(cmd.args, "PRIVACY", 2)
    # a third word taken for more of the password (_join_secrets) is no power to look up
    if len(args) not in (2, 3) or 2 in cmd.secret:
        raise CommandError("JOIN needs a game name and a password (and, in POWER_CHOICE games,"
                           " a power; for a private game, PRIVACY and its privacy password).")
    _join(ctx, cmd, args[0], args[1], args[2] if len(args) == 3 else None, privacy)


@command("OBSERVE", syntax="OBSERVE <game> <password> [PRIVACY <privacy password>]",
         summary="follow a game as an observer",
         secrets=positions(1, rest=True, privacy=2),
         prepare=with_privacy(1))
def observe_command(ctx: Context, cmd: Command) -> None:
    args, privacy = trailing_option(cmd.args, "PRIVACY", 2)
    if len(args) != 2:
        raise CommandError("OBSERVE needs a game name and a password (for a private game,"
                           " then PRIVACY and its privacy password).")
    limits = ctx.config.limits
    taken = observe_game(ctx.session, args[0], args[1], ctx.mail.sender, ctx.now,
                         privacy=privacy, most=limits.observers_per_game,
                         days=limits.confirm_days)
    # The code is for the sender's eyes only: a role's registered address that gets a copy
    # of this reply (the mail signed on to another game) must not read it.
    ctx.answer(cmd.line_no, cmd.text, ctx.render(
        "game/observe.txt", game=taken.game.name, code=taken.code, address=ctx.mail.sender,
        until=ctx.when(expiry(taken.seat, limits.confirm_days))), sender_only=True)


@command("CONFIRM", syntax="CONFIRM <code>", args=(1, 2), runs_first=True,
         wrong_args="CONFIRM needs the code the judge mailed you, e.g. CONFIRM K7QM2-XPDA9.",
         summary="say that your address wants the mail of the game the code is for (the"
                 " judge mails the code after OBSERVE, REPLACE and SET ADDRESS)")
def confirm_command(ctx: Context, cmd: Command) -> None:
    limits = ctx.config.limits
    done = confirm(ctx.session, "".join(cmd.args), ctx.now, sender=ctx.mail.sender,
                   days=limits.confirm_days,
                   failures_allowed=limits.confirm_failures_per_sender)
    seat = done.seat
    ctx.answer(cmd.line_no, cmd.text, ctx.render(
        "game/confirmed.txt", game=done.game.name, kind=seat.kind, power=seat.power,
        address=seat.address, moved_from=done.moved_from))


def _prepare_signon(prep: Preparation, cmd: Command) -> None:
    """Check the password now, unless the guard would not check it anyway."""
    if len(cmd.args) != 2 or len(cmd.args[0]) < 2:
        prep.stop = True
        return
    who, password = cmd.args
    if who.startswith("?"):
        prep.hash_new(cmd, password)
        return
    try:
        game = find_game(prep.session, who[1:])
        candidates = role_seats(prep.session, game, who[0])
    except GameError:
        prep.stop = True
        return
    sender, limits = prep.mail.sender, prep.config.limits
    # a seat still waiting for its address to confirm makes nobody the role's own
    own = any(s.address == sender and s.confirmed_at is not None for s in candidates)
    if signon_guard.refusal(prep.session, game, who[0].upper(), sender, own, prep.now,
                            limits.signon_failures_per_sender, limits.signon_failures_per_role):
        prep.stop = True
        return
    if not prep.spend(cmd):
        prep.stop = True
        return
    for seat in candidates:
        if prep.passwords.add_check(password, seat.password_hash):
            # a seat still waiting for its address to confirm signs nobody on
            prep.authenticated = prep.authenticated or (
                seat.address == sender and seat.confirmed_at is not None)
            return
    prep.stop = True


@command("SIGNON", syntax="SIGNON <X><game> <password>",
         summary="sign on: X is a power initial, M (master) or O (observer); ?<game> joins",
         secrets=positions(1, rest=True, privacy=2), prepare=_prepare_signon, moves_game=True)
def signon_command(ctx: Context, cmd: Command) -> None:
    if cmd.args and cmd.args[0].startswith("?") and len(cmd.args[0]) > 1:
        args, privacy = trailing_option(cmd.args, "PRIVACY", 2)
        if len(args) == 2:  # SIGNON ?<game> <password> [PRIVACY <pw>]: JOIN
            _join(ctx, cmd, args[0][1:], args[1], None, privacy)
            return
    if len(cmd.args) != 2 or len(cmd.args[0]) < 2:
        ctx.halted = f"the SIGNON on line {cmd.line_no} failed"
        raise CommandError("SIGNON <X><game> <password>, e.g. SIGNON Fwar1901 secret."
                           " The rest of this mail was not executed.")
    who, password = cmd.args
    if who.startswith("?"):
        _join(ctx, cmd, who[1:], password, None)
        return
    limits = ctx.config.limits
    try:
        result = signon(ctx.session, who[1:], who[0], password, ctx.now, sender=ctx.mail.sender,
                        per_sender=limits.signon_failures_per_sender,
                        per_role=limits.signon_failures_per_role)
    except GameError as exc:
        ctx.halted = f"the SIGNON on line {cmd.line_no} failed"
        raise CommandError(f"{refusal_text(exc)} The rest of this mail was not executed."
                           ) from None
    if result.seat is None:
        # answered, not raised: the failure just counted must be kept
        assert result.refusal is not None
        ctx.halted = f"the SIGNON on line {cmd.line_no} failed"
        told = outgoing_for(result.events, ctx.config.judge.name)
        for out in told:
            out.limited = False  # the role's player must hear of it, whatever this mail did
        ctx.outgoing.extend(told)
        ctx.answer(cmd.line_no, cmd.text,
                   f"Error: {refusal_text(result.refusal)} The rest of this mail was not executed.",
                   ok=False)
        return
    seat = result.seat
    game = find_game(ctx.session, who[1:])
    identity = sign_on_as(ctx, seat, game.name)
    deadline = clock.deadline_of(game)
    state = (f"{game.phase}, deadline {ctx.when(deadline)}" if game.state == GameState.ACTIVE
             and deadline else game.state)
    ctx.answer(cmd.line_no, cmd.text, f"Signed on as {identity.describe()} ({state}).")


def _visible_game(ctx: Context, name: str, privacy: str | None, what: str) -> Game:
    """The game named, if this mail may see it (a private game: signed on, or PRIVACY)."""
    game = find_game(ctx.session, name)
    require_sight(ctx.session, game, ctx.now, password=privacy, sender=ctx.mail.sender,
                  signed_on_to=ctx.identity.game_id if ctx.identity is not None else None,
                  what=what.format(game=game.name))
    return game


@command("HISTORY", syntax="HISTORY <game> [<phase>] [PRIVACY <privacy password>]",
         informational=True, secrets=positions(privacy=1), prepare=with_privacy(),
         summary="the results of the phases played so far, and the press you may see")
def history_command(ctx: Context, cmd: Command) -> None:
    args, privacy = trailing_option(cmd.args, "PRIVACY", 1)
    if len(args) not in (1, 2):
        raise CommandError("HISTORY needs a game name (and may name one phase).")
    game = _visible_game(ctx, args[0], privacy, "HISTORY {game} PRIVACY <privacy password>")
    played = snapshots(ctx.session, game)
    phase = args[1].upper() if len(args) == 2 else None
    press = press_for_history(ctx, game, phase)
    if phase is not None:
        played = [s for s in played if s.phase == phase]
        if not played and not press:
            raise CommandError(f"{phase} has not been played in {game.name}.")
    # press of a phase not (or no longer) played comes after the results
    unplayed = [(p, entries) for p, entries in press.items()
                if p not in {s.phase for s in played}]
    ctx.answer(cmd.line_no, cmd.text, ctx.render(
        "game/history.txt", game=game, phases=[json.loads(s.results) for s in played],
        press=press, unplayed_press=unplayed, phase_asked=phase, **ctx.template_vars()))


def _power_rows(session: Session, game: Game) -> list[tuple[str, str, int]]:
    """One row per power that has had a seat, in the variant's order: the power, the status
    of the seat that holds it now (a played or dummy seat, else the last one), and how many
    seats held it before."""
    held: dict[str, list[Seat]] = {}
    for seat in session.query(Seat).filter_by(game_id=game.id, kind=SeatKind.POWER).order_by(Seat.id):
        if seat.power:
            held.setdefault(seat.power, []).append(seat)
    rows = []
    for power in load_map(game.variant).powers:
        seats = held.get(power)
        if not seats:
            continue
        now = next((s for s in reversed(seats)
                    if s.status in (SeatStatus.ACTIVE, SeatStatus.DUMMY)), seats[-1])
        rows.append((power.capitalize(), now.status, len(seats) - 1))
    return rows


@command("SUMMARY", syntax="SUMMARY <game> [PRIVACY <privacy password>]",
         summary="a short summary of a game's course", informational=True,
         secrets=positions(privacy=1), prepare=with_privacy())
def summary_command(ctx: Context, cmd: Command) -> None:
    args, privacy = trailing_option(cmd.args, "PRIVACY", 1)
    if len(args) != 1:
        raise CommandError("SUMMARY needs a game name.")
    game = _visible_game(ctx, args[0], privacy, "SUMMARY {game} PRIVACY <privacy password>")
    years = []
    for s in snapshots(ctx.session, game):
        facts = json.loads(s.results)
        if facts["centers"]:
            years.append((s.phase, [(p, len(c)) for p, c in facts["centers"]]))
    ctx.answer(cmd.line_no, cmd.text, ctx.render(
        "game/summary.txt", game=game, years=years, players=_power_rows(ctx.session, game),
        winner=game.winner, **ctx.template_vars()))

