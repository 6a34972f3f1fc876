"""The lines of a mail that are not commands: after a SIGNON as a power (or the master's
BECOME) they are orders, entered into the game one by one; any other line is a mistyped
command and answered as one."""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.finishers import copy_to_player
from judge.commands.identity import Identity
from judge.commands.parse import OtherLine
from judge.commands.registry import Role
from judge.commands.unknown import answer_unknown
from judge.core import load_map
from judge.core.formal.orders import parse_formal_order
from judge.core.orders import looks_like_an_order
from judge.mail.writing.refusals import refusal_text
from judge.service import game_rules
from judge.service.errors import GameError
from judge.service.formal.orders import enter_order_line
from judge.service.games import lock_game
from judge.service.processing import position_of
from judge.store.models import Game, GameState, Seat, SeatStatus


def handle_order_line(ctx: Context, identity: Identity, line: OtherLine) -> None:
    """A line that is no command, read after a SIGNON: an order of the power signed on for,
    or a mistyped command."""
    if not _reads_as_order(ctx, identity, line.text):
        answer_unknown(ctx, line, signed_on=True)
        return
    try:
        _order(ctx, identity, line)
    except GameError as exc:
        game = ctx.session.get(Game, identity.game_id)
        if game is not None and game_rules.has(game, "IGNORE_ERRORS"):
            # the master chose to have order errors ignored: the line is dropped without
            # an error, and the order list below shows what counts
            ctx.answer(line.line_no, line.text, "Ignored (IGNORE_ERRORS).")
            return
        ctx.answer(line.line_no, line.text, f"Error: {refusal_text(exc)}", ok=False)
    except CommandError as exc:
        ctx.answer(line.line_no, line.text, f"Error: {exc}", ok=False)


def _reads_as_order(ctx: Context, identity: Identity, text: str) -> bool:
    """Whether a line that is no command begins like an order (a Formal one included) of
    this game's map; one that does not is a mistyped command, answered as such."""
    game = ctx.session.get(Game, identity.game_id)
    if game is None:
        return True
    m = load_map(game.variant)
    return parse_formal_order(m, text) is not None or looks_like_an_order(m, text)


def _order(ctx: Context, identity: Identity, line: OtherLine) -> None:
    if identity.power is None or identity.power_seat_id is None:
        raise CommandError("orders are only read after a SIGNON as a power (the master:"
                           " BECOME <power> first). Is this a misspelt command?")
    game = lock_game(ctx.session, identity.game_id)
    if game.state not in (GameState.ACTIVE, GameState.PAUSED):
        raise CommandError(f"{game.name} is {game.state}: no orders are taken.")
    seat = ctx.session.get(Seat, identity.power_seat_id)
    assert seat is not None
    # a dummy's orders come from the master (BECOME)
    mastered = seat.status == SeatStatus.DUMMY and bool(identity.role & Role.MASTER)
    if seat.status != SeatStatus.ACTIVE and not mastered:
        raise CommandError(f"you no longer play {identity.power.capitalize()}.")
    # the reply lists the power's orders even when every line is refused: a refused
    # line leaves the unit's previous order in place, and the player should see it
    ctx.finish_with("orders", seat.id)
    # DWO, SUR, SOI, Undo SOI first (refused with a reason outside Formal games)
    entry = enter_order_line(seat, game, position_of(game), line.text,
                             this_mail=ctx.order_keys.setdefault(seat.id, set()),
                             **game_rules.order_options(game, ctx.now))
    ctx.answer(line.line_no, line.text, ctx.render("order_entry.txt", entry=entry))
    copy_to_player(ctx, identity, seat)
    ctx.finish_with("ready", game.id)
