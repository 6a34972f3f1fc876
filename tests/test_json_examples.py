"""Every JSON example in the documentation (docs/, README.md, deploy/) is run through the
real ``judge adjudicate``: an input example must be adjudicated, and the output example after
it must be exactly what the command prints for it (``--jsonl`` examples line by line, with
their error objects); a line the command writes on stderr must be quoted in the document.

An example is a fenced ``json`` or ``jsonl`` block, or an ``echo '{…}' | judge adjudicate``
in a ``sh`` block.  A JSON block that is neither an input nor an output of the command fails
the test: whoever adds one says here what runs it."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import JUDGE_EXE

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted([*ROOT.glob("docs/*.md"), ROOT / "README.md", *ROOT.glob("deploy/**/*.md")])
INPUT_KEYS = {"variant", "phase", "units", "centers", "dislodged", "orders"}
OUTPUT_KEYS = {"phase", "results", "units", "dislodged", "centers", "next_phase"}
ERROR_KEYS = {"error", "line"}

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
ECHO = re.compile(r"echo '(\{.*?\})'\s*\\?\s*\|\s*\S*judge adjudicate( --jsonl)?", re.S)


@dataclass
class Example:
    where: str
    jsonl: bool
    objects: list[Any]
    output: bool


def _kind(obj: Any, where: str) -> bool:
    """Whether ``obj`` is an output of the command (else an input); neither fails."""
    assert isinstance(obj, dict), f"{where}: a JSON example that is not an object"
    if set(obj) == OUTPUT_KEYS or set(obj) == ERROR_KEYS:
        return True
    assert "phase" in obj and set(obj) <= INPUT_KEYS, \
        f"{where}: a JSON example that is neither an input nor an output of judge adjudicate"
    return False


def _example(where: str, jsonl: bool, text: str) -> Example:
    lines = [line for line in text.splitlines() if line.strip()] if jsonl else [text]
    objects = [json.loads(line) for line in lines]
    kinds = {_kind(obj, where) for obj in objects}
    assert len(kinds) == 1, f"{where}: inputs and outputs mixed in one example"
    return Example(where, jsonl, objects, kinds.pop())


def examples(path: Path) -> list[Example]:
    text = path.read_text(encoding="utf-8")
    found = []
    for block in FENCE.finditer(text):
        info, body = block.group(1), block.group(2)
        where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, block.start()) + 1}"
        if info in ("json", "jsonl"):
            found.append(_example(where, info == "jsonl", body))
        else:
            for echo in ECHO.finditer(body):
                found.append(_example(where, bool(echo.group(2)), echo.group(1)))
    return found


def adjudicate(example: Example) -> subprocess.CompletedProcess[str]:
    text = "".join(json.dumps(obj) + "\n" for obj in example.objects)
    return subprocess.run([JUDGE_EXE, "adjudicate", *(["--jsonl"] if example.jsonl else [])],
                          input=text, capture_output=True, text=True, timeout=60, check=False)


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_json_example_is_what_judge_adjudicate_does(path: Path) -> None:
    found = examples(path)
    for i, example in enumerate(found):
        if example.output:
            before = found[i - 1] if i else None
            assert before is not None and not before.output and before.jsonl == example.jsonl, \
                f"{example.where}: an output example without its input just before it"
            continue
        done = adjudicate(example)
        answers = [json.loads(line) for line in done.stdout.splitlines()] if example.jsonl \
            else [json.loads(done.stdout)]
        refused = [a for a in answers if "error" in a]
        # the command's exit status and stderr are as documented: 2 with one line, quoted
        # in the document, when some line is refused
        assert done.returncode == (2 if refused else 0), (example.where, done.stderr)
        if refused:
            assert _words(done.stderr) in _words(path.read_text(encoding="utf-8")), done.stderr
        assert all(set(a) in (OUTPUT_KEYS, ERROR_KEYS) for a in answers), example.where
        after = found[i + 1] if i + 1 < len(found) else None
        if after is not None and after.output:
            assert after.objects == answers, f"{after.where}: not what judge adjudicate prints"


def test_the_documents_have_the_examples_this_test_runs() -> None:
    """The contract's own document shows a movement phase, the retreat phase after it and a
    --jsonl stream with a refused line, each with its output; the README one input."""
    contract = examples(ROOT / "docs" / "adjudication-json.md")
    assert [(e.jsonl, e.output) for e in contract] == [
        (False, False), (False, True), (False, False), (False, True), (True, False),
        (True, True)]
    assert any("error" in obj for obj in contract[-1].objects)
    assert [e.output for e in examples(ROOT / "README.md")] == [False]
