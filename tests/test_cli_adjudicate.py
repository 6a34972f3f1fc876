"""``judge adjudicate`` as tools call it: retreat phases with options in provinces with coasts,
and retreat options that cannot be are refused with one line on stderr and exit 2; ``--jsonl``
answers line by line; the command loads the core only (no store, no configuration)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from conftest import JUDGE_EXE


def run(*docs: Any, jsonl: bool = False) -> subprocess.CompletedProcess[str]:
    text = "\n".join(json.dumps(d) for d in docs)
    return subprocess.run([JUDGE_EXE, "adjudicate", *(["--jsonl"] if jsonl else [])],
                          input=text, capture_output=True, text=True, timeout=60, check=False)


def test_a_retreat_phase_with_an_army_option_in_bulgaria_is_adjudicated() -> None:
    out = run({"phase": "S1901R", "units": {"AUSTRIA": ["A RUM", "A BUD"]},
               "dislodged": {"RUSSIA": {"A RUM": ["BUL", "GAL"]}},
               "orders": {"RUSSIA": ["A Rum-Bul"]}})
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["results"] == {"RUSSIA": [{"order": "A Rum-Bul", "result": "ok"}]}
    assert doc["units"]["RUSSIA"] == ["A BUL"] and doc["next_phase"] == "F1901M"


def test_movement_output_fed_back_as_the_next_input_goes_on() -> None:
    first = run({"phase": "S1901M",
                 "units": {"AUSTRIA": ["A GAL", "A BUD"], "RUSSIA": ["A RUM"]},
                 "orders": {"AUSTRIA": ["A GAL - RUM", "A BUD S A GAL - RUM"]}})
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert doc["dislodged"] == {"RUSSIA": {"A RUM": ["BUL", "SER", "SEV", "UKR"]}}
    second = run({"phase": doc["next_phase"], "units": doc["units"], "centers": doc["centers"],
                  "dislodged": doc["dislodged"], "orders": {"RUSSIA": ["A RUM R BUL"]}})
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["units"]["RUSSIA"] == ["A BUL"]


def test_a_retreat_into_an_occupied_province_is_refused_not_obeyed() -> None:
    out = run({"phase": "S1916R", "units": {"TURKEY": ["A CON"], "AUSTRIA": ["A BUL"]},
               "dislodged": {"TURKEY": {"A BUL": ["CON", "SER"]}},
               "orders": {"TURKEY": ["A BUL R CON"]}})
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "A BUL cannot retreat to CON: A CON is there" in lines[0]


def test_options_not_adjacent_or_impassable_are_refused() -> None:
    for options, words in ((["PIC", "LON"], "not adjacent"), (["SWI"], "no such place")):
        out = run({"phase": "S1902R", "units": {"GERMANY": ["A BUR"]},
                   "dislodged": {"FRANCE": {"A BUR": options}}})
        assert out.returncode == 2, out.stdout
        assert len(out.stderr.strip().splitlines()) == 1 and words in out.stderr


def test_jsonl_gives_one_compact_line_per_position_meaning_what_one_document_gives() -> None:
    docs = [{"phase": "S1901M", "units": {"FRANCE": ["A PAR", "F BRE"], "GERMANY": ["A MUN"]},
             "orders": {"FRANCE": ["A Par-Bur", "F Bre-Eng"], "GERMANY": ["A Mun-Bur"]}},
            {"phase": "W1901A", "units": {"ITALY": ["A VEN"]},
             "centers": {"ITALY": ["VEN", "ROM", "NAP"]}, "orders": {"ITALY": ["Build F Nap"]}}]
    out = run(*docs, jsonl=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    for doc, line in zip(docs, lines):
        one = run(doc)
        assert one.returncode == 0, one.stderr
        assert json.loads(line) == json.loads(one.stdout)
        assert ", " not in line and ": " not in line  # compact: no spaces between items


def test_jsonl_answers_every_line_and_a_refused_one_with_an_error_object_in_its_place(
        ) -> None:
    """A batch is never lost to one bad position: each refused line has its error object
    where its result would be, the lines after it are adjudicated, the exit status is 2 and
    stderr says once how many were refused."""
    good = [{"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "orders": {"FRANCE": [order]}}
            for order in ("A Par-Bur", "A Par-Pic", "A Par-Gas", "A Par H")]
    lines = [json.dumps(good[0]), "", "{not json", json.dumps(good[1]),
             json.dumps({"phase": "S1901M", "units": {"FRANCE": ["A PAR"]},
                         "orders": {"FRANCE": ["A MUN H"]}}),
             json.dumps(good[2]), json.dumps(good[3])]
    out = subprocess.run([JUDGE_EXE, "adjudicate", "--jsonl"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == 6  # one for each line that is not blank, in order
    assert answers[1]["line"] == 3 and answers[1]["error"].startswith("not valid JSON")
    assert answers[3] == {"error": "FRANCE: 'A MUN H': no unit in MUN", "line": 5}
    moved = [a["units"]["FRANCE"] for a in (answers[0], answers[2], answers[4], answers[5])]
    assert moved == [["A BUR"], ["A PIC"], ["A GAS"], ["A PAR"]]
    assert out.stderr.count("\n") == 1 and out.stderr.startswith(
        "judge: 2 of 6 lines refused, each answered by an error object in its place; "
        "the first, line 3: not valid JSON")


def test_jsonl_goes_on_past_a_fault_of_the_judges_and_says_so(
        monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    """A bug that one position finds in the judge is said on that line (and its traceback on
    stderr); the other lines are still adjudicated; the exit status is 1."""
    import io

    import judge.core.jsonio
    from judge.cli.adjudicate import adjudicate

    real = judge.core.jsonio.adjudicate_json

    def faulty(line: bytes) -> bytes:
        if b"Mar" in line:
            raise ZeroDivisionError("division by zero")
        return real(line)

    monkeypatch.setattr(judge.core.jsonio, "adjudicate_json", faulty)
    docs = [{"phase": "S1901M", "units": {"FRANCE": ["A PAR", "A MAR"]},
             "orders": {"FRANCE": [order]}} for order in ("A Par-Bur", "A Mar-Spa", "A Par-Pic")]
    text = "".join(json.dumps(d) + "\n" for d in docs).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert adjudicate(jsonl=True) == 1
    sys.stdout.flush()
    out, err = capfdbinary.readouterr()
    answers = [json.loads(line) for line in out.splitlines()]
    assert answers[1] == {"error": "internal error: ZeroDivisionError: division by zero",
                          "line": 2}
    assert answers[0]["units"]["FRANCE"] == ["A BUR", "A MAR"]
    assert answers[2]["units"]["FRANCE"] == ["A MAR", "A PIC"]
    assert b"Traceback" in err and err.rstrip().splitlines()[-1] == (
        b"judge: 1 of 3 lines failed on an internal error (traceback above)")


def test_no_input_is_said_once_in_both_forms() -> None:
    for args in ([], ["--jsonl"]):
        out = subprocess.run([JUDGE_EXE, "adjudicate", *args], input=" \n\n", capture_output=True,
                             text=True, timeout=60, check=False)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr == "judge: no input: give a JSON position on stdin\n"


def _probe(loaded: str, run: str) -> tuple[str, str]:
    """Run ``run`` (Python) in a fresh interpreter on one position; its output, and what
    the expression ``loaded`` (over ``sys.modules``) printed as it ended."""
    probe = (f"import atexit, sys\natexit.register(lambda: print({loaded}, file=sys.stderr))\n"
             f"{run}\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         input='{"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}}\n',
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout, out.stderr.strip().splitlines()[-1]


def test_adjudicating_imports_neither_the_store_nor_the_configuration() -> None:
    # SQLAlchemy alone took most of the command's start-up; it only needs the core
    _, loaded = _probe("sorted({m.split('.')[0] + '.' + m.split('.')[1] if m.startswith("
                       "'judge.') else m.split('.')[0] for m in sys.modules})",
                       "from judge.cli.main import main\nmain(['adjudicate', '--jsonl'])")
    assert "'judge.core'" in loaded
    for heavy in ("sqlalchemy", "alembic", "jinja2", "aiosmtpd", "'judge.store'",
                  "'judge.basics.config'", "'judge.service'", "'judge.mail'"):
        assert heavy not in loaded, heavy


def test_the_command_goes_straight_to_adjudicating_without_the_command_line() -> None:
    """judge.cli.launch: `judge adjudicate` loads neither click nor the other commands; anything
    else (its --help too) is the full command line."""
    output, loaded = _probe("sorted(m for m in sys.modules if m in ('click', 'judge.cli.main', "
                            "'logging'))", "sys.argv = ['judge', 'adjudicate', '--jsonl']\n"
                            "from judge.cli.launch import main\nmain()")
    assert json.loads(output)["next_phase"] == "F1901M"
    assert loaded == "[]"
    helped = subprocess.run([JUDGE_EXE, "adjudicate", "--help"], capture_output=True,
                            text=True, timeout=60, check=False)
    assert helped.returncode == 0 and "--jsonl" in helped.stdout
    bad = subprocess.run([JUDGE_EXE, "adjudicate", "--nonsense"], capture_output=True,
                         text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "No such option" in bad.stderr
