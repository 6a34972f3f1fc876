"""What the results mail and ``LIST <game>`` show of a Formal game (rule 10).

Structured data first (:func:`war_matrix`, :func:`sphere_list`, :func:`vp_table`), then
Judge-style lines built from it (:func:`unit_lines`, :func:`turn_lines`,
:func:`status_lines`).
"""

from __future__ import annotations

from judge.core.board import Position, Unit
from judge.core.formal.state import FormalState
from judge.core.formal.turn import FormalResult
from judge.core.formal.wording import claim_line
from judge.core.maps import Map
from judge.core.orders import Convoy, Order, Support


def _n(power: str) -> str:
    return power.capitalize()


def names_and(powers: tuple[str, ...] | list[str]) -> str:
    """``France``, ``France and Germany``, ``Austria, France and Germany``."""
    names = [_n(p) for p in powers]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def war_matrix(m: Map, state: FormalState) -> dict[str, tuple[str, ...]]:
    """power → the powers it is at war with, every power of the map listed, in map order."""
    return {p: tuple(e for e in m.powers if state.at_war(p, e)) for p in m.powers}


def sphere_list(m: Map, state: FormalState) -> tuple[tuple[str, str], ...]:
    """(province, owner) for every sphere, sorted by owner (map order) then province name."""
    rank = {p: i for i, p in enumerate(m.powers)}
    return tuple(sorted(state.spheres.items(),
                        key=lambda kv: (rank.get(kv[1], 99), m.provinces[kv[0]].name)))


def vp_table(m: Map, state: FormalState) -> tuple[tuple[str, int], ...]:
    """(power, points), most points first, ties in map order."""
    rank = {p: i for i, p in enumerate(m.powers)}
    return tuple(sorted(((p, state.points(p)) for p in m.powers),
                        key=lambda kv: (-kv[1], rank[kv[0]])))


def unit_lines(m: Map, before: Position, result: FormalResult) -> list[str]:
    """The per-unit lines of the results, as the standard results write them, except that a
    claim or a support of a claim is written in words, exactly as in the Formal section."""
    worded = {(p, prov): line for p, prov, line in result.claim_lines}
    out = []
    for r in result.results:
        key = (r.power, r.unit.province) if r.unit is not None else None
        if key in worded and r.order is None:
            out.append(worded[key])
        else:
            out.append(r.judge_text(m, _target(before, r.order)))
    return out


def _target(before: Position, order: Order | None) -> Unit | None:
    if isinstance(order, (Support, Convoy)):
        return before.unit_at(order.target.province)
    return None


def turn_lines(m: Map, result: FormalResult) -> list[str]:
    """This phase's declarations, surrenders, void moves, spheres and VP changes."""
    out: list[str] = []
    if result.declarations:
        out.append("Declarations of war:")
        out += [f"  {_n(a)} declares war on {_n(b)}." for a, b in result.declarations]
    if result.surrenders:
        out.append("Surrenders:")
        out += [f"  {_n(s.power)} surrenders to {', '.join(map(_n, s.to))}."
                for s in result.surrenders]
    refused = [r for r in result.formal_results if r.result in ("refused", "invalid")]
    if refused:
        out.append("Formal orders not carried out:")
        out += [f"  {r.judge_text()}" for r in refused]
    if result.voided:
        out.append("Void moves (no war):")
        out += [f"  {_n(v.power)}: {v.unit.text(m)} -> {m.location_text(v.order.dest)}.  "
                f"(*{v.message}*)" for v in result.voided]
    if result.claims or result.spheres_ended:
        out.append("Spheres of influence:")
        for c in result.claims:
            out.append("  " + claim_line(m, c.power, c.unit, c.province, c.outcome,
                                         c.strength))
        for e in result.spheres_ended:
            place = m.provinces[e.province].name
            if e.reason == "undo":
                out.append(f"  {_n(e.owner)} gives up its sphere {place}.")
            elif e.reason == "incursion":
                out.append(f"  {_n(e.owner)} loses its sphere {place}: entered by {_n(e.by or '')}.")
            else:
                out.append(f"  {_n(e.owner)}'s sphere {place} lapses: {_n(e.owner)} is eliminated.")
    if result.vp_changes:
        out.append("Victory points this phase:")
        out += [f"  {_n(c.power)} {c.delta:+d}: {c.reason}." for c in result.vp_changes]
    if result.game_over:
        w = result.winners
        out.append(f"The game is over: {names_and(w)} "
                   f"{'wins' if len(w) == 1 else 'share the victory'}.")
    return out


def status_lines(m: Map, state: FormalState) -> list[str]:
    """The war matrix, the spheres and the VP table (results mail and ``LIST <game>``)."""
    powers = list(m.powers)
    head = " ".join(f"{p[:3].capitalize():>3}" for p in powers)
    out = ["Wars (X: at war):", f"  {'':<8} {head}"]
    wm = war_matrix(m, state)
    for p in powers:
        row = " ".join(f"{'-' if q == p else 'X' if q in wm[p] else '.':>3}" for q in powers)
        out.append(f"  {_n(p):<8} {row}")
    out.append("Spheres of influence:")
    spheres = sphere_list(m, state)
    out += ([f"  {m.provinces[prov].name} ({prov}): {_n(owner)}" for prov, owner in spheres]
            or ["  none"])
    out.append(f"Victory points (game ends after Fall {state.last_year}):")
    out += [f"  {_n(p):<8} {n:>3}" for p, n in vp_table(m, state)]
    return out
