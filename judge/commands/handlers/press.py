"""Press commands: ``PRESS [TO <powers>] [GREY]`` … ``ENDPRESS`` and ``BROADCAST [GREY]`` …
``ENDPRESS`` for anyone signed on to a game (a power's player, the master, an observer), and the
master's press settings ``SET GREY`` / ``SET NOGREY`` and ``SET OBSERVER PRESS`` /
``SET NO OBSERVER PRESS``; and the press HISTORY shows to the mail's reader.

What may be sent is decided in :mod:`judge.service.press`; the master writes as the master
even after BECOME.
"""

from __future__ import annotations

from typing import Callable

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.identity import Identity
from judge.commands.parse import Command
from judge.commands.registry import Role, command
from judge.mail.writing.game_mail import outgoing_for
from judge.mail.writing.press_mail import kind_label, recipients_label, sender_label
from judge.service.events import Event, PressSent
from judge.service.games import lock_game
from judge.service.press import (Viewer, read_addressing, send_press, set_grey_press,
                                 set_observer_press, visible_press)
from judge.store.models import Game, GameState, Seat

NOT_OVER = frozenset({GameState.FORMING, GameState.ACTIVE, GameState.PAUSED})


def _send(ctx: Context, cmd: Command, broadcast_command: bool) -> None:
    identity = ctx.signed_on
    game = lock_game(ctx.session, identity.game_id)
    seat = ctx.session.get(Seat, identity.seat_id)
    if seat is None:
        raise CommandError(f"you no longer have a place in {game.name}.")
    addressing = read_addressing(game, cmd.rest, broadcast_command)
    limits = ctx.config.limits
    event = send_press(ctx.session, game, seat, addressing, cmd.block, ctx.now,
                       max_bytes=limits.press_bytes, max_lines=limits.press_lines)
    ctx.outgoing.extend(outgoing_for([event], ctx.config.judge.name))
    ctx.answer(cmd.line_no, cmd.text, _acknowledgement(event))


def _acknowledgement(e: PressSent) -> str:
    lines = len(e.body)
    text = (f"{kind_label(e.broadcast, e.grey, True)} of {lines} line{'s' if lines != 1 else ''}"
            f" sent to {recipients_label(e.powers, e.to_master, e.broadcast, e.game)}.")
    if e.grey:
        text += " Its readers are not told who sent it; the master is."
    if not e.broadcast and not e.to_master and e.master_to:
        text += " The master gets a copy, as of all press."
    return text


@command("PRESS", roles=Role.SIGNED_ON, block_end="ENDPRESS",
         syntax="PRESS [TO <powers>] [GREY] ... ENDPRESS",
         summary="a message to the powers listed (M: the master), or without TO to everyone")
def press_command(ctx: Context, cmd: Command) -> None:
    _send(ctx, cmd, broadcast_command=False)


@command("BROADCAST", roles=Role.SIGNED_ON, block_end="ENDPRESS",
         syntax="BROADCAST [GREY] ... ENDPRESS", summary="a message to everyone in the game")
def broadcast_command(ctx: Context, cmd: Command) -> None:
    _send(ctx, cmd, broadcast_command=True)


Setting = Callable[[Context, Game], list[Event]]


def _setting(words: str, summary: str, change: Setting, done: str,
             aliases: tuple[tuple[str, ...], ...] = ()) -> None:
    def handler(ctx: Context, cmd: Command) -> None:
        if cmd.args:
            raise CommandError(f"{words} takes nothing after it.")
        identity = ctx.signed_on
        game = lock_game(ctx.session, identity.game_id)
        ctx.outgoing.extend(outgoing_for(change(ctx, game), ctx.config.judge.name))
        ctx.answer(cmd.line_no, cmd.text, done.format(game=game.name))
    handler.__name__ = words.lower().replace(" ", "_") + "_command"
    command(*words.split(), roles=Role.MASTER, states=NOT_OVER, syntax=words, summary=summary,
            aliases=aliases)(handler)


_setting("SET GREY", "allow grey press (the default)",
         lambda ctx, g: set_grey_press(ctx.session, g, True),
         "Grey press is now allowed in {game}; the players are told.")
_setting("SET NOGREY", "refuse grey press",
         lambda ctx, g: set_grey_press(ctx.session, g, False),
         "Grey press is now refused in {game}; the players are told.",
         aliases=(("SET", "NO", "GREY"),))
_setting("SET OBSERVER PRESS", "let observers broadcast",
         lambda ctx, g: set_observer_press(ctx.session, g, True),
         "Observers may now broadcast in {game}; everyone is told.")
_setting("SET NO OBSERVER PRESS", "observers write only to the master (the default)",
         lambda ctx, g: set_observer_press(ctx.session, g, False),
         "Observers may no longer broadcast in {game}; everyone is told.",
         aliases=(("SET", "NOOBSERVER", "PRESS"),))


def reader_of(ctx: Context, game: Game) -> Viewer:
    """Who reads ``game``'s archive: the mail's SIGNON if it is for this game, else nobody."""
    identity: Identity | None = ctx.identity
    if identity is None or identity.game_id != game.id:
        return Viewer()
    if identity.role & Role.MASTER:
        return Viewer("master", seat_id=identity.seat_id)
    if identity.role & Role.OBSERVER:
        return Viewer("observer", seat_id=identity.seat_id)
    return Viewer("power", power=identity.power, seat_id=identity.seat_id)


def press_for_history(ctx: Context, game: Game, phase: str | None = None
                      ) -> dict[str, list[dict]]:
    """Phase → the press of that phase the mail's reader may see, ready for the template
    (phases in the order their first press was sent)."""
    by_phase: dict[str, list[dict]] = {}
    for p in visible_press(ctx.session, game, reader_of(ctx, game)):
        if phase is not None and p.phase != phase:
            continue
        title = (f"{kind_label(p.broadcast, p.grey, p.sender is not None)} from "
                 f"{sender_label(p.sender)} to "
                 f"{recipients_label(p.powers, p.to_master, p.broadcast, game.name)}")
        by_phase.setdefault(p.phase, []).append(
            dict(title=title, when=ctx.when(p.sent_at), body=p.body))
    return by_phase
