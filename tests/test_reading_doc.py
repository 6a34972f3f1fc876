"""The tables of "How the judge reads a mail" in docs/commands.md are what the judge does: each
example is read from the page and given to the judge's own reading of a mail (judge.mail.
body_lines, then judge.commands.parse), so the page cannot drift from the judge."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import judge.commands.handlers  # noqa: F401  (registers the commands)
from judge.commands.parse import Command, JudgeLine, OtherLine, read_items
from judge.mail.reading.body_lines import read_body

DOC = Path(__file__).resolve().parent.parent / "docs" / "commands.md"
CODE = re.compile(r"`([^`]+)`")


def _section() -> str:
    text = DOC.read_text("utf-8")
    return text.split("## How the judge reads a mail", 1)[1].split("\n## ", 1)[0]


def _rows(header: str) -> list[tuple[str, str]]:
    """The rows (first cell, second cell) of every table of the section with this header."""
    rows = []
    for table in re.findall(rf"\| {re.escape(header)} \|\n\|---\|---\|\n((?:\|.*\|\n)+)",
                            _section()):
        for row in table.strip().split("\n"):
            first, second = (cell.strip() for cell in row.strip("|").split(" | ", 1))
            rows.append((first, second))
    return rows


def _originals() -> list[list[str]]:
    """Each example of where an original begins, as its lines ("X over Y": two lines)."""
    found = []
    for _, examples in _rows("An original begins at | For example"):
        for example in re.findall(r"`[^`]+`(?: over `[^`]+`)*", examples):
            found.append(CODE.findall(example))
    return found


@pytest.mark.parametrize("lines", _originals(), ids=lambda lines: lines[0][:40])
def test_where_an_original_begins(lines: list[str]) -> None:
    text = "\n".join(["A Par-Bur", *lines, "A Mar-Spa", "F Bre H"])
    body = read_body(text)
    assert body.lines == ["A Par-Bur"], body
    assert body.original == lines[0] and body.quoted == len(lines) + 2


def _examples() -> list[tuple[str, str]]:
    return _rows("Line | Read as")


@pytest.mark.parametrize("cell, verdict", _examples(), ids=lambda v: str(v)[:40])
def test_how_a_line_is_read(cell: str, verdict: str) -> None:
    line, *others = CODE.findall(cell)
    where = cell.split("`")[2].strip()
    if where.startswith("under"):
        mail = [*others, line]
    elif where.startswith("above"):
        mail = [line, *others]
    elif where == "on the last line":
        mail = ["SIGNON Fwar1901 secret", "A Par-Bur", line]
    else:
        mail = ["SIGNON Fwar1901 secret", line, "F Bre H"] if verdict != "the end" else \
            ["SIGNON Fwar1901 secret", "A Par-Bur", line]
    body = read_body("\n".join(mail))
    items = {item.line_no: item for item in read_items(body.lines)}
    item = items.get(mail.index(line) + 1)
    if verdict == "the judge's":
        assert isinstance(item, JudgeLine), items
    elif verdict == "read":
        assert isinstance(item, (Command, OtherLine)) and item.text == line.strip(), items
    elif verdict == "the end":
        assert item is None and max(items) < mail.index(line) + 1, items
    else:
        assert verdict == "passed over", verdict
        assert item is None and max(items) > mail.index(line) + 1, items
