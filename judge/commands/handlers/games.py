"""Commands about games that anyone may send: CREATE, JOIN, SIGNON, OBSERVE, HISTORY, SUMMARY.

(LIST lives in :mod:`judge.commands.handlers.general` with the other commands for anyone.)
"""

from __future__ import annotations

import json

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.handlers.press import press_for_history
from judge.commands.identity import Identity
from judge.commands.parse import Command
from judge.commands.registry import Role, command
from judge.mail.game_mail import judge_date, outgoing_for
from judge.service import clock, game_rules
from judge.service.errors import GameError
from judge.service.formal_games import created_text
from judge.service.games import (create_game, find_game, join_game, observe_game, signon,
                                 start_game, variant_title)
from judge.service.phases import snapshots
from judge.service.tournaments import add_game, check_tournament_for, tournament_for
from judge.store.models import Seat

_KIND_ROLE = {"master": Role.MASTER, "observer": Role.OBSERVER, "power": Role.POWER}


def sign_on_as(ctx: Context, seat: Seat, game_name: str) -> Identity:
    """Make ``seat`` the mail's identity; its registered address gets the reply too."""
    identity = Identity(_KIND_ROLE[seat.kind], seat.game_id, game_name, seat.id, ctx.session,
                        power=seat.power, power_seat_id=seat.id if seat.power else None)
    ctx.identity = identity
    if seat.address not in ctx.reply_also:
        ctx.reply_also.append(seat.address)
    return identity


def _parse_create(args: tuple[str, ...]) -> dict:
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
                                                            "TURNS"):
                opts["rules"].append(args[i].upper())
                i += 1
        elif word == "DEADLINE" and i + 1 < len(args):
            parts = args[i + 1].split("/")
            if len(parts) not in (1, 3):
                raise CommandError("DEADLINE takes one duration, or movement/retreat/adjustment"
                                   " durations, e.g. DEADLINE 48h/24h/24h.")
            seconds = [clock.parse_duration(p) for p in parts]
            opts["durations"] = dict(zip("MRA", seconds * 3 if len(seconds) == 1 else seconds))
            i += 2
        elif word == "GRACE" and i + 1 < len(args):
            opts["grace"] = clock.parse_duration(args[i + 1])
            i += 2
        elif word == "TOURNAMENT" and i + 1 < len(args):
            opts["tournament"] = args[i + 1]
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
            raise CommandError(f'"{args[i]}" is not understood here: CREATE <game> <password>'
                               " [VARIANT <name>] [TURNS <years>] [RULES <RULE> ...]"
                               " [DEADLINE <duration>] [GRACE <duration>] [VICTORY <centres>]"
                               " [TOURNAMENT <name>].")
    return opts


@command("CREATE", syntax="CREATE <game> <password> [VARIANT <name> [TURNS <years>]]"
         " [RULES <RULE> ...] [DEADLINE <duration>] [GRACE <duration>] [VICTORY <centres>]"
         " [TOURNAMENT <name>]", summary="a new game; you become its master")
def create_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) < 2:
        raise CommandError("CREATE needs a game name and a password.")
    name, password = cmd.args[0], cmd.args[1]
    opts = _parse_create(cmd.args[2:])
    tournament_name = opts.pop("tournament", None)
    if tournament_name is not None:  # refuse before the game exists: a refusal changes nothing
        check_tournament_for(ctx.session, tournament_name, ctx.mail.sender)
    game, master = create_game(ctx.session, name, password, ctx.mail.sender, ctx.now, **opts)
    in_tournament = ""
    if tournament_name is not None:
        tournament = tournament_for(ctx.session, tournament_name, ctx.mail.sender, ctx.now)
        add_game(ctx.session, tournament, game)
        in_tournament = f" in tournament {tournament.name}"
    sign_on_as(ctx, master, game.name)
    rules = f" with rules {game.rules}" if game.rules else ""
    explained = game_rules.choose(opts["rules"])  # as asked: says what brought what in
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
        text += (f"Deadlines: movement {clock.format_duration(game.movement_seconds)}, "
                 f"retreats {clock.format_duration(game.retreat_seconds)}, adjustments "
                 f"{clock.format_duration(game.adjustment_seconds)}, grace "
                 f"{clock.format_duration(game.grace_seconds)}.\n")
    formal = created_text(game)
    if formal:
        text += f"{formal}\n"
    if game_rules.has(game, "SOLITAIRE"):
        # seed 002: the forming phase is skipped, every power a dummy of the master's
        ctx.outgoing.extend(outgoing_for(start_game(ctx.session, game, ctx.now),
                                         ctx.config.judge.name))
        text += (f"SOLITAIRE: {game.name} has started at {game.phase}; every power is a dummy."
                 " Order one with BECOME <power> and its orders (several powers in one mail),"
                 " then PROCESS.")
    else:
        text += f"Players join with JOIN {game.name} <password>."
    ctx.answer(cmd.line_no, cmd.text, text)


