"""Work done once every line of a mail has run, once per mail whatever asked for it
(Context.finish_with): a power's order summary in the reply, the copy of a power's orders the
master gave to its player, and processing a game whose orders are complete."""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.identity import Identity
from judge.commands.registry import Role
from judge.mail.writing.game_mail import outgoing_for
from judge.service import game_rules
from judge.service.clock.game_clock import deadline_of
from judge.service.events import OrdersByMaster
from judge.service.faults import ProcessingFault, guarded
from judge.service.games import lock_game, variant_title
from judge.service.orders import order_set, stored_orders
from judge.service.processing import position_of, process_if_ready
from judge.store.models import Game, GameState, Seat, SeatKind, SeatStatus


def copy_to_player(ctx: Context, identity: Identity, seat: Seat) -> None:
    """Orders the master gave a power that has a player (BECOME): its player gets a copy of
    the power's orders once the mail is done (before the phase may be processed)."""
    key = f"copy:{seat.id}"
    if identity.role & Role.MASTER and seat.status == SeatStatus.ACTIVE and key not in ctx.finishers:
        # before any processing asked for earlier in the mail: the copy is of this phase
        ready = [i for i, k in enumerate(ctx.finishers) if k.startswith("ready:")]
        ctx.finishers.insert(ready[0] if ready else len(ctx.finishers), key)


def order_summary(ctx: Context, seat_id: int) -> None:
    """The reply lists the power's full order set and the units still without orders."""
    seat = ctx.session.get(Seat, seat_id)
    if seat is None or seat.power is None or seat.kind != SeatKind.POWER:
        return
    game = ctx.session.get(Game, seat.game_id)
    assert game is not None
    s = order_set(position_of(game), seat.power, stored_orders(seat),
                  build_any=game_rules.has(game, "BUILD_ANY"))
    # a vote in this mail may have ended the game: nothing is missing any more
    over = game.state in (GameState.FINISHED, GameState.TERMINATED)
    ctx.note(f"Orders of {s.power.capitalize()} in {game.name} for {s.phase}:",
             ctx.render("order_summary.txt", orders=s, over=over, game=game.name),
             seat=seat.id)


def copy_orders(ctx: Context, seat_id: int) -> None:
    """The player of a power the master ordered for is sent the power's orders as they now
    stand (not when the player's own address gets the reply anyway)."""
    seat = ctx.session.get(Seat, seat_id)
    if seat is None or seat.power is None or seat.status != SeatStatus.ACTIVE:
        return
    if seat.address == ctx.mail.sender:  # the reply itself tells them
        return
    game = ctx.session.get(Game, seat.game_id)
    assert game is not None
    s = order_set(position_of(game), seat.power, stored_orders(seat),
                  build_any=game_rules.has(game, "BUILD_ANY"))
    event = OrdersByMaster(game=game.name, variant=variant_title(game), to=(seat.address,),
                           power=seat.power, phase=s.phase, deadline=deadline_of(game),
                           orders=tuple(s.orders), missing=tuple(s.missing))
    ctx.outgoing.extend(outgoing_for([event], ctx.config.judge.name))


def process_when_ready(ctx: Context, game_id: int) -> None:
    game = lock_game(ctx.session, game_id)
    played = game.phase
    try:
        events = guarded(ctx.session, game, ctx.now, f"processing {played} (orders complete)",
                         lambda: process_if_ready(ctx.session, game, ctx.now))
    except ProcessingFault as fault:
        # The orders of this mail stay; only the processing was undone (judge.service.faults).
        ctx.note(f"{game.name}: all orders are in.",
                 ctx.render("game/processing_fault.txt", played=played, fault=fault).strip())
        ctx.outgoing.extend(outgoing_for(fault.events, ctx.config.judge.name))
        return
    if events:
        ctx.note(f"{game.name}: all orders are in.",
                 ctx.render("game/processed.txt", played=played, game=game))
        ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))


# What Context.finish_with may ask for, by kind: each takes the id it was asked with.
FINISHERS = {"orders": order_summary, "copy": copy_orders, "ready": process_when_ready}
