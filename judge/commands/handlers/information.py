"""Commands anyone may send without signing on: HELP, GET, VERSION, LIST, SIGNOFF.

LIST after a SIGNON describes the signed-on game, with the power's own orders."""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.identity import Identity
from sqlalchemy import select

from judge.commands.parse import Command, trailing_option
from judge.commands.prepare import with_privacy

from judge.commands.registry import Role, command, positions
from judge.service.clock import granted_absences as away
from judge.service.clock import game_clock as clock
from judge.service.clock import moments
from judge.service.access.disclosure import addresses_shown, setting_name
from judge.service.failing_addresses import failing_seats
from judge.service.formal.games import list_facts
from judge.service.games import dummy_seats, find_game, rules_of, seats, variant_title
from judge.service.access.privacy import is_private, may_see, require_sight
from judge.store.models import Game, GameState, Seat
from judge.basics.resources import templates_dir


def help_topics() -> list[str]:
    return sorted(p.stem.upper() for p in (templates_dir() / "help").glob("*.txt")
                  if p.stem != "index")


@command("HELP", syntax="HELP", informational=True,
         summary="how to use the judge, and the list of help topics")
def help_command(ctx: Context, cmd: Command) -> None:
    ctx.answer(cmd.line_no, cmd.text,
               ctx.render("help/index.txt", topics=help_topics(), **ctx.template_vars()))


@command("GET", syntax="GET <topic>", informational=True,
         summary="a help text: INFO, COMMANDS, ORDERS, DRAWS, RULES …")
def get_command(ctx: Context, cmd: Command) -> None:
    topics = help_topics()
    if len(cmd.args) != 1:
        raise CommandError(f"GET needs one topic: {', '.join(topics)}.")
    topic = cmd.args[0].upper()
    if topic not in topics:
        raise CommandError(f'no help topic "{cmd.args[0]}". Topics: {", ".join(topics)}.')
    ctx.answer(cmd.line_no, cmd.text,
               ctx.render(f"help/{topic.lower()}.txt", topics=topics, **ctx.template_vars()))


@command("VERSION", syntax="VERSION", informational=True, summary="the judge's version")
def version_command(ctx: Context, cmd: Command) -> None:
    v = ctx.template_vars()
    ctx.answer(cmd.line_no, cmd.text, f"{v['judge_name']} is judge version {v['version']}.")


@command("SIGNOFF", syntax="SIGNOFF", summary="stop reading this mail here", stops_reading=True)
def signoff_command(ctx: Context, cmd: Command) -> None:
    ctx.answer(cmd.line_no, cmd.text, "Signed off; the rest of the mail was not read.")


@command("LIST", syntax="LIST [<game> [PRIVACY <privacy password>]]", informational=True,
         secrets=positions(privacy=1), prepare=with_privacy(),
         summary="the games on this judge, or one game")
def list_command(ctx: Context, cmd: Command) -> None:
    identity = ctx.identity
    signed_on_to = identity.game_id if identity is not None else None
    args, privacy = trailing_option(cmd.args, "PRIVACY", 1)
    if len(args) > 1:
        raise CommandError("LIST takes at most a game name (and, for a private game, PRIVACY"
                           " and its privacy password).")
    if args or identity is not None:
        found = (find_game(ctx.session, args[0]) if args or identity is None
                 else ctx.session.get(Game, identity.game_id))
        assert found is not None  # a signed-on mail's game exists
        game = found
        require_sight(ctx.session, game, ctx.now, password=privacy, signed_on_to=signed_on_to,
                      sender=ctx.mail.sender,
                      what=f"LIST {game.name} PRIVACY <privacy password>")
        mine = identity if identity is not None and identity.game_id == game.id else None
        from judge.service.access.passes import link_query
        seat = ctx.session.get(Seat, mine.seat_id) if mine is not None else None
        ctx.answer(cmd.line_no, cmd.text,
                   ctx.render("game/list_game.txt", **describe_game(ctx, game, mine),
                              web_code=link_query(game, seat, ctx.now),
                              **ctx.template_vars()))
        return
    # private games are listed only to a mail signed on to them
    games = [g for g in ctx.session.scalars(select(Game).order_by(Game.name_key))
             if may_see(g, signed_on_to=signed_on_to)]
    ctx.answer(cmd.line_no, cmd.text, ctx.render("list.txt", games=games, **ctx.template_vars()))


