"""Commands for the game master (after SIGNON M<game>): START, PAUSE, RESUME (also of a game
ended by a draw or concession), TERMINATE, PROCESS, ROLLBACK, ROLLFORWARD, SET RULES, BECOME,
DUMMY, REPLACE, EJECT (of a player or of observers), POSITION, SET PRIVACY, SET ADDRESSES.
(SET DEADLINE, SET GRACE, SET CLOCK and the absences are in judge.commands.handlers.timing.)

Every command after which the set of orders may be complete (RESUME, DUMMY, REPLACE, EJECT,
SET RULES, as orders, SET NOWAIT and RESIGN elsewhere) asks for the ``ready`` finisher, which
processes the phase at once when nothing holds it (judge.commands.finishers)."""

from __future__ import annotations

from typing import Callable

from sqlalchemy.orm import Session

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.handlers.games import solitaire_privacy_text
from judge.commands.parse import Command
from judge.commands.registry import Role, command, positions
from judge.basics.addresses import AddressError, checked_address
from judge.mail.writing.game_mail import outgoing_for
from judge.service.draws import resume_ended
from judge.service.events import Change, Event
from judge.service import game_rules
from judge.service.games import (dummy_power, dummy_seats, leave, lock_game, make_dummy, set_addresses,
                                 parameter_change, pause_game, power_named, power_seat,
                                 replace_player, seats, start_game,
                                 terminate_game)
from judge.service.errors import CountedRefusal
from judge.service.faults import ProcessingFault, guarded, record_fault
from judge.service.membership import remove_observers
from judge.service.processing import process_phase, resume_game, rollback, rollforward, set_position
from judge.service.access.privacy import set_privacy
from judge.store.models import Game, GameState

RUNNING = frozenset({GameState.ACTIVE, GameState.PAUSED})
REPAIRABLE = frozenset({GameState.ACTIVE, GameState.PAUSED, GameState.FINISHED})


def _game(ctx: Context) -> Game:
    identity = ctx.signed_on
    return lock_game(ctx.session, identity.game_id)


def _announce(ctx: Context, cmd: Command, events: list[Event], text: str) -> None:
    ctx.outgoing.extend(outgoing_for(events, ctx.config.judge.name))
    ctx.answer(cmd.line_no, cmd.text, text)


def _process_now(ctx: Context, game: Game) -> list[Event]:
    try:
        return guarded(ctx.session, game, ctx.now, f"processing {game.phase} (master's PROCESS)",
                       lambda: process_phase(ctx.session, game, ctx.now, "master"))
    except ProcessingFault as fault:
        what, phase, detail = f"processing {game.phase} (master's PROCESS)", game.phase, fault.detail

        def record(kept: Session) -> None:  # after the refused command is undone
            notices = record_fault(kept, game.id, ctx.now, what, detail)
            ctx.outgoing.extend(outgoing_for(notices, ctx.config.judge.name))
            return None

        raise CountedRefusal("process_fault", count=record, phase=phase,
                             detail=detail) from None


def _simple(name: str, states: frozenset[str] | None, summary: str,
            act: Callable[[Context, Game], list[Event]], done: str,
            may_complete: bool = False) -> None:
    """A master command without arguments; ``may_complete``: afterwards the phase may be
    ready to process (every order in, nothing holding it)."""
    def handler(ctx: Context, cmd: Command) -> None:
        if cmd.args:
            raise CommandError(f"{name} takes no arguments.")
        game = _game(ctx)
        events = act(ctx, game)
        _announce(ctx, cmd, events, done.format(game=game))
        if may_complete:
            ctx.finish_with("ready", game.id)
    handler.__name__ = f"{name.lower()}_command"
    command(name, roles=Role.MASTER, states=states, syntax=name, summary=summary)(handler)


_simple("START", frozenset({GameState.FORMING}), "start a game that has players",
        lambda ctx, g: start_game(ctx.session, g, ctx.now), "{game.name} has started.")
_simple("PAUSE", frozenset({GameState.ACTIVE}), "stop the clock: no deadlines run",
        lambda ctx, g: pause_game(ctx.session, g), "{game.name} is paused.")
_simple("RESUME", frozenset({GameState.PAUSED, GameState.FINISHED}),
        "restart a paused game, or one ended by a draw or concession",
        lambda ctx, g: (resume_game(ctx.session, g, ctx.now) if g.state == GameState.PAUSED
                        else resume_ended(ctx.session, g, ctx.now)),
        "{game.name} is running again, at {game.phase}.", may_complete=True)
_simple("TERMINATE", None, "end the game now",
        lambda ctx, g: terminate_game(ctx.session, g, ctx.now), "{game.name} is terminated.")


@command("PROCESS", roles=Role.MASTER, states=RUNNING, syntax="PROCESS",
         summary="process the current phase now")
