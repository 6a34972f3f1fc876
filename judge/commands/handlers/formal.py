"""The master's commands of a Formal Diplomacy game: SET DRAWS ON|OFF (draw votes are off
until the master switches them on), and the repairs of the wars, spheres and points (SET WAR,
SET PEACE, SET SPHERE, SET NOSPHERE, SET POINTS; :mod:`judge.service.formal.repairs`).  The
variant's orders are order lines, not commands (:mod:`judge.service.formal.orders`)."""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.parse import Command
from judge.commands.registry import Role, command
from judge.mail.writing.game_mail import outgoing_for
from judge.core import load_map
from judge.core.powers import PowerNameError, find_powers
from judge.service.events import FormalRepaired
from judge.service.formal.games import set_draws
from judge.service.formal.repairs import set_points, set_sphere, set_war
from judge.service.games import lock_game, power_named
from judge.store.models import Game


@command("SET", "DRAWS", roles=Role.MASTER, syntax="SET DRAWS ON|OFF", one_of=("ON", "OFF"),
         wrong_args="SET DRAWS takes ON or OFF.",
         summary="Formal Diplomacy: allow draw and concession votes, or not (the default)")
def set_draws_command(ctx: Context, cmd: Command) -> None:
    identity = ctx.signed_on
    game = lock_game(ctx.session, identity.game_id)
    word = cmd.args[0].lower()
    changed, events = set_draws(ctx.session, game, word == "on")
    ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))
    ctx.answer(cmd.line_no, cmd.text, f"Draw votes in {game.name} are now {word}." if changed
               else f"Draw votes in {game.name} are already {word}; nothing changed.")


def _repair(ctx: Context, cmd: Command, event: FormalRepaired, done: str) -> None:
    ctx.outgoing.extend(outgoing_for([event], ctx.config.judge.name))
    ctx.answer(cmd.line_no, cmd.text, f"{done} Everybody in the game has been told.")


def _two_powers(ctx: Context, cmd: Command, game: Game) -> tuple[str, str]:
    found = find_powers(load_map(game.variant), cmd.rest)
    if isinstance(found, PowerNameError):
        raise CommandError(f"{found.message}.")
    if len(found) != 2:
        raise CommandError(f"{' '.join(cmd.spec.words)} needs two powers, e.g. "
                           f"{' '.join(cmd.spec.words)} F G.")
    return found[0], found[1]


def _war_command(ctx: Context, cmd: Command, at_war: bool) -> None:
    identity = ctx.signed_on
    game = lock_game(ctx.session, identity.game_id)
    a, b = _two_powers(ctx, cmd, game)
    event = set_war(ctx.session, game, a, b, at_war)
    _repair(ctx, cmd, event, f"{a.capitalize()} and {b.capitalize()} are now "
            f"{'at war' if at_war else 'at peace'}.")


@command("SET", "WAR", roles=Role.MASTER, syntax="SET WAR <power> <power>",
         summary="Formal Diplomacy repair: put two powers at war (no points change)")
def set_war_command(ctx: Context, cmd: Command) -> None:
    _war_command(ctx, cmd, True)


@command("SET", "PEACE", roles=Role.MASTER, syntax="SET PEACE <power> <power>",
         summary="Formal Diplomacy repair: end the war of two powers (no points change)")
def set_peace_command(ctx: Context, cmd: Command) -> None:
    _war_command(ctx, cmd, False)


@command("SET", "SPHERE", roles=Role.MASTER, syntax="SET SPHERE <power> <province>",
         summary="Formal Diplomacy repair: make a province a power's sphere of influence",
         args=(2, None), wrong_args="SET SPHERE needs a power and a province, e.g. SET SPHERE F Bel.")
def set_sphere_command(ctx: Context, cmd: Command) -> None:
    identity = ctx.signed_on
    game = lock_game(ctx.session, identity.game_id)
    power = power_named(game, cmd.args[0])
    event = set_sphere(ctx.session, game, power, " ".join(cmd.args[1:]))
    _repair(ctx, cmd, event, f"{event.province} is now a sphere of influence of "
            f"{power.capitalize()}.")


@command("SET", "NOSPHERE", roles=Role.MASTER, syntax="SET NOSPHERE <province>",
         summary="Formal Diplomacy repair: end the sphere of influence in a province",
         aliases=(("SET", "NO", "SPHERE"),))
def set_nosphere_command(ctx: Context, cmd: Command) -> None:
    if not cmd.args:
        raise CommandError("SET NOSPHERE needs a province, e.g. SET NOSPHERE Bel.")
    identity = ctx.signed_on
    game = lock_game(ctx.session, identity.game_id)
    event = set_sphere(ctx.session, game, None, cmd.rest)
    _repair(ctx, cmd, event, f"{event.province} is no longer a sphere of influence.")


@command("SET", "POINTS", roles=Role.MASTER, syntax="SET POINTS <power> <points>",
         summary="Formal Diplomacy repair: set a power's victory points")
def set_points_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) != 2 or not cmd.args[1].lstrip("+-").isdigit():
        raise CommandError("SET POINTS needs a power and a whole number, e.g. SET POINTS F 12.")
    identity = ctx.signed_on
    game = lock_game(ctx.session, identity.game_id)
    power = power_named(game, cmd.args[0])
    event = set_points(ctx.session, game, power, int(cmd.args[1]))
    _repair(ctx, cmd, event, f"{power.capitalize()} now has {event.points} victory points.")