def describe_game(ctx: Context, game: Game, identity: Identity | None) -> dict:
    """What LIST <game> shows; the master also sees who has ordered, and the addresses
    (everyone does where the master made them public: judge.service.access.disclosure)."""
    from judge.service.orders import order_set, owed, stored_orders
    from judge.service.processing import board_units, overdue_powers, position_of
    is_master = bool(identity is not None and identity.role & Role.MASTER)
    shown = addresses_shown(game, master=is_master)
    pos = position_of(game)
    counts = pos.center_counts()
    players = {s.power: s for s in seats(ctx.session, game, "power") if s.power}
    dummies = {s.power for s in dummy_seats(ctx.session, game)}
    build_any = "BUILD_ANY" in rules_of(game)
    rows = []
    for power in pos.map.powers:
        seat = players.get(power)
        status = ("dummy" if power in dummies else "civil disorder") if seat is None \
            else "playing"
        if seat is not None and game.state == GameState.ACTIVE and owed(pos, power, build_any=build_any):
            done = order_set(pos, power, stored_orders(seat), build_any=build_any).complete
            if is_master or (identity is not None and identity.power == power):
                status = "orders complete" if done else "orders missing"
            if seat.wait and (is_master or (identity is not None and identity.power == power)):
                status += ", waiting"
        rows.append((power.capitalize(), counts[power], len(pos.units_of(power)), status,
                     seat.address if (seat and shown) else ""))
    forming = [s.address if shown else "" for s in seats(ctx.session, game, "power")]
    # the master sees who observes (to take them out by address, EJECT)
    observers = [(s.address, s.confirmed_at is not None)
                 for s in seats(ctx.session, game, "observer")] if is_master else None
    # a power still in the game that nobody plays (and no dummy): a seat a player may take
    alive = set(pos.survivors())
    open_seats = [p.capitalize() for p in pos.map.powers
                  if p not in players and p not in dummies and p in alive]
    mine_orders = None
    if identity is not None and identity.power is not None and identity.power in players:
        power = identity.power
        mine_orders = order_set(pos, power, stored_orders(players[power]), build_any=build_any)
    formal = list_facts(game)
    draws = draw_facts(ctx, game, identity, is_master)
    waiting_for = (overdue_powers(ctx.session, game, pos)
                   if game.state == GameState.ACTIVE and game.clock_stage == clock.WAITING else [])
    if formal and formal["winners"]:
        draws["ended"] = ""  # a shared victory on points is no agreed draw: the formal part says it
    return dict(game=game, variant=variant_title(game), rows=rows, forming=forming,
                deadline=ctx.when(clock.deadline_of(game)) if game.state == GameState.ACTIVE else "",
                clock=clock.clock_setting(game), max_absence=game.max_absence_days,
                absences=[(_absent(who, shown), ctx.when(start), ctx.when(end))
                          for who, start, end in away.current(ctx.session, game, ctx.now)],
                addresses=setting_name(game), observers=observers,
                npowers=len(pos.map.powers), mine=mine_orders, formal=formal, **draws,
                private=is_private(game), open_seats=open_seats,
                units=board_units(pos) if game.state != GameState.FORMING else [],
                press=dict(rules=sorted(rules_of(game) & {"NO_PRESS", "PUBLIC_PRESS"}),
                           grey=game.grey_press, observers=game.observer_press),
                civil_disorder="CIVIL_DISORDER" in rules_of(game),
                cd_dummies="CD_DUMMIES" in rules_of(game),
                waiting_for=[p.capitalize() for p in waiting_for],
                failing=failing_seats(ctx.session, game) if is_master else [],
                durations=[moments.format_duration(x) for x in (
                    game.movement_seconds, game.retreat_seconds, game.adjustment_seconds,
                    game.grace_seconds)])


def _absent(who: str, shown: bool) -> str:
    """Who is away, as LIST names them: the power, or (no power yet) the player's address to
    those who may see it."""
    if "@" not in who:
        return who.capitalize()
    return who if shown else "A player"


def draw_facts(ctx: Context, game: Game, identity: Identity | None, is_master: bool) -> dict:
    """How the game votes, how it ended, and the votes LIST may show: a player's own, or
    (master) everybody's -- votes are secret."""
    from judge.service.draws import mode_name, votes_shown
    from judge.service.game_results import result_of
    power = identity.power if identity is not None else None
    votes = (votes_shown(ctx.session, game, power, is_master)
             if is_master or power is not None else [])
    result = result_of(ctx.session, game)
    ended = ""
    if result is not None and result.result in ("draw", "concession"):
        members = ", ".join(p.capitalize() for p in result.members.split())
        ended = (f"Ended in {result.phase} in a draw of {members}." if result.result == "draw"
                 else f"Ended in {result.phase} in a concession to {members}.")
    return dict(draw_mode=mode_name(game), votes=votes, voting=is_master or power is not None,
                ended=ended)
