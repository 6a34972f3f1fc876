"""Draw and concession commands: SET DRAW / SET NODRAW, SET CONCEDE / SET NOCONCEDE,
PROPOSE DIAS / PROPOSE CONCEDE, VOTE YES|NO|SOLO|LOSS|<n> (by a survivor's player), and the
master's SET DIAS / SET NODIAS.

The rules live in :mod:`judge.service.draws`; here a vote is refused, clearly, to anyone who
is not the player of a power: observers and the master (even after BECOME) do not vote.
"""

from __future__ import annotations

from typing import Callable

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.parse import Command
from judge.commands.registry import Role, command
from judge.mail.writing.game_mail import outgoing_for
from judge.service import draws
from judge.service.draws import VoteOutcome
from judge.service.games import lock_game
from judge.store.models import Game, Seat, SeatStatus

VoteAction = Callable[[Context, Game, str, Command], VoteOutcome]


def _voter(ctx: Context, name: str) -> tuple[Game, str]:
    identity = ctx.signed_on
    if identity.role & Role.MASTER:
        raise CommandError(f"only the surviving powers vote on draws and concessions; the "
                           f"master of {identity.game_name} does not vote, even after BECOME "
                           f"(SET DIAS and SET NODIAS choose how the game votes).")
    if identity.role & Role.OBSERVER or identity.power is None:
        raise CommandError(f"only the surviving powers vote on draws and concessions; "
                           f"{identity.describe()} cannot send {name}.")
    seat = ctx.session.get(Seat, identity.power_seat_id) if identity.power_seat_id else None
    if seat is None or seat.status != SeatStatus.ACTIVE:
        raise CommandError(f"you no longer play {identity.power.capitalize()}.")
    return lock_game(ctx.session, identity.game_id), identity.power


def _answer(ctx: Context, cmd: Command, cast: VoteOutcome) -> None:
    """The vote's announcements are queued, and the reply words what it did."""
    ctx.outgoing.extend(outgoing_for(cast.events, ctx.config.judge.name))
    ctx.answer(cmd.line_no, cmd.text,
               ctx.render(f"votes/{cast.kind}.txt", ended=cast.ended, **cast.facts))


def _vote_command(name: str, syntax: str, summary: str, act: VoteAction,
                  args: tuple[int, int | None] | None = None, wrong_args: str = "") -> None:
    def handler(ctx: Context, cmd: Command) -> None:
        game, power = _voter(ctx, name)
        cast = act(ctx, game, power, cmd)
        _answer(ctx, cmd, cast)
    handler.__name__ = name.lower().replace(" ", "_") + "_command"
    command(*name.split(), roles=Role.SIGNED_ON, syntax=syntax, summary=summary, args=args,
            wrong_args=wrong_args)(handler)


def _takes_nothing(name: str) -> str:
    return f"{name} takes nothing after it."


def _nodraw(ctx: Context, game: Game, power: str, cmd: Command) -> VoteOutcome:
    return draws.set_nodraw(ctx.session, game, power, ctx.now)


def _noconcede(ctx: Context, game: Game, power: str, cmd: Command) -> VoteOutcome:
    return draws.set_noconcede(ctx.session, game, power, ctx.now)


def _vote(ctx: Context, game: Game, power: str, cmd: Command) -> VoteOutcome:
    return draws.vote(ctx.session, game, power, cmd.args[0], ctx.now)


_vote_command("SET DRAW", "SET DRAW [<powers>]",
              "vote for a draw (NoDIAS: of these powers; GET DRAWS)",
              lambda ctx, g, p, cmd: draws.set_draw(ctx.session, g, p, cmd.rest, ctx.now))
_vote_command("SET NODRAW", "SET NODRAW", "withdraw your draw vote", _nodraw,
              (0, 0), _takes_nothing("SET NODRAW"))
_vote_command("SET CONCEDE", "SET CONCEDE <power>", "concede the game to that power",
              lambda ctx, g, p, cmd: draws.set_concede(ctx.session, g, p, cmd.rest, ctx.now))
_vote_command("SET NOCONCEDE", "SET NOCONCEDE", "withdraw your concession", _noconcede,
              (0, 0), _takes_nothing("SET NOCONCEDE"))
_vote_command("PROPOSE", "PROPOSE DIAS | PROPOSE CONCEDE <power>",
              "propose a draw or a concession (PROPOSE_DIAS games)",
              lambda ctx, g, p, cmd: draws.propose(ctx.session, g, p, cmd.rest, ctx.now))
_vote_command("VOTE", "VOTE YES|NO|SOLO|LOSS|<n>",
              "answer a proposal (PROPOSE_DIAS) or vote on the ending (NO_DIAS)", _vote,
              (1, 1), "VOTE takes one word: YES or NO (PROPOSE_DIAS games), SOLO, LOSS or a "
              "number (NO_DIAS games).")


def _set_mode(nodias: bool) -> None:
    name = "SET NODIAS" if nodias else "SET DIAS"

    def handler(ctx: Context, cmd: Command) -> None:
        identity = ctx.signed_on
        game = lock_game(ctx.session, identity.game_id)
        _answer(ctx, cmd, draws.set_nodias(ctx.session, game, nodias))
    handler.__name__ = name.lower().replace(" ", "_") + "_command"
    summary = ("draws may leave survivors out (clears all votes)" if nodias
               else "every draw includes all survivors (clears all votes)")
    command(*name.split(), roles=Role.MASTER, syntax=name, summary=summary, args=(0, 0),
            wrong_args=_takes_nothing(name))(handler)


_set_mode(True)
_set_mode(False)
