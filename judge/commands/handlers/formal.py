"""The master's command of a Formal Diplomacy game: SET DRAWS ON|OFF (draw votes are off
until the master switches them on).  The variant's orders are order lines, not commands
(:mod:`judge.service.formal_orders`)."""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.identity import Identity
from judge.commands.parse import Command
from judge.commands.registry import Role, command
from judge.mail.game_mail import outgoing_for
from judge.service.formal_games import set_draws
from judge.service.games import lock_game


@command("SET", "DRAWS", roles=Role.MASTER, syntax="SET DRAWS ON|OFF",
         summary="Formal Diplomacy: allow draw and concession votes, or not (the default)")
def set_draws_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) != 1 or cmd.args[0].upper() not in ("ON", "OFF"):
        raise CommandError("SET DRAWS takes ON or OFF.")
    identity: Identity = ctx.identity
    game = lock_game(ctx.session, identity.game_id)
    text, events = set_draws(ctx.session, game, cmd.args[0].upper() == "ON")
    ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))
    ctx.answer(cmd.line_no, cmd.text, text)
