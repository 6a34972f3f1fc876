"""``judge adjudicate`` as tools call it: retreat phases with options in provinces with coasts,
and retreat options that cannot be are refused with one line on stderr and exit 2; ``--jsonl``
answers line by line; the command loads the core only (no store, no configuration)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

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


def test_jsonl_answers_the_lines_before_a_bad_one_and_names_the_bad_line() -> None:
    good = {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}}
    text = json.dumps(good) + "\n\n{not json\n" + json.dumps(good) + "\n"
    out = subprocess.run([JUDGE_EXE, "adjudicate", "--jsonl"], input=text, capture_output=True,
                         text=True, timeout=60, check=False)
    assert out.returncode == 2
    assert len(out.stdout.splitlines()) == 1 and json.loads(out.stdout)["phase"] == "S1901M"
    assert out.stderr.startswith("judge: line 3: not valid JSON") and out.stderr.count("\n") == 1


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
                       "from judge.cli import main\nmain(['adjudicate', '--jsonl'])")
    assert "'judge.core'" in loaded
    for heavy in ("sqlalchemy", "alembic", "jinja2", "aiosmtpd", "'judge.store'",
                  "'judge.config'", "'judge.service'", "'judge.mail'"):
        assert heavy not in loaded, heavy


def test_the_command_goes_straight_to_adjudicating_without_the_command_line() -> None:
    """judge.launch: `judge adjudicate` loads neither click nor the other commands; anything
    else (its --help too) is the full command line."""
    output, loaded = _probe("sorted(m for m in sys.modules if m in ('click', 'judge.cli', "
                            "'logging'))", "sys.argv = ['judge', 'adjudicate', '--jsonl']\n"
                            "from judge.launch import main\nmain()")
    assert json.loads(output)["next_phase"] == "F1901M"
    assert loaded == "[]"
    helped = subprocess.run([JUDGE_EXE, "adjudicate", "--help"], capture_output=True,
                            text=True, timeout=60, check=False)
    assert helped.returncode == 0 and "--jsonl" in helped.stdout
    bad = subprocess.run([JUDGE_EXE, "adjudicate", "--nonsense"], capture_output=True,
                         text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "No such option" in bad.stderr
