"""Map documents from anywhere (``judge map``'s stdin): whatever the JSON, the answer is a
picture or an InputError saying what is wrong -- never another exception."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.core.errors import InputError
from judge.pictures import scene_of
from judge.pictures.document import picture_from_document
from judge.pictures.svg import render_svg

VALID: dict[str, Any] = json.loads(
    '{"phase": "F1901R", "units": {"FRANCE": ["A MUN", "F SPA/SC"], "GERMANY": ["A BER"]},'
    ' "centers": {"FRANCE": ["PAR"], "GERMANY": ["BER"]},'
    ' "dislodged": {"GERMANY": {"A MUN": ["RUH", "BOH"]}},'
    ' "orders": {"GERMANY": ["A Mun-Ruh"]}, "game": "g",'
    ' "formal": {"spheres": {"BUR": "FRANCE"}, "wars": [["FRANCE", "GERMANY"]],'
    ' "points": {"FRANCE": 1}}}')

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(
        ["", "FRANCE", "A PAR", "A MUN", "F STP/NC", "PAR", "S1901M", "ok", "bounce", "x" * 90]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["FRANCE", "GERMANY", "A MUN", "order", "result", "results",
                         "centers", "dislodged", "spheres", "wars", "points", "PAR"]),
        inner, max_size=3),
    max_leaves=8)


def _answer(doc: Any) -> None:
    for adjudicate in (False, True):
        try:
            render_svg(scene_of(picture_from_document(doc, adjudicate_orders=adjudicate)))
        except InputError:
            pass


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(sorted(VALID) + ["outcome"]), value=json_values)
def test_any_value_under_any_key_is_a_picture_or_an_input_error(key: str, value: Any) -> None:
    _answer(dict(VALID, **{key: value}))


@settings(max_examples=60, deadline=None)
@given(value=json_values)
def test_any_outcome_is_a_picture_or_an_input_error(value: Any) -> None:
    _answer(dict(VALID, outcome={"results": value, "centers": value, "dislodged": value}))
    _answer(dict(VALID, outcome={"results": {"GERMANY": [value]}}))


def test_the_valid_document_draws() -> None:
    picture = picture_from_document(VALID)
    assert [d.unit.code for d in picture.waiting] == ["A MUN"]
    assert picture.formal is not None and picture.formal.spheres == {"BUR": "FRANCE"}
