"""Map pictures by mail: MAP <game> [<phase>] for anyone, SET MAP ON|OFF for a signed-on role.

MAP answers with a picture attached to the reply (drawn when the reply is sent).  Without a
phase it shows the board as it stands; the game's master, signed on, also sees the orders
received so far, and a signed-on player sees the power's own.

Pictures go only to the game's members, addresses that hold a place in it and confirmed they
want its mail (judge.service.access.confirmations): anyone else's MAP is answered with where to see
the map (the web view, or OBSERVE).  Anyone can send MAP in anyone's name, and three pictures
are some 200 KB: a stranger's mail of a few bytes must not make the judge mail that much to
whatever address it names.
"""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.handlers.player import _seat
from judge.commands.parse import Command, trailing_option
from judge.commands.prepare import with_privacy
from judge.commands.registry import Role, command, positions
from judge.core import InputError, Phase
from judge.mail.writing.attached_maps import (MAX_PER_MAIL, board_document, phase_document, played_snapshot)
from judge.service import game_rules
from judge.service.access.confirmations import member
from judge.service.games import find_game, ordering_seats
from judge.service.orders import stored_orders
from judge.service.processing import snapshots
from judge.service.access.privacy import require_sight
from judge.store.models import Game, GameState


def _orders_shown(ctx: Context, game: Game) -> tuple[dict[str, list[str]], str]:
    """The orders a signed-on role may see on the current board, and the title's note."""
    identity = ctx.identity
    if (identity is None or identity.game_id != game.id
            or game.state not in (GameState.ACTIVE, GameState.PAUSED)):
        return {}, ""
    if identity.role & Role.MASTER:
        orders = {s.power: list(stored_orders(s).values())
                  for s in ordering_seats(ctx.session, game) if s.power}
        return {p: o for p, o in orders.items() if o}, "orders received so far"
    power = identity.power
    if identity.role & Role.POWER and power:
        mine = [s for s in ordering_seats(ctx.session, game) if s.power == power]
        given = list(stored_orders(mine[0]).values()) if mine else []
        return ({power: given} if given else {}), f"{power.capitalize()}'s orders so far"
    return {}, ""


@command("MAP", syntax="MAP <game> [<phase>] [PRIVACY <privacy password>]",
         secrets=positions(privacy=1), prepare=with_privacy(),
         summary="a picture of the board now, or of a phase played, attached to the reply")
def map_command(ctx: Context, cmd: Command) -> None:
    args, privacy = trailing_option(cmd.args, "PRIVACY", 1)
    if len(args) not in (1, 2):
        raise CommandError("MAP needs a game name (and may name one phase, e.g. F1901M).")
    if len(ctx.pictures) >= MAX_PER_MAIL:
        raise CommandError(f"a reply carries at most {MAX_PER_MAIL} maps.")
    game = find_game(ctx.session, args[0])
    identity = ctx.identity
    require_sight(ctx.session, game, ctx.now, password=privacy, sender=ctx.mail.sender,
                  signed_on_to=identity.game_id if identity is not None else None,
                  what=f"MAP {game.name} PRIVACY <privacy password>")
    phase = args[1].upper() if len(args) == 2 else None
    if phase is not None:
        try:
            Phase.parse(phase)
        except InputError:
            raise CommandError(f'"{args[1]}" is not a phase: write it like S1901M, '
                               "F1901R or W1901A.") from None
    if phase is None or phase == game.phase:
        orders, note = _orders_shown(ctx, game)
        picture = board_document(game, orders, note)
        what = f"the board of {game.name} at {game.phase}"
        if orders:
            what += f", with the {note}"
        phase = None
    else:
        snap = played_snapshot(ctx.session, game, phase)
        if snap is None:
            played = " ".join(s.phase for s in snapshots(ctx.session, game)) or "none yet"
            raise CommandError(f"{phase} has not been played in {game.name} (played: "
                               f"{played}).")
        picture = phase_document(game, snap)
        what = f"{game.name} in {phase}: the orders, their results and the board after them"
    if not member(ctx.session, game, ctx.mail.sender):
        ctx.answer(cmd.line_no, cmd.text, ctx.render(
            "game/map_elsewhere.txt", game=game.name, phase=phase, address=ctx.mail.sender,
            observers=not game_rules.has(game, "NO_OBSERVATIONS"), **ctx.template_vars()))
        return
    ctx.pictures.append(picture)
    ctx.answer(cmd.line_no, cmd.text, f"The map of {what} is attached to this reply.")


@command("SET", "MAP", roles=Role.SIGNED_ON, syntax="SET MAP ON|OFF", one_of=("ON", "OFF"),
         wrong_args="SET MAP takes ON or OFF.",
         summary="whether your copies of the results carry the map picture")
def set_map(ctx: Context, cmd: Command) -> None:
    on = cmd.args[0].upper() == "ON"
    _seat(ctx).map_pictures = on
    ctx.answer(cmd.line_no, cmd.text,
               "Your copies of the results will carry the map of each phase." if on else
               "Your copies of the results will come without the map (SET MAP ON to have it"
               " again).")
