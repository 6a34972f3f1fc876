"""Commands for a signed-on player (and, where it makes sense, any role): SET PASSWORD,
SET ADDRESS, SET WAIT / SET NOWAIT, CLEAR, RESIGN."""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.finishers import copy_to_player
from judge.commands.parse import Command
from judge.commands.registry import Role, command, positions
from judge.basics.addresses import AddressError, checked_address
from judge.mail.writing.game_mail import outgoing_for
from judge.service import game_rules
from judge.service.games import leave, lock_game, move_seat
from judge.service.access.passwords import hash_password
from judge.store.models import GameState, Seat, SeatStatus

PLAYING = frozenset({GameState.ACTIVE, GameState.PAUSED})


def _seat(ctx: Context, power_seat: bool = False) -> Seat:
    identity = ctx.signed_on
    seat_id = identity.power_seat_id if power_seat else identity.seat_id
    seat = ctx.session.get(Seat, seat_id) if seat_id else None
    # a dummy power is the master's to order (BECOME)
    dummy_of_master = seat is not None and seat.status == SeatStatus.DUMMY \
        and bool(identity.role & Role.MASTER)
    if seat is None or (seat.status != SeatStatus.ACTIVE and not dummy_of_master):
        raise CommandError("you have no place in this game any more.")
    return seat


@command("SET", "PASSWORD", roles=Role.SIGNED_ON, syntax="SET PASSWORD <new>",
         summary="change your password", secrets=positions(0, rest=True))
def set_password(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) != 1 or len(cmd.args[0]) > 64:
        raise CommandError("SET PASSWORD needs one word, the new password.")
    _seat(ctx).password_hash = hash_password(cmd.args[0])
    ctx.answer(cmd.line_no, cmd.text, "Your password has been changed.")


@command("SET", "ADDRESS", roles=Role.SIGNED_ON, syntax="SET ADDRESS <address>",
         summary="have the judge's mail for your role sent elsewhere",
         args=(1, 1), wrong_args="SET ADDRESS needs one mail address.")
def set_address(ctx: Context, cmd: Command) -> None:
    try:
        address = checked_address(cmd.args[0])
    except AddressError as exc:
        raise CommandError(f"{cmd.args[0]} is not an address the judge can write to ({exc});"
                           " your address was not changed.") from None
    seat = _seat(ctx)
    game = lock_game(ctx.session, seat.game_id)
    before = seat.address
    events = move_seat(ctx.session, game, seat, address, ctx.now, ctx.config.limits.confirm_days)
    ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))
    if seat.address != before:  # the new address had confirmed a seat in the game already
        ctx.copy_to(seat.address, seat.id)
    ctx.answer(cmd.line_no, cmd.text, ctx.render(
        "game/address.txt", address=address, game=game.name, moved=seat.address != before,
        waiting=seat.pending_address is not None))


def _set_wait(ctx: Context, cmd: Command, wait: bool) -> None:
    seat = _seat(ctx, power_seat=True)
    game = lock_game(ctx.session, seat.game_id)
    if wait and game_rules.has(game, "REAL_TIME"):
        raise CommandError(f"{game.name} is a REAL_TIME game: it is processed as soon as the"
                           " last orders are in, and nobody may make it wait.")
    seat.wait = wait
    if wait:
        ctx.answer(cmd.line_no, cmd.text, "The phase will not be processed before its deadline.")
    else:
        ctx.answer(cmd.line_no, cmd.text, "The phase may be processed as soon as all orders"
                   " are in.")
        ctx.finish_with("ready", seat.game_id)


@command("SET", "WAIT", roles=Role.POWER, states=PLAYING, syntax="SET WAIT",
         summary="do not process before the deadline", moves_game=True)
def set_wait(ctx: Context, cmd: Command) -> None:
    _set_wait(ctx, cmd, True)


@command("SET", "NOWAIT", roles=Role.POWER, states=PLAYING, syntax="SET NOWAIT",
         summary="process as soon as everybody has ordered", moves_game=True)
def set_nowait(ctx: Context, cmd: Command) -> None:
    _set_wait(ctx, cmd, False)


@command("CLEAR", roles=Role.POWER, states=PLAYING, syntax="CLEAR",
         summary="withdraw all your orders for this phase", moves_game=True)
def clear_command(ctx: Context, cmd: Command) -> None:
    seat = _seat(ctx, power_seat=True)
    game = lock_game(ctx.session, seat.game_id)
    if game_rules.order_options(game, ctx.now)["only_new"] and seat.orders != "{}":
        raise CommandError("the deadline has passed: under CIVIL_DISORDER orders given before"
                           " it cannot be withdrawn.")
    seat.orders = "{}"
    ctx.answer(cmd.line_no, cmd.text, f"All orders of {seat.power.capitalize()} withdrawn.")  # type: ignore[union-attr]
    ctx.finish_with("orders", seat.id)
    copy_to_player(ctx, ctx.signed_on, seat)


@command("RESIGN", roles=Role.POWER, syntax="RESIGN", summary="give up your power",
         moves_game=True)
def resign_command(ctx: Context, cmd: Command) -> None:
    seat = _seat(ctx, power_seat=True)
    game = lock_game(ctx.session, seat.game_id)
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise CommandError(f"{game.name} is over.")
    events = leave(ctx.session, game, seat, "resigned")
    ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))
    ctx.identity = None
    ctx.answer(cmd.line_no, cmd.text, f"You have resigned from {game.name}.")
    # the power no longer owes orders: the others' may now complete the phase
    ctx.finish_with("ready", game.id)
