"""The JSON contract from text: ``adjudicate_json`` (what ``judge adjudicate --jsonl`` runs per
line) gives what ``adjudicate_document`` gives, refuses bad input with the same one-line
messages, and lists each power's results in the order its lines were given."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from judge.core import InputError
from judge.core.jsonio import adjudicate_document, adjudicate_json

DOC: dict[str, Any] = {
    "phase": "F1905M",
    "units": {"FRANCE": ["A PAR", "A MAR", "A PIC"], "GERMANY": ["A MUN", "A BEL"]},
    "centers": {"FRANCE": ["PAR", "MAR", "BRE"], "GERMANY": ["MUN", "BEL"]},
    # PIC first, then a line for PAR replaced by a later one, MAR left without orders
    "orders": {"FRANCE": ["A PIC - BEL", "A PAR - BUR", "A Par - Gas"],
               "GERMANY": ["A MUN - BUR", "A BEL S A MUN - BUR"]},
}


def test_text_in_json_out_as_the_document_function_gives() -> None:
    out = adjudicate_json(json.dumps(DOC).encode())
    assert json.loads(out) == adjudicate_document(json.loads(json.dumps(DOC)))
    assert adjudicate_json(json.dumps(DOC)) == out  # text or bytes alike


def test_results_follow_the_order_lines_were_given_then_the_defaults() -> None:
    out = adjudicate_document(json.loads(json.dumps(DOC)))
    assert out["results"]["FRANCE"] == [
        {"order": "A PIC - BEL", "result": "bounce"},
        {"order": "A PAR - BUR", "result": "invalid"},  # replaced by the next line
        {"order": "A Par - Gas", "result": "ok"},
        {"order": "A MAR H", "result": "ok"},  # supplied by the judge: last
    ]
    assert list(out["results"]) == ["FRANCE", "GERMANY"]


def test_order_lines_keep_their_own_spelling_in_the_output() -> None:
    doc = {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]},
           "orders": {"FRANCE": ["A Paris \u2192 Burgundy"]}}
    out = json.loads(adjudicate_json(json.dumps(doc, ensure_ascii=False).encode()))
    assert out["results"] == {"FRANCE": [{"order": "A Paris \u2192 Burgundy", "result": "ok"}]}


BAD: list[tuple[Any, str]] = [
    ([], "input must be a JSON object"),
    ({"phase": "S1901M", "orderz": {}}, "unknown key(s): orderz"),
    ({"units": {}}, "'phase' is required"),
    ({"phase": 1901}, "'phase' is required"),
    ({"phase": "X1901M"}, "bad phase"),
    ({"phase": "S1901M", "variant": 3}, "'variant' must be a string"),
    ({"phase": "S1901M", "variant": "mars"}, "unknown variant"),
    ({"phase": "S1901M", "units": {"PRUSSIA": []}}, "unknown power 'PRUSSIA' in 'units'"),
    ({"phase": "S1901M", "orders": {"PRUSSIA": []}}, "unknown power 'PRUSSIA' in 'orders'"),
    ({"phase": "S1901M", "units": {"FRANCE": "A PAR"}}, "'units' of FRANCE must be a list"),
    ({"phase": "S1901M", "units": {"FRANCE": ["A PAR", 7]}}, "bad unit 7"),
    ({"phase": "S1901M", "centers": {"FRANCE": ["PAR", 7]}}, "'7' is not a supply centre"),
    ({"phase": "S1901M", "centers": None}, "'centers' must be an object"),
    ({"phase": "S1901M", "orders": {"FRANCE": [1]}}, "orders of FRANCE must be strings"),
    ({"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "orders": {"FRANCE": ["A MUN H"]}},
     "FRANCE: 'A MUN H': no unit in MUN"),
    ({"phase": "S1901M", "units": {"FRANCE": ["A PAR"]},
      "orders": {"FRANCE": ["A PAR H", "A Nowhere - Par", "A XYZ H"]}},
     "FRANCE: 'A Nowhere - Par': unknown province 'nowhere'"),
]


@pytest.mark.parametrize("doc, message", BAD)
def test_bad_input_gets_the_same_one_line_answer_from_text(doc: Any, message: str) -> None:
    with pytest.raises(InputError) as from_document:
        adjudicate_document(json.loads(json.dumps(doc)))
    with pytest.raises(InputError) as from_text:
        adjudicate_json(json.dumps(doc).encode())
    assert message in from_document.value.message
    assert from_text.value.message == from_document.value.message
    assert "\n" not in from_text.value.message


@pytest.mark.parametrize("text", [b"", b"{", b"[1,", b"\xff", b'{"phase": "S1901M\\ud800"}',
                                  b"NaN", b"[" * 100_000 + b"]" * 100_000,
                                  b'{"phase": "S1901M", "units": {"FRANCE": '
                                  + b"[" * 5000 + b"]" * 5000 + b"}}"])
def test_text_that_is_not_json_is_said_to_be_so(text: bytes) -> None:
    with pytest.raises(InputError) as e:
        adjudicate_json(text)
    assert e.value.message.startswith("not valid JSON: ")


def test_the_output_is_compact_json_in_utf8() -> None:
    out = adjudicate_json(b'{"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}}')
    assert out == msgspec.json.encode(json.loads(out))
    assert out.startswith(b'{"phase":"S1901M","results":{"FRANCE":[{"order":"A PAR H"')


HOME_CENTRES = {"AUSTRIA": ["BUD", "TRI", "VIE"], "ENGLAND": ["EDI", "LON", "LVP"],
                "FRANCE": ["BRE", "MAR", "PAR"], "GERMANY": ["BER", "KIE", "MUN"],
                "ITALY": ["NAP", "ROM", "VEN"], "RUSSIA": ["MOS", "SEV", "STP", "WAR"],
                "TURKEY": ["ANK", "CON", "SMY"]}


@pytest.mark.parametrize("read", [
    lambda doc: adjudicate_document(doc),
    lambda doc: json.loads(adjudicate_json(json.dumps(doc).encode())),
], ids=["document", "text"])
def test_a_position_without_centers_gives_each_power_its_home_centres(read: Any) -> None:
    # France's two armies keep their places and may build once, in Brest
    out = read({"phase": "W1901A", "units": {"FRANCE": ["A PAR", "A MAR"]},
                "orders": {"FRANCE": ["Build F Bre"]}})
    assert out["results"]["FRANCE"] == [{"order": "Build F Bre", "result": "build"}]
    assert out["units"]["FRANCE"] == ["A MAR", "A PAR", "F BRE"]
    assert out["centers"] == HOME_CENTRES
    # a Fall turn keeps them too, and leads to the builds of the powers without units
    out = read({"phase": "F1901M", "units": {"FRANCE": ["A PAR"]}})
    assert out["centers"] == HOME_CENTRES and out["next_phase"] == "W1901A"
    # a power left out of a "centers" that is given owns nothing, as in the output;
    # an empty "centers" is a board on which nobody owns anything
    out = read({"phase": "W1901A", "units": {"FRANCE": ["A PAR"], "ITALY": ["A VEN"]},
                "centers": {"FRANCE": ["PAR"]}})
    assert out["units"] == {"FRANCE": ["A PAR"]}
    assert out["results"]["ITALY"] == [{"order": "A VEN D", "result": "remove"}]
    out = read({"phase": "F1901M", "units": {"FRANCE": ["A BUR"]}, "centers": {}})
    assert out["centers"] == {} and out["next_phase"] == "W1901A"