def process_command(ctx: Context, cmd: Command) -> None:
    if cmd.args:
        raise CommandError("PROCESS takes no arguments.")
    game = _game(ctx)
    played = game.phase
    events = _process_now(ctx, game)
    # worded as when the last orders complete the phase (judge.commands.finishers)
    _announce(ctx, cmd, events, ctx.render("game/processed.txt", played=played, game=game))


_simple("ROLLFORWARD", REPAIRABLE, "redo a phase that was rolled back",
        lambda ctx, g: rollforward(ctx.session, g, ctx.now),
        "Rolled forward; {game.name} is at {game.phase}.")


@command("ROLLBACK", roles=Role.MASTER, states=REPAIRABLE, syntax="ROLLBACK [<phase>]",
         summary="undo the last phase, or back to <phase>",
         args=(0, 1), wrong_args="ROLLBACK takes at most a phase, e.g. ROLLBACK S1902M.")
def rollback_command(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    events = rollback(ctx.session, game, ctx.now, cmd.args[0] if cmd.args else None)
    _announce(ctx, cmd, events, f"Rolled back; {game.name} is at {game.phase} again.")


@command("BECOME", roles=Role.MASTER, states=RUNNING, syntax="BECOME <power>",
         summary="act as that power for the rest of this mail",
         args=(1, 1), wrong_args="BECOME needs a power.")
def become_command(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    power = power_named(game, cmd.args[0])
    seat = power_seat(ctx.session, game, power) or next(
        (s for s in dummy_seats(ctx.session, game) if s.power == power), None)
    if seat is None:
        # Nobody plays it: it becomes a dummy, ordered by the master.
        seat = make_dummy(ctx.session, game, power, ctx.now)
    identity = ctx.signed_on
    identity.role = Role.MASTER | Role.POWER
    identity.power, identity.power_seat_id = power, seat.id
    ctx.answer(cmd.line_no, cmd.text, f"You now act as {power.capitalize()} in {game.name}.")


@command("EJECT", roles=Role.MASTER, syntax="EJECT <power>|<address>|OBSERVERS",
         summary="remove the player of a power, the player or observer at an address, or"
                 " every observer",
         args=(1, 1), wrong_args="EJECT needs a power, an address or OBSERVERS.")
def eject_command(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    target = cmd.args[0]
    if target.upper() == "OBSERVERS":
        events = remove_observers(ctx.session, game, "ejected")
        _announce(ctx, cmd, events, ctx.render("game/ejected.txt", game=game.name,
                                               observers=len(events)))
        return
    if "@" in target:
        found = [s for s in seats(ctx.session, game, "power") if s.address == target.lower()]
        if not found:
            events = remove_observers(ctx.session, game, "ejected", address=target.lower())
            if events:
                _announce(ctx, cmd, events, ctx.render("game/ejected.txt", game=game.name,
                                                       observer=target.lower()))
                return
    else:
        found = [s for s in [power_seat(ctx.session, game, power_named(game, target))] if s]
    if not found:
        raise CommandError(f"nobody like that plays in {game.name}.")
    events = leave(ctx.session, game, found[0], "ejected")
    _announce(ctx, cmd, events, f"Ejected {found[0].power or found[0].address}. They have"
              " been told, in a mail of their own.")
    # the power no longer owes orders: the others' may now complete the phase
    ctx.finish_with("ready", game.id)


@command("POSITION", roles=Role.MASTER, states=frozenset({GameState.FORMING, GameState.PAUSED}),
         syntax="POSITION [<phase>] ... ENDPOSITION", block_end="ENDPOSITION",
         summary="set up the board by hand (forming or paused games)",
         args=(0, 1), wrong_args="POSITION takes at most a phase, e.g. POSITION F1905M.")
def position_command(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    events = set_position(ctx.session, game, cmd.args[0] if cmd.args else None,
                          list(cmd.block), ctx.now)
    _announce(ctx, cmd, events, f"The board of {game.name} is set at {game.phase}.")


@command("DUMMY", roles=Role.MASTER, states=RUNNING, syntax="DUMMY <power>",
         summary="make a power a dummy: no player; you order it with BECOME",
         args=(1, 1), wrong_args="DUMMY needs a power.")
def dummy_command(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    power = power_named(game, cmd.args[0])
    events = dummy_power(ctx.session, game, power, ctx.now)
    cd = ("it is processed without waiting for it (CD_DUMMIES)"
          if game_rules.has(game, "CD_DUMMIES") else
          "the game waits for its orders (BECOME it to order), and without CD_DUMMIES they"
          " are not filled in even when the grace period ends")
    _announce(ctx, cmd, events, f"{power.capitalize()} is now a dummy; {cd}.")
    ctx.finish_with("ready", game.id)


@command("REPLACE", roles=Role.MASTER, states=RUNNING,
         syntax="REPLACE <power> <address> <password>", secrets=positions(2, rest=True),
         summary="give a power (vacant, a dummy or played) to a new player")
def replace_command(ctx: Context, cmd: Command) -> None:
    if len(cmd.args) != 3 or "@" not in cmd.args[1]:
        raise CommandError("REPLACE needs a power, the new player's address and a password"
                           " for them, e.g. REPLACE France new@example.org secret.")
    try:
        address = checked_address(cmd.args[1])
    except AddressError as exc:
        raise CommandError(f"{cmd.args[1]} is not an address the judge can write to"
                           f" ({exc}).") from None
    game = _game(ctx)
    power = power_named(game, cmd.args[0])
    seat, events = replace_player(ctx.session, game, power, address, cmd.args[2], ctx.now,
                                  ctx.config.limits.confirm_days)
    _announce(ctx, cmd, events, ctx.render(
        "game/replaced.txt", power=power, address=address, game=game.name,
        waiting=seat.confirmed_at is None))
    # a player who asked to wait has left: the orders may now complete the phase
    ctx.finish_with("ready", game.id)


@command("SET", "RULES", roles=Role.MASTER, syntax="SET RULES <RULE> ... | NONE",
         summary="the game's rules (GET RULES lists them); once running only some may change")
def set_rules(ctx: Context, cmd: Command) -> None:
    if not cmd.args:
        raise CommandError("SET RULES needs the rules (SET RULES NONE for none); GET RULES"
                           " lists them.")
    game = _game(ctx)
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise CommandError(f"{game.name} is over.")
    before = set(game.rules.split())
    rules = game_rules.change(game, [a.upper() for a in cmd.args], ctx.now)
    text = f"The rules of {game.name} are now: {' '.join(rules.names) or 'none'}."
    if rules.names:
        text += "\n" + game_rules.explain(rules)
    events: list[Event] = []
    if "NO_OBSERVATIONS" in set(rules.names) - before:
        # before the announcement: the observers are told once, in a mail of their own
        events += remove_observers(ctx.session, game, "closed")
        if events:
            text += "\n" + ctx.render("game/ejected.txt", game=game.name,
                                      observers=len(events), closed=True).rstrip("\n")
    if before ^ set(rules.names):
        events.append(parameter_change(ctx.session, game,
                                       Change("rules", names=tuple(rules.names))))
    if game.state == GameState.FORMING and "SOLITAIRE" in rules.names:
        text += "\n" + solitaire_privacy_text(game).rstrip("\n")
        events += start_game(ctx.session, game, ctx.now)
        text += (f"\nSOLITAIRE: {game.name} has started; every power nobody plays is a dummy"
                 " for you to order.")
    _announce(ctx, cmd, events, text)
    ctx.finish_with("ready", game.id)


@command("SET", "PRIVACY", roles=Role.MASTER, syntax="SET PRIVACY <privacy password>",
         secrets=positions(0, rest=True),
         summary="make the game private: strangers need this password to see or join it",
         args=(1, 1), wrong_args="SET PRIVACY needs one word, the privacy password (SET NOPRIVACY"
                           " makes the game public again).")
def set_privacy_command(ctx: Context, cmd: Command) -> None:
    game = _game(ctx)
    set_privacy(game, cmd.args[0])
    ctx.answer(cmd.line_no, cmd.text, f"{game.name} is private: whoever is not signed on to it"
               " must give this privacy password to see it (LIST, HISTORY, SUMMARY), observe"
               " it or join it. Tell it to those you want in; the judge never mails it.")


@command("SET", "ADDRESSES", roles=Role.MASTER,
         states=frozenset({GameState.FORMING, GameState.ACTIVE, GameState.PAUSED}),
         syntax="SET ADDRESSES PUBLIC|PRIVATE", one_of=("PUBLIC", "PRIVATE"),
         wrong_args="SET ADDRESSES PUBLIC (everyone who may see the game sees who plays which"
                    " power) or SET ADDRESSES PRIVATE (only you do).",
         summary="show the players' addresses to everyone who may see the game, or only to"
                 " you (the default)")
def set_addresses_command(ctx: Context, cmd: Command) -> None:
    public = cmd.args[0].upper() == "PUBLIC"
    game = _game(ctx)
    events = set_addresses(ctx.session, game, public)
    _announce(ctx, cmd, events,
              f"The players' addresses in {game.name} are now public: LIST shows them to"
              " everyone who may see the game; the players are told." if public else
              f"The players' addresses in {game.name} are now private: only you see them;"
              " the players are told.")


@command("SET", "NOPRIVACY", roles=Role.MASTER, syntax="SET NOPRIVACY",
         summary="make a private game public again", aliases=(("SET", "NO", "PRIVACY"),))
def set_noprivacy_command(ctx: Context, cmd: Command) -> None:
    if cmd.args:
        raise CommandError("SET NOPRIVACY takes no arguments.")
    game = _game(ctx)
    set_privacy(game, None)
    ctx.answer(cmd.line_no, cmd.text, f"{game.name} is public: anyone may see it, observe it"
               " or join it.")
