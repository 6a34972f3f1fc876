"""What the web pages and the JSON API show, read from the store as plain data.

Every function here takes a session of a reading transaction and returns dicts and lists that
both the HTML templates (templates/web/) and the JSON API serialise, so that the two cannot
disagree.  What is shown is what a stranger may read by mail (HISTORY, SUMMARY and LIST
without signing on): no address, no grey sender, no vote, no order of the phase in progress,
and only the press the mail rules let anybody read (broadcasts).  Private games are filtered
out of lists here; whether one may see a private game's own pages is the caller's question
(:mod:`judge.service.access.passes`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge.basics.utc import as_utc
from judge.core import load_map
from judge.core.press import MASTER
from judge.mail.writing.compose import make_environment
from judge.mail.writing.standings_table import as_json, build_table, choose
from judge.mail.writing.attached_maps import board_document, phase_document
from judge.service.games import title_of_variant, variant_title
from judge.service.processing import phase_title, position_of
from judge.service.press import broadcast_count, broadcasts
from judge.service.game_results import result_of
from judge.service.tournament_results import tournament_results
from judge.store.models import (Game, GameState, PhaseSnapshot, Seat, SeatKind, SeatStatus,
                                Tournament)

# games on one page of the list (the list of 10,000 games is paged, not sent whole)
PAGE_SIZE = 50
# press messages on one page of a game's (or a phase's) press
PRESS_PAGE_SIZE = 50


class NotFound(Exception):
    """Nothing public by that name (a missing game, phase or tournament)."""


# --------------------------------------------------------------------------- the list

def press_setting(rules: set[str], grey: bool, observers: bool) -> str:
    """The game's press in a few words, as the rules and the master's settings allow it."""
    if "NO_PRESS" in rules:
        kind = "none (only to the master)"
    elif "PUBLIC_PRESS" in rules:
        kind = "public only"
    else:
        kind = "private and public"
    extras = [x for x, on in (("grey", grey), ("observers may broadcast", observers)) if on]
    return kind + (f"; {', '.join(extras)}" if extras and "NO_PRESS" not in rules else "")


def _npowers(variant: str) -> int:
    return len(load_map(variant).powers)


def list_games(session: Session, page: int = 1) -> dict[str, Any]:
    """One page of the public games (private ones are never listed), by name."""
    public = Game.privacy_hash.is_(None)
    total = session.scalar(select(func.count()).select_from(Game).where(public)) or 0
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(max(1, page), pages)
    # the page's ids from the index alone (ix_games_listing), then only their rows: skipping
    # to page 200 must not read 10,000 boards
    ids = list(session.scalars(select(Game.id).where(public).order_by(Game.name_key)
                               .limit(PAGE_SIZE).offset((page - 1) * PAGE_SIZE)))
    rows = session.execute(
        select(Game.id, Game.name, Game.variant, Game.state, Game.phase, Game.deadline,
               Game.rules, Game.grey_press, Game.observer_press)
        .where(Game.id.in_(ids)).order_by(Game.name_key)).all() if ids else []
    players = dict(session.execute(
        select(Seat.game_id, func.count()).where(
            Seat.game_id.in_([r.id for r in rows]), Seat.kind == SeatKind.POWER,
            Seat.status.in_((SeatStatus.ACTIVE, SeatStatus.DUMMY)))
        .group_by(Seat.game_id)).all()) if rows else {}
    games = []
    for r in rows:
        rules = set(r.rules.split())
        games.append(dict(
            name=r.name, variant=r.variant, variant_title=title_of_variant(r.variant),
            state=r.state,
            phase=None if r.state == GameState.FORMING else r.phase,
            deadline=as_utc(r.deadline) if r.state == GameState.ACTIVE else None,
            open_seats=max(0, _npowers(r.variant) - players.get(r.id, 0))
            if r.state in (GameState.FORMING, GameState.ACTIVE, GameState.PAUSED) else 0,
            press=press_setting(rules, r.grey_press, r.observer_press),
            rules=sorted(rules)))
    return dict(games=games, page=page, pages=pages, total=total)


# --------------------------------------------------------------------------- one game

def find_public_game(session: Session, name: str) -> Game:
    game = session.scalars(select(Game).where(Game.name_key == name.lower()[:32])).first()
    if game is None:
        raise NotFound(f"no game named {name!r}")
    return game


def _phases(session: Session, game: Game) -> list[dict[str, Any]]:
    """The phases played, oldest first (only the columns the links need)."""
    return [dict(seq=seq, phase=phase, title=phase_title(phase)) for seq, phase in
            session.execute(select(PhaseSnapshot.seq, PhaseSnapshot.phase).where(
                PhaseSnapshot.game_id == game.id, PhaseSnapshot.rolled_back.is_(False))
                .order_by(PhaseSnapshot.seq))]


# how the page words a power's seat (a power with no seat, or left, is vacant)
_SHOWN_STATUS: dict[str, str] = {SeatStatus.ACTIVE: "playing", SeatStatus.DUMMY: "dummy"}


def _powers(session: Session, game: Game) -> list[dict[str, Any]]:
    """Each power's centres and units now, and whether somebody plays it (never who)."""
    pos = position_of(game)
    m = pos.map
    held = {s.power: s.status for s in session.scalars(select(Seat).where(
        Seat.game_id == game.id, Seat.kind == SeatKind.POWER,
        Seat.status.in_((SeatStatus.ACTIVE, SeatStatus.DUMMY))))
        if s.power}
    out = []
    for power in m.powers:
        centres = sorted(pos.centers.get(power, ()))
        status = _SHOWN_STATUS.get(held.get(power, ""), "vacant")
        out.append(dict(power=power, name=power.capitalize(),
                        adjective=m.powers[power].adjective, centres=len(centres),
                        centre_names=[m.location_text(c) for c in centres],
                        units=len(pos.units_of(power)),
                        status=status if game.state != GameState.FORMING else ""))
    return out


