"""Who a mail has signed on as, and how its order lines reach the game.

An :class:`Identity` is set by SIGNON (or CREATE, for the master); the executor asks it for
the game's state when checking a command, and hands it every line that is not a command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.parse import OtherLine
from judge.commands.registry import Role
from judge.commands.unknown import answer_unknown
from judge.core import load_map
from judge.core.formal.orders import parse_formal_order
from judge.core.orders import looks_like_an_order
from judge.mail.game_mail import outgoing_for
from judge.service import game_rules
from judge.service.errors import GameError
from judge.service.formal_orders import enter_order_line
from judge.service.clock import deadline_of
from judge.service.events import OrdersByMaster
from judge.service.games import lock_game, variant_title
from judge.service.orders import order_set, stored_orders
from judge.service.faults import ProcessingFault, guarded
from judge.service.phases import position_of, process_if_ready
from judge.store.models import Game, GameState, Seat


@dataclass
class Identity:
    role: Role
    game_id: int
    game_name: str
    seat_id: int
    session: Session
    power: str | None = None  # the power ordered for (a player's, or the master's BECOME)
    power_seat_id: int | None = None

    def saved(self) -> dict[str, Any]:
        return dict(role=self.role.value, game_id=self.game_id, game_name=self.game_name,
                    seat_id=self.seat_id, power=self.power, power_seat_id=self.power_seat_id)

    @classmethod
    def restored(cls, state: dict[str, Any], session: Session) -> "Identity":
        return cls(Role(state["role"]), state["game_id"], state["game_name"], state["seat_id"],
                   session, state["power"], state["power_seat_id"])

    def game(self, ctx: Context) -> Game:
        game = ctx.session.get(Game, self.game_id)
        assert game is not None
        return game

    @property
    def game_state(self) -> str:
        # read each time: a command earlier in the same mail may have changed it (START)
        game = self.session.get(Game, self.game_id)
        return game.state if game else "gone"

    def describe(self) -> str:
        if self.role & Role.MASTER:
            return f"the master of {self.game_name}"
        if self.role & Role.OBSERVER:
            return f"an observer of {self.game_name}"
        return f"{(self.power or 'a player').capitalize()} in {self.game_name}"

    def handle_order_line(self, ctx: Context, line: OtherLine) -> None:
        if not self._reads_as_order(ctx, line.text):
            answer_unknown(ctx, line, signed_on=True)
            return
        try:
            self._order(ctx, line)
        except GameError as exc:
            game = ctx.session.get(Game, self.game_id)
            if game is not None and game_rules.has(game, "IGNORE_ERRORS"):
                # the master chose to have order errors ignored: the line is dropped without
                # an error, and the order list below shows what counts
                ctx.answer(line.line_no, line.text, "Ignored (IGNORE_ERRORS).")
                return
            ctx.answer(line.line_no, line.text, f"Error: {exc}", ok=False)
        except CommandError as exc:
            ctx.answer(line.line_no, line.text, f"Error: {exc}", ok=False)

    def _reads_as_order(self, ctx: Context, text: str) -> bool:
        """Whether a line that is no command begins like an order (a Formal one included) of
        this game's map; one that does not is a mistyped command, answered as such."""
        game = ctx.session.get(Game, self.game_id)
        if game is None:
            return True
        m = load_map(game.variant)
        return parse_formal_order(m, text) is not None or looks_like_an_order(m, text)

    def _order(self, ctx: Context, line: OtherLine) -> None:
        if self.power is None or self.power_seat_id is None:
            raise CommandError("orders are only read after a SIGNON as a power (the master:"
                               " BECOME <power> first). Is this a misspelt command?")
        game = lock_game(ctx.session, self.game_id)
        if game.state not in (GameState.ACTIVE, GameState.PAUSED):
            raise CommandError(f"{game.name} is {game.state}: no orders are taken.")
        seat = ctx.session.get(Seat, self.power_seat_id)
        assert seat is not None
        # a dummy's orders come from the master (BECOME)
        if seat.status != "active" and not (seat.status == "dummy" and self.role & Role.MASTER):
            raise CommandError(f"you no longer play {self.power.capitalize()}.")
        # the reply lists the power's orders even when every line is refused: a refused
        # line leaves the unit's previous order in place, and the player should see it
        ctx.finish_with("orders", seat.id)
        # DWO, SUR, SOI, Undo SOI first (refused with a reason outside Formal games)
        entry = enter_order_line(seat, game, position_of(game), line.text,
                                 this_mail=ctx.order_keys.setdefault(seat.id, set()),
                                 **game_rules.order_options(game, ctx.now))
        ctx.answer(line.line_no, line.text, ctx.render("order_entry.txt", entry=entry))
        copy_to_player(ctx, self, seat)
        ctx.finish_with("ready", game.id)


def copy_to_player(ctx: Context, identity: "Identity", seat: Seat) -> None:
    """Orders the master gave a power that has a player (BECOME): its player gets a copy of
    the power's orders once the mail is done (before the phase may be processed)."""
    key = f"copy:{seat.id}"
    if identity.role & Role.MASTER and seat.status == "active" and key not in ctx.finishers:
        # before any processing asked for earlier in the mail: the copy is of this phase
        ready = [i for i, k in enumerate(ctx.finishers) if k.startswith("ready:")]
        ctx.finishers.insert(ready[0] if ready else len(ctx.finishers), key)


def order_summary(ctx: Context, seat_id: int) -> None:
    """The reply lists the power's full order set and the units still without orders."""
    seat = ctx.session.get(Seat, seat_id)
    if seat is None or seat.power is None or seat.kind != "power":
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
    if seat is None or seat.power is None or seat.status != "active":
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
                 f"{played} could not be processed because of a fault in the judge ({fault})."
                 " Your orders are kept; the master has been told, and the judge will try"
                 " again.")
        ctx.outgoing.extend(outgoing_for(fault.events, ctx.config.judge.name))
        return
    if events:
        ctx.note(f"{game.name}: all orders are in.",
                 ctx.render("game/processed.txt", played=played, game=game))
        ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))


# What Context.finish_with may ask for, by kind: each takes the id it was asked with.
FINISHERS = {"orders": order_summary, "copy": copy_orders, "ready": process_when_ready}
