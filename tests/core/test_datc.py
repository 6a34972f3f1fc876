"""Runs the DATC v3.0 fixtures in ``datc_cases/`` (one test per case id) against the core.

Fixture format: see ``datc_cases/README.md``.  Phases without ``units`` continue from the
previous phase's adjudicated result, so retreat options come from our own adjudicator.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.core.adjudicator import PhaseResult, adjudicate
from judge.core.board import Position, make_position
from judge.core.maps import load_map
from judge.core.orders import Convoy, Disband, Hold, Move, Retreat, Support
from judge.core.phases import Phase
from judge.core.order_results import BUILD, DISBAND, INVALID, OK, REMOVE, WAIVE, OrderResult

CASES_DIR = Path(__file__).parent / "datc_cases"


def _load_cases() -> list[dict]:
    cases = []
    for path in sorted(CASES_DIR.glob("6.*.json")):
        cases.extend(json.loads(path.read_text("utf-8")))
    return cases


CASES = _load_cases()

def outcome(r: OrderResult) -> str:
    """Our result in the fixture's vocabulary: succeeds / fails / illegal."""
    if r.result == INVALID:
        return "illegal"
    if r.result in (BUILD, REMOVE, WAIVE):
        return "succeeds"
    if r.result == DISBAND:
        return "fails" if r.default else "succeeds"
    if isinstance(r.order, (Hold, Convoy)):
        return "succeeds" if r.result == OK and not r.dislodged else "fails"
    if isinstance(r.order, (Move, Support, Retreat, Disband)):
        return "succeeds" if r.result == OK else "fails"
    return "succeeds" if r.result == OK else "fails"


def _units(units) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for u in units:
        out.setdefault(u.power, []).append(u.code)
    return {p: sorted(v) for p, v in out.items()}


def _check_phase(i: int, ph: dict, res: PhaseResult) -> None:
    expect = ph.get("expect", {})
    where = f"phase {i} ({ph['phase']})"
    by_text: dict[str, OrderResult] = {}
    for r in res.results:
        if not r.default:
            by_text.setdefault(r.text, r)
    for text, want in expect.get("orders", {}).items():
        assert text in by_text, f"{where}: no result for {text!r}"
        r = by_text[text]
        got = outcome(r)
        assert got == want, f"{where}: {text!r} {got} (result {r.result}, {r.message}), want {want}"
    if "dislodged" in expect:
        got_d = sorted(d.unit.code for d in res.dislodged)
        assert got_d == sorted(expect["dislodged"]), f"{where}: dislodged {got_d}"
    if "units_after" in expect:
        want_u = {p: sorted(v) for p, v in expect["units_after"].items() if v}
        assert _units(res.units) == want_u, f"{where}: units after"


@pytest.mark.skipif(not CASES, reason="no DATC fixtures in tests/core/datc_cases yet")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_datc_case(case: dict) -> None:
    m = load_map("standard")
    prev: PhaseResult | None = None
    for i, ph in enumerate(case["phases"]):
        if "units" in ph:
            pos = make_position(m, ph["phase"], ph["units"], ph.get("centers", {}),
                                ph.get("dislodged"))
        else:
            assert prev is not None, "a continuing phase needs a previous phase"
            pos = Position(m, Phase.parse(ph["phase"]), prev.units, prev.position.centers,
                           prev.dislodged)
        prev = adjudicate(pos, ph.get("orders", {}))
        _check_phase(i, ph, prev)


def test_fixture_ids_unique() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