def announcements(session: Session, game: Game) -> list[str]:
    """How the game stands, as the mail announced it: victories, draws, concessions, ends."""
    said: list[str] = []
    result = result_of(session, game)
    if game.winner:
        said.append(f"Won by {' and '.join(p.capitalize() for p in game.winner.split())}.")
    if result is not None and result.result in ("draw", "concession"):
        members = ", ".join(p.capitalize() for p in result.members.split())
        said.append(f"Ended in {result.phase} in a draw of {members}."
                    if result.result == "draw"
                    else f"Ended in {result.phase} in a concession to {members}.")
    if game.state == GameState.TERMINATED and not said:
        said.append("The master ended the game.")
    if game.state == GameState.PAUSED:
        said.append("The game is paused by its master.")
    if game.state == GameState.FORMING:
        said.append("The game is forming: it starts when every power has a player.")
    return said


def public_press(session: Session, game: Game, phase: str | None = None,
                 page: int | None = None) -> dict[str, Any]:
    """One page of the press anybody may read by mail (HISTORY without signing on):
    broadcasts, with a grey sender left unnamed, oldest first, ``PRESS_PAGE_SIZE`` a page;
    by default the last page (the newest).  ``messages``, and ``page``, ``pages``, ``total``."""
    total = broadcast_count(session, game, phase)
    pages = max(1, -(-total // PRESS_PAGE_SIZE))
    page = pages if page is None else min(max(1, page), pages)
    shown = broadcasts(session, game, phase, (page - 1) * PRESS_PAGE_SIZE, PRESS_PAGE_SIZE)
    messages = [dict(phase=p.phase, sender="someone (grey press)" if p.sender is None else
                     p.sender.capitalize() if p.sender != MASTER else "the master",
                     grey=p.grey, sent_at=p.sent_at, body="\n".join(p.body)) for p in shown]
    return dict(messages=messages, page=page, pages=pages, total=total)


def _facts(snap: PhaseSnapshot) -> dict[str, Any]:
    """A played phase's results for its page: the stored facts worded as the results mail
    words them (templates/game/outcomes.txt); phases stored as ready-made lines keep them."""
    facts = json.loads(snap.results)
    say = make_environment().get_template("game/outcomes.txt").module
    orders = facts.get("orders") or [str(say.order_line(*line))  # type: ignore[attr-defined]
                                     for line in facts.get("lines", [])]
    dislodged = facts.get("dislodged") or [
        str(say.retreat_line(*row))  # type: ignore[attr-defined]
        for row in facts.get("retreats", [])]
    return dict(phase=snap.phase, title=facts.get("title") or phase_title(snap.phase),
                orders=orders, dislodged=dislodged,
                centers=facts.get("centers", []), adjustments=facts.get("adjustments", []),
                winner=facts.get("winner"), next_phase=facts.get("next_phase"))


def _snapshot(session: Session, game: Game, phase: str) -> PhaseSnapshot:
    snap = session.scalars(select(PhaseSnapshot).where(
        PhaseSnapshot.game_id == game.id, PhaseSnapshot.rolled_back.is_(False),
        PhaseSnapshot.phase == phase.upper()[:8]).order_by(PhaseSnapshot.seq.desc())).first()
    if snap is None:
        raise NotFound(f"{phase} has not been played in {game.name}")
    return snap


def _latest(session: Session, game: Game) -> PhaseSnapshot | None:
    return session.scalars(select(PhaseSnapshot).where(
        PhaseSnapshot.game_id == game.id, PhaseSnapshot.rolled_back.is_(False))
        .order_by(PhaseSnapshot.seq.desc()).limit(1)).first()


def _tournament_name(session: Session, game: Game) -> str | None:
    if game.tournament_id is None:
        return None
    t = session.get(Tournament, game.tournament_id)
    return t.name if t is not None else None


def game_view(session: Session, game: Game, press_page: int | None = None) -> dict[str, Any]:
    """The game page: the board now, centres per power, the latest results, announcements,
    a page of the public press (the last by default) and the phases played."""
    latest = _latest(session, game)
    press = public_press(session, game, page=press_page)
    rules = set(game.rules.split())
    return dict(
        name=game.name, variant=game.variant, variant_title=variant_title(game),
        state=game.state, phase=None if game.state == GameState.FORMING else game.phase,
        phase_title=phase_title(game.phase),
        deadline=as_utc(game.deadline) if game.state == GameState.ACTIVE else None,
        rules=sorted(rules), press=press_setting(rules, game.grey_press, game.observer_press),
        private=game.privacy_hash is not None, tournament=_tournament_name(session, game),
        powers=_powers(session, game), announcements=announcements(session, game),
        latest=_facts(latest) if latest is not None else None,
        phases=_phases(session, game), press_messages=press["messages"],
        press_page=press["page"], press_pages=press["pages"], press_total=press["total"])


def phase_view(session: Session, game: Game, phase: str, press_page: int | None = None
               ) -> dict[str, Any]:
    """One played phase: its orders and results, a page of its public press, and the phases
    before and after it."""
    snap = _snapshot(session, game, phase)
    press = public_press(session, game, snap.phase, press_page)
    phases = _phases(session, game)
    names = [p["phase"] for p in phases]
    i = names.index(snap.phase)
    return dict(name=game.name, variant_title=variant_title(game), state=game.state,
                private=game.privacy_hash is not None, facts=_facts(snap),
                previous=names[i - 1] if i > 0 else None,
                next=names[i + 1] if i + 1 < len(names) else None, phases=phases,
                press_messages=press["messages"], press_page=press["page"],
                press_pages=press["pages"], press_total=press["total"])


# --------------------------------------------------------------------------- maps

def current_map_document(session: Session, game: Game) -> dict[str, Any]:
    """The board as it stands, without a single order of the phase in progress."""
    return board_document(game)


def phase_map_document(session: Session, game: Game, phase: str) -> dict[str, Any]:
    return phase_document(game, _snapshot(session, game, phase))


# --------------------------------------------------------------------------- JSON shapes

def _board(text: str) -> dict[str, Any]:
    """A stored board as the contract writes one: powers and their units sorted."""
    board = json.loads(text)
    return {"phase": board["phase"],
            "units": {p: sorted(u) for p, u in sorted(board.get("units", {}).items())},
            "centers": {p: sorted(c) for p, c in sorted(board.get("centers", {}).items())},
            "dislodged": dict(sorted((board.get("dislodged") or {}).items()))}


def phase_json(session: Session, game: Game, phase: str) -> dict[str, Any]:
    """A played phase as the adjudication JSON contract (docs/adjudication-json.md): its
    ``input`` (the board before and the orders given) and its ``output`` (every order's
    result, the board after)."""
    snap = _snapshot(session, game, phase)
    orders = {p: sorted(o.values()) for p, o in sorted(json.loads(snap.orders).items()) if o}
    picture = phase_document(game, snap)
    after = _board(snap.position_after)
    # as the contract lists them: the orders as given, then the defaults the judge supplied
    results = {p: _in_given_order(rs, orders.get(p, []))
               for p, rs in picture["outcome"]["results"].items()}
    played_into = after["phase"]
    return {
        "game": game.name, "variant": game.variant, "phase": snap.phase,
        "input": {"variant": game.variant, **_board(snap.position_before), "orders": orders},
        "output": {"phase": snap.phase, "results": results,
                   "units": {p: sorted(u) for p, u in sorted(after["units"].items()) if u},
                   "dislodged": after["dislodged"] if played_into.endswith("R") else {},
                   "centers": {p: sorted(c) for p, c in sorted(after["centers"].items()) if c},
                   "next_phase": played_into},
    }



def _in_given_order(results: list[dict[str, Any]], given: list[str]) -> list[dict[str, Any]]:
    """A power's results as the contract lists them: the orders as given, then the defaults
    the judge supplied."""
    def position(r: dict[str, Any]) -> int:
        return given.index(r["order"]) if r["order"] in given else len(given)
    return sorted(({"order": r["order"], "result": r["result"]} for r in results), key=position)

def current_board_json(game: Game) -> dict[str, Any]:
    """The board of the phase in progress (no orders: they are secret until it is played)."""
    return {"variant": game.variant, **_board(game.position)}


# --------------------------------------------------------------------------- tournaments

def standings_view(session: Session, name: str) -> dict[str, Any]:
    """A tournament's standings (the finished games scored as STANDINGS does by mail, with
    its tie-breaks), each player named without their address: by the powers they played,
    game by game.  Private games are not named."""
    tournament = session.scalars(select(Tournament).where(
        Tournament.name_key == name.lower()[:32])).first()
    if tournament is None:
        raise NotFound(f"no tournament named {name!r}")
    done, open_games = tournament_results(session, tournament)
    private = {g.name for g in session.scalars(select(Game).where(
        Game.tournament_id == tournament.id, Game.privacy_hash.is_not(None)))}

    def game_label(game: str) -> str:
        return "a private game" if game in private else game

    labels: dict[str, list[str]] = {}
    for result in done:
        for p in result.powers:
            if p.player is not None:
                labels.setdefault(p.player, []).append(
                    f"{p.power.capitalize()} in {game_label(result.game)}")
    system, chain = choose(None, None)
    doc = as_json(build_table(tournament.name, done, system, chain,
                              [g.name for g in open_games]))
    named = {player: "; ".join(parts) for player, parts in labels.items()}
    doc["games"] = [game_label(g) for g in doc["games"]]
    doc["open_games"] = [game_label(g) for g in doc["open_games"]]
    for row in doc["standings"]:
        row["player"] = named.get(row["player"], "a player")
        for split in row["splits"]:
            split["among"] = [named.get(x, "a player") for x in split["among"]]
    return doc


def moment(value: datetime | None) -> str | None:
    return as_utc(value).isoformat() if value is not None else None  # type: ignore[union-attr]
