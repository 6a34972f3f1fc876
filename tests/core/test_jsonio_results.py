"""The JSON results are found line by line by their text; that gives what sorting them gives
(the way taken for a power that gave one line twice), whatever lines are given."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.core import load_map, make_position
from judge.core.adjudicator import adjudicate_phase
from judge.core.jsonio import _results, _results_sorted, adjudicate_json

M = load_map()
UNITS = {"FRANCE": ["A PAR", "A MAR", "F BRE"], "GERMANY": ["A MUN", "A RUH", "F KIE"]}
# lines for those units (some replacing others, some naming no unit of the power)
LINES = ["A PAR - BUR", "A PAR H", "A MAR S A PAR - BUR", "A MAR - BUR", "F BRE - ENG",
         "F BRE - PIC", "A MUN - BUR", "A RUH S A MUN - BUR", "A RUH - BUR", "F KIE - HOL",
         "A PAR S A MAR", "F KIE H", "A MUN H"]


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({}, optional={
    "FRANCE": st.lists(st.sampled_from(LINES), max_size=6),
    "GERMANY": st.lists(st.sampled_from(LINES), max_size=6)}))
def test_results_found_by_text_are_the_sorted_results(orders: dict[str, list[str]]) -> None:
    pos = make_position(M, "S1901M", UNITS)
    done, _ = adjudicate_phase(pos, orders)
    by_text = _results(M, orders, done.results)
    assert list(by_text.items()) == list(_results_sorted(M, orders, done.results).items())


def test_a_line_given_twice_has_its_results_where_it_was_first_given() -> None:
    doc = {"phase": "S1901M", "units": UNITS,
           "orders": {"FRANCE": ["A PAR - BUR", "A PAR H", "A PAR - BUR"]}}
    out = json.loads(adjudicate_json(json.dumps(doc)))
    assert out["results"]["FRANCE"] == [
        {"order": "A PAR - BUR", "result": "invalid"},  # replaced by the line after it
        {"order": "A PAR - BUR", "result": "ok"},  # the same text, given last
        {"order": "A PAR H", "result": "invalid"},  # replaced by the last line
        {"order": "F BRE H", "result": "ok"},  # the holds supplied, by province
        {"order": "A MAR H", "result": "ok"},
    ]