def _join(ctx: Context, cmd: Command, name: str, password: str, power: str | None) -> None:
    seat, events = join_game(ctx.session, name, password, ctx.mail.sender, ctx.now, power)
    game = find_game(ctx.session, name)
    joined = sum(1 for s in ctx.session.query(Seat).filter_by(game_id=game.id, kind="power",
                                                              status="active"))
    text = f"You have joined {game.name} ({joined} player{'s' if joined != 1 else ''} so far)."
    if events:
        text += f"\nThe game is full and has started; your power is {seat.power.capitalize()}."
        ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))
    else:
        text += " Powers are assigned when the game starts; you will be told yours."
    ctx.answer(cmd.line_no, cmd.text, text)


@command("JOIN", syntax="JOIN <game> <password> [<power>]",
         summary="a place in a forming game")
def join_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) not in (2, 3):
        raise CommandError("JOIN needs a game name and a password (and, in POWER_CHOICE games,"
                           " a power).")
    _join(ctx, cmd, cmd.args[0], cmd.args[1], cmd.args[2] if len(cmd.args) == 3 else None)


@command("OBSERVE", syntax="OBSERVE <game> <password>", summary="follow a game as an observer")
def observe_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) != 2:
        raise CommandError("OBSERVE needs a game name and a password.")
    observe_game(ctx.session, cmd.args[0], cmd.args[1], ctx.mail.sender, ctx.now)
    ctx.answer(cmd.line_no, cmd.text,
               f"You now observe {cmd.args[0]}: you will get its results. Sign on later with "
               f"SIGNON O{cmd.args[0]} <password>.")


@command("SIGNON", syntax="SIGNON <X><game> <password>",
         summary="sign on: X is a power initial, M (master) or O (observer); ?<game> joins")
def signon_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) != 2 or len(cmd.args[0]) < 2:
        ctx.halted = f"the SIGNON on line {cmd.line_no} failed"
        raise CommandError("SIGNON <X><game> <password>, e.g. SIGNON Fwar1901 secret."
                           " The rest of this mail was not executed.")
    who, password = cmd.args
    if who.startswith("?"):
        _join(ctx, cmd, who[1:], password, None)
        return
    try:
        seat = signon(ctx.session, who[1:], who[0], password, ctx.now)
    except GameError as exc:
        ctx.halted = f"the SIGNON on line {cmd.line_no} failed"
        raise CommandError(f"{exc} The rest of this mail was not executed.") from None
    game = find_game(ctx.session, who[1:])
    identity = sign_on_as(ctx, seat, game.name)
    deadline = clock.deadline_of(game)
    state = (f"{game.phase}, deadline {judge_date(deadline)}" if game.state == "active"
             and deadline else game.state)
    ctx.answer(cmd.line_no, cmd.text, f"Signed on as {identity.describe()} ({state}).")


@command("HISTORY", syntax="HISTORY <game> [<phase>]",
         summary="the results of the phases played so far, and the press you may see")
def history_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) not in (1, 2):
        raise CommandError("HISTORY needs a game name (and may name one phase).")
    game = find_game(ctx.session, cmd.args[0])
    played = snapshots(ctx.session, game)
    phase = cmd.args[1].upper() if len(cmd.args) == 2 else None
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


@command("SUMMARY", syntax="SUMMARY <game>", summary="a short summary of a game's course")
def summary_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) != 1:
        raise CommandError("SUMMARY needs a game name.")
    game = find_game(ctx.session, cmd.args[0])
    years = []
    for s in snapshots(ctx.session, game):
        facts = json.loads(s.results)
        if facts["centers"]:
            years.append((s.phase, [(p, len(c)) for p, c in facts["centers"]]))
    players = [(s.power.capitalize(), s.status) for s in
               ctx.session.query(Seat).filter_by(game_id=game.id, kind="power")
               .order_by(Seat.id) if s.power]
    ctx.answer(cmd.line_no, cmd.text, ctx.render(
        "game/summary.txt", game=game, years=years, players=players,
        winner=game.winner, **ctx.template_vars()))

