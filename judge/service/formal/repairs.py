"""The master's direct repairs of a Formal Diplomacy game's wars, spheres and points.

A board change by POSITION leaves the wars, spheres of influence and victory points as they
were; these repairs set them right: SET WAR and SET PEACE (two powers), SET SPHERE (a power and
a province), SET NOSPHERE (a province), SET POINTS (a power and a number).  None of them costs
or earns points, each is announced to everybody in the game (:class:`FormalRepaired`), and a
change that changes nothing is refused with the reason, announcing nothing.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from judge.core import load_map
from judge.core.formal import FormalState, status_lines
from judge.core.formal.orders import find_province
from judge.core.formal.state import war_pair
from judge.service.formal import state as formal_state
from judge.service.errors import GameError
from judge.service.events import FormalRepaired
from judge.service.games import audience, variant_title
from judge.store.models import Game, GameState

MAX_POINTS = 999


def _state(game: Game) -> FormalState:
    if not formal_state.is_formal(game):
        raise GameError("repair_not_formal", game=game.name, variant=variant_title(game))
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise GameError("game_over", game=game.name)
    return formal_state.state_of(game)


def _done(session: Session, game: Game, state: FormalState, what: str,
          powers: tuple[str, ...], province: str = "", points: int = 0) -> FormalRepaired:
    formal_state.store_state(game, state)
    return FormalRepaired(game=game.name, variant=variant_title(game),
                          to=audience(session, game), phase=game.phase, what=what,
                          powers=powers, province=province, points=points,
                          status=tuple(status_lines(load_map(game.variant), state)))


def set_war(session: Session, game: Game, a: str, b: str, at_war: bool) -> FormalRepaired:
    """SET WAR a b (``at_war``) or SET PEACE a b."""
    state = _state(game)
    if a == b:
        raise GameError("two_different_powers")
    if state.at_war(a, b) == at_war:
        raise GameError("war_unchanged", first=a, second=b, at_war=at_war)
    pair = war_pair(a, b)
    wars = state.wars | {pair} if at_war else state.wars - {pair}
    return _done(session, game, state.evolve(wars=wars), "war" if at_war else "peace",
                 powers=(a, b))


def set_sphere(session: Session, game: Game, power: str | None,
               province_text: str) -> FormalRepaired:
    """SET SPHERE power province, or SET NOSPHERE province (``power`` None)."""
    state = _state(game)
    m = load_map(game.variant)
    found = find_province(m, province_text)
    if not isinstance(found, str):
        raise GameError("province_refused", reason=found[0])
    name = m.provinces[found].name
    spheres = dict(state.spheres)
    if spheres.get(found) == power:
        if power is None:
            raise GameError("no_sphere_unchanged", province=name)
        raise GameError("sphere_unchanged", province=name, power=power)
    if power is None:
        del spheres[found]
    else:
        spheres[found] = power
    # a claim waiting for the retreats would overrule the repair: it goes
    pending = tuple(c for c in state.pending_claims if c.province != found)
    return _done(session, game, state.evolve(spheres=spheres, pending_claims=pending),
                 "nosphere" if power is None else "sphere",
                 powers=(power,) if power else (), province=name)


def set_points(session: Session, game: Game, power: str, points: int) -> FormalRepaired:
    """SET POINTS power n."""
    state = _state(game)
    if abs(points) > MAX_POINTS:
        raise GameError("points_range", most=MAX_POINTS)
    if state.points(power) == points:
        raise GameError("points_unchanged", power=power, points=points)
    vp = {**state.vp, power: points}
    return _done(session, game, state.evolve(vp=vp), "points", powers=(power,),
                 points=points)
