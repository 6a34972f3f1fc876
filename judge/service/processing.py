"""Phase processing: adjudicate the current phase, keep a snapshot, move the game on.

Processing is conditional on the stored phase and version, so a phase is never processed
twice even if a mail and the scheduler both decide it is due.  Snapshots (board before,
orders, results, board after) make HISTORY, ROLLBACK and ROLLFORWARD possible.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from judge.core import Convoy, Map, PhaseResult, Position, Support, adjudicate, load_map
from judge.core.order_results import describe
from judge.core.victory import winners, year_end_winners
from judge.pictures.document import results_by_power
from judge.service import draws, game_rules
from judge.service.clock import game_clock as clock
from judge.service.formal import games as formal_games
from judge.service.formal import state as formal_state
from judge.service.errors import GameError
from judge.service.events import Event, GameEnded, GameResumed, PhaseProcessed
from judge.service.games import (audience, dummy_seats, notice, ordering_seats, seats,
                                 variant_title)
from judge.service.orders import order_set, orders_for_adjudication, owed, stored_orders
from judge.service.positions import (dump_position, final_centres, load_position,
                                     parse_position_block)
from judge.service.game_results import clear_result, eliminated_between, record_result
from judge.store.db import rows_changed
from judge.store.models import Game, GameState, PhaseSnapshot, Seat

SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
TYPES = {"M": "Movement", "R": "Retreat", "A": "Adjustment"}


def phase_title(phase: str) -> str:
    return f"{SEASONS[phase[0]]} of {phase[1:5]}. {TYPES[phase[-1]]}"


def position_of(game: Game) -> Position:
    return load_position(game.variant, game.position)


def _late(game: Game, pos: Position, power_seats: list[Seat]) -> list[str]:
    build_any = game_rules.has(game, "BUILD_ANY")
    late = [s.power for s in power_seats if s.power and owed(pos, s.power, build_any=build_any)
            and not order_set(pos, s.power, stored_orders(s), build_any=build_any).complete]
    order = list(pos.map.powers)
    return sorted(late, key=order.index)


def waiting_powers(session: Session, game: Game, pos: Position | None = None) -> list[str]:
    """Powers with a player that still owe orders this phase (map order)."""
    return _late(game, pos or position_of(game), seats(session, game, "power"))


def owing_powers(session: Session, game: Game, pos: Position | None = None) -> list[str]:
    """Powers the game waits for now: players without complete orders, and dummies without
    them unless CD_DUMMIES is in force (map order)."""
    players = [s for s in seats(session, game, "power") if s.power]
    dummies = [] if game_rules.has(game, "CD_DUMMIES") else dummy_seats(session, game)
    return _late(game, pos or position_of(game), players + dummies)


def overdue_powers(session: Session, game: Game, pos: Position | None = None) -> list[str]:
    """Powers the game goes on waiting for once the grace is over: their missing orders are
    not filled in.  CIVIL_DISORDER fills in everybody's, CD_DUMMIES the dummies' (DPjudge's
    rules: "CIVIL_DISORDER will default the orders of all powers (whether dummy or not),
    while CD_DUMMIES will default the orders only of the dummy powers")."""
    players = ([] if game_rules.has(game, "CIVIL_DISORDER")
               else [s for s in seats(session, game, "power") if s.power])
    dummies = [] if game_rules.has(game, "CD_DUMMIES") else dummy_seats(session, game)
    return _late(game, pos or position_of(game), players + dummies)


def is_ready(session: Session, game: Game) -> bool:
    """Every power owing orders has given them all, and nobody asked to wait.

    Dummies count unless CD_DUMMIES is in force: without it the game waits for the master to
    order them.  Vacant powers (nobody joined, or the player left) never hold the game up.
    ALWAYS_WAIT games wait for the deadline or the master.  Once the grace is over and the
    game waits for late powers (clock stage WAITING), the deadline has passed: it is ready
    as soon as no power it waits for is missing orders, whatever WAIT or ALWAYS_WAIT say.
    """
    if game.state != GameState.ACTIVE:
        return False
    if game.clock_stage == clock.WAITING:
        return not overdue_powers(session, game)
    if game_rules.has(game, "ALWAYS_WAIT"):
        return False
    players = [s for s in seats(session, game, "power") if s.power]
    dummies = [] if game_rules.has(game, "CD_DUMMIES") else dummy_seats(session, game)
    # with nobody left playing (all resigned or ejected) only the deadline moves the game on
    if not (players or dummies) or any(s.wait for s in players):
        return False
    return not _late(game, position_of(game), players + dummies)


def resume_game(session: Session, game: Game, now: datetime) -> list[Event]:
    if game.state != GameState.PAUSED:
        raise GameError("not_paused", game=game.name, state=game.state)
    game.state = GameState.ACTIVE
    clock.start_clock(game, now)
    return [GameResumed(game=game.name, variant=variant_title(game), to=audience(session, game),
                        phase=game.phase, deadline=clock.deadline_of(game),
                        ready=is_ready(session, game))]


def process_if_ready(session: Session, game: Game, now: datetime) -> list[Event]:
    if is_ready(session, game):
        return process_phase(session, game, now, "orders complete")
    return []


def _target_unit(pos: Position, order: Any) -> Any:
    if isinstance(order, (Support, Convoy)):
        return pos.unit_at(order.target.province)
    return None


def results_facts(m: Map, before: Position, res: PhaseResult,
                  won: tuple[str, ...] = ()) -> dict[str, Any]:
    """What the results mail says, as plain JSON-able values (also kept in the snapshot): data
    only, worded by templates/game/results.txt (and HISTORY) as the classic Judge words it.

    ``lines``: [power, the order described, [marks]] per order, in power order; the marks are
    the result codes (judge.core.order_results) plus ``default`` for an order the judge filled in, or
    ``civil_disorder`` when the power sent no orders at all (``civil_disorder`` lists those).
    ``retreats``: [adjective, kind, location, [retreat locations]] per dislodged unit.
    ``units``: [power, kind, location, dislodged] for every unit on the board after the phase.
    """
    rank = {p: i for i, p in enumerate(m.powers)}
    ordered = sorted(res.results, key=lambda r: rank.get(r.power, len(rank)))
    by_power: dict[str, list[bool]] = {}
    for r in ordered:
        by_power.setdefault(r.power, []).append(r.default)
    idle = [p for p, defaults in by_power.items() if all(defaults)]
    lines = []
    for r in ordered:
        marks = r.marks()
        if r.default:
            marks.append("civil_disorder" if r.power in idle else "default")
        lines.append([r.power.capitalize(),
                      describe(m, r.power, r.unit, r.order, r.text,
                               _target_unit(before, r.order)), marks])
    retreats = [[m.powers[d.unit.power].adjective, d.unit.kind,
                 m.location_text(d.unit.location), [m.location_text(x) for x in d.retreats]]
                for d in res.dislodged]
    nxt = res.position
    facts: dict[str, Any] = {"phase": str(res.phase), "title": phase_title(str(res.phase)),
                             "lines": lines, "civil_disorder": [p.capitalize() for p in idle],
                             "retreats": retreats, "units": board_units(nxt),
                             "next_phase": str(nxt.phase), "centers": [], "adjustments": []}
    # Ownership changes after the Fall; show it then and after the adjustments.
    if nxt.phase.type == "A" or res.phase.type == "A" or nxt.phase.year != res.phase.year:
        for power in m.powers:
            owned = sorted(nxt.centers.get(power, ()))
            if owned:
                facts["centers"].append([power.capitalize(),
                                         [m.location_text(c) for c in owned]])
    if nxt.phase.type == "A" and not won:  # a won game has no winter to play
        for power in m.powers:
            n_c, n_u = len(nxt.centers.get(power, ())), len(nxt.units_of(power))
            if n_c or n_u:
                facts["adjustments"].append([power.capitalize(), n_c, n_u, n_c - n_u])
    facts["winner"] = " and ".join(p.capitalize() for p in won) or None
    # every order and its result, as the map picture of the phase draws them
    facts["order_results"] = results_by_power(res.results)
    # recorded as the phase is processed: the game result reads them from the snapshots
    facts["eliminated"] = eliminated_between(before, nxt)
    return facts


def board_units(pos: Position) -> list[list[Any]]:
    """[power, kind, location (with its coast), dislodged] for every unit of ``pos``, in map
    power order then province order; a dislodged unit awaiting its retreat is listed too."""
    m = pos.map
    rank = {p: i for i, p in enumerate(m.powers)}
    found = [(u, False) for u in pos.units] + [(d.unit, True) for d in pos.dislodged]
    found.sort(key=lambda e: (rank.get(e[0].power, len(rank)), e[0].province, e[1]))
    return [[u.power.capitalize(), u.kind, m.location_text(u.location), dislodged]
            for u, dislodged in found]


def _active_snapshots(session: Session, game: Game) -> list[PhaseSnapshot]:
    return list(session.scalars(select(PhaseSnapshot).where(
        PhaseSnapshot.game_id == game.id, PhaseSnapshot.rolled_back.is_(False))
        .order_by(PhaseSnapshot.seq)))


def process_phase(session: Session, game: Game, now: datetime, reason: str,
                  since: datetime | None = None) -> list[Event]:
    """Adjudicate the current phase with the orders given (defaults for the rest).

    ``since``: when the next phase begins, if not now (the scheduler's: the moment that fell
    due, judge.service.clock.game_clock.phase_start)."""
    if game.state not in (GameState.ACTIVE, GameState.PAUSED):
        raise GameError("nothing_to_process", game=game.name, state=game.state)
    # Votes are evaluated one last time before the phase clears them.
    ended = draws.at_phase_end(session, game, now)
    if ended:
        return ended
    # The conditional bump is the guard: whoever saw this phase and version first wins.
    bumped = rows_changed(session.execute(update(Game).where(
        Game.id == game.id, Game.phase == game.phase, Game.version == game.version)
        .values(version=Game.version + 1)))
    if not bumped:
        raise GameError("moved_on", game=game.name)
    session.refresh(game)
    m = load_map(game.variant)
    before = position_of(game)
    players = ordering_seats(session, game)
    orders = orders_for_adjudication(players)
    # Formal Diplomacy wraps the standard adjudication (void moves, wars, spheres, points)
    formal = (formal_games.adjudicate_phase(game, before, orders)
              if formal_state.is_formal(game) else None)
    res = formal.result if formal else adjudicate(
        before, orders, skip_empty=not game_rules.has(game, "DONT_SKIP_PHASES"),
        build_any=game_rules.has(game, "BUILD_ANY"),
        multiple_orders_hold=game_rules.has(game, "NO_CHECK"),
        # seeded by game and phase: a rolled-back phase processed again removes the same
        random_removals_seed=f"{game.id}:{before.phase}"
        if game_rules.has(game, "CIVIL_DISORDER") else None)
    victors = _winners(game, res.position, before)
    facts = results_facts(m, before, res, victors)
    variant_before = game.variant_state
    if formal:
        facts.update(formal.facts)
        formal_games.apply_phase(game, formal)
    # A phase played after a ROLLBACK starts a new timeline: the undone phases go.
    session.execute(delete(PhaseSnapshot).where(PhaseSnapshot.game_id == game.id,
                                                PhaseSnapshot.rolled_back.is_(True)))
    seq = (session.scalar(select(func.max(PhaseSnapshot.seq))
                          .where(PhaseSnapshot.game_id == game.id)) or 0) + 1
    after = res.position
    facts["number"] = seq  # the classic "(game.001)": results mails in the game's timeline
    session.add(PhaseSnapshot(game_id=game.id, seq=seq, phase=game.phase,
                              position_before=game.position,
                              orders=json.dumps({s.power: stored_orders(s) for s in players
                                                 if s.power}, sort_keys=True),
                              results=json.dumps(facts), position_after=dump_position(after),
                              variant_before=variant_before, variant_after=game.variant_state,
                              processed_at=now, rolled_back=False))
    return _enter(session, game, after, now, reason, processed=facts, before=before,
                  since=since)


def _winners(game: Game, pos: Position, before: Position | None) -> tuple[str, ...]:
    """Who has won on entering ``pos`` (HOLD_WIN and SHARED_VICTORY as DPjudge's rules say)."""
    if formal_state.is_formal(game):
        return ()  # a Formal game is won on points after its last year, never by centres
    needed = game.victory_centers or pos.map.victory_centers
    shared = game_rules.has(game, "SHARED_VICTORY")
    counts = pos.center_counts()
    if not game_rules.has(game, "HOLD_WIN"):
        found = winners(counts, needed, shared=shared)
    # HOLD_WIN looks only at year ends: the centres before them are last year's
    elif before is None or before.phase.season != "F" or pos.phase.season == "F":
        found = ()
    else:
        found = year_end_winners(counts, before.center_counts(), needed, shared=shared,
                                 hold_win=True)
    order = list(pos.map.powers)
    return tuple(sorted(found, key=order.index))


def _enter(session: Session, game: Game, pos: Position, now: datetime, reason: str,
           processed: dict[str, Any] | None, before: Position | None = None,
           since: datetime | None = None) -> list[Event]:
    """Make ``pos`` the game's current position: clear orders, set the clock, check victory."""
    played = game.phase
    game.phase, game.position = str(pos.phase), dump_position(pos)
    for s in ordering_seats(session, game):
        s.orders, s.wait = "{}", False
    draws.clear_votes(session, game)
    found = _winners(game, pos, before)  # none in Formal games: they end on points
    winner = " ".join(found) or None
    ended = formal_games.finish_if_over(session, game, played, pos, now)
    events: list[Event] = []
    base = dict(game=game.name, variant=variant_title(game), to=audience(session, game))
    if winner:
        game.state, game.winner = GameState.FINISHED, winner
        clock.stop_clock(game)
        record_result(session, game, "solo" if len(found) == 1 else "draw", found, played,
                      pos, now)
    elif game.state == GameState.ACTIVE:
        clock.start_clock(game, now, since=since)
    if processed is not None:
        events.append(PhaseProcessed(**base, phase=played, facts=processed,  # type: ignore[arg-type]
                                     next_phase=None if winner or ended else game.phase,
                                     deadline=clock.deadline_of(game) if game.state == GameState.ACTIVE
                                     else None, reason=reason))
    if winner:
        events.append(GameEnded(**base, phase=played, how="victory",  # type: ignore[arg-type]
                                winner=found[0], members=found, centres=final_centres(pos)))
    return events + ended


def rollback(session: Session, game: Game, now: datetime, phase: str | None = None
             ) -> list[Event]:
    snaps = _active_snapshots(session, game)
    if not snaps:
        raise GameError("nothing_to_roll_back", game=game.name)
    target = snaps[-1]
    if phase:
        found = [s for s in snaps if s.phase == phase.upper()]
        if not found:
            raise GameError("phase_not_played", phase=phase.upper(), game=game.name,
                            played=[s.phase for s in snaps])
        target = found[-1]
    for s in snaps:
        if s.seq >= target.seq:
            s.rolled_back = True
    if game.state == GameState.FINISHED:
        game.state, game.winner = GameState.ACTIVE, None
        clear_result(session, game)
    draws.clear_votes(session, game)
    game.version += 1
    pos = load_position(game.variant, target.position_before)
    game.phase, game.position = str(pos.phase), target.position_before
    formal_state.restore(game, target.variant_before)
    saved = json.loads(target.orders)
    for seat in ordering_seats(session, game):
        seat.orders, seat.wait = json.dumps(saved.get(seat.power, {}), sort_keys=True), False
    if game.state == GameState.ACTIVE:
        clock.start_clock(game, now)
    return [notice(session, game, "rolled_back")]


def rollforward(session: Session, game: Game, now: datetime) -> list[Event]:
    undone = session.scalars(select(PhaseSnapshot).where(
        PhaseSnapshot.game_id == game.id, PhaseSnapshot.rolled_back.is_(True))
        .order_by(PhaseSnapshot.seq)).first()
    if undone is None:
        raise GameError("nothing_to_redo", game=game.name)
    if undone.phase != game.phase or undone.position_before != game.position:
        raise GameError("board_changed", game=game.name)
    undone.rolled_back = False
    game.version += 1
    formal_state.restore(game, undone.variant_after)
    events = _enter(session, game, load_position(game.variant, undone.position_after), now,
                    "master", processed=None)
    return [notice(session, game, "rolled_forward", redone=undone.phase)] + events


def set_position(session: Session, game: Game, phase: str | None, lines: list[str],
                 now: datetime) -> list[Event]:
    if game.state not in (GameState.FORMING, GameState.PAUSED):
        raise GameError("position_when")
    m = load_map(game.variant)
    pos = parse_position_block(m, (phase or game.phase).upper(), lines)
    game.version += 1
    game.phase, game.position = str(pos.phase), dump_position(pos)
    for s in ordering_seats(session, game):
        s.orders, s.wait = "{}", False
    draws.clear_votes(session, game)
    counts = [(power, n) for power, n in pos.center_counts().items() if n]
    return [notice(session, game, "position", centres=counts)]


def snapshots(session: Session, game: Game) -> list[PhaseSnapshot]:
    return _active_snapshots(session, game)
