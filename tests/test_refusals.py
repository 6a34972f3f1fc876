"""Refusals carry a code and facts, and ``templates/refusals.txt`` words them: read from the
source.

The service refuses with ``GameError("<code>", fact=value, ...)`` (or a subclass of it) and the
words are the macro ``<code>`` of the template (``judge.mail.writing.refusals``).  These tests check,
without running the judge, that every refusal raised anywhere in the judge names its code as a
snake_case literal, that each code has its macro and each macro its raise, that each raise
passes exactly the facts its macro takes, and that every macro renders.  The replies themselves
are tested by mail (``tests/game/test_refusals_by_mail.py`` and the tests of each command).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from jinja2.runtime import Macro

from judge.mail.writing.refusals import refusal_text, refusals
from judge.service.errors import GameError

PACKAGE = Path(__file__).resolve().parent.parent / "judge"
CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")

# One value of each fact, by its name: a fact means the same thing (and has the same type)
# wherever it is passed, so one sample serves every macro that takes it.
SAMPLES: dict[str, Any] = {
    "address": "someone@example.org",
    "allowed": True,
    "at_war": True,
    "builds": 2,
    "by_master": True,
    "command": "SET DRAW",
    "days": 14,
    "default": 10,
    "detail": "ZeroDivisionError: division by zero",
    "first": "FRANCE",
    "game": "war1901",
    "item": "A Xyz",
    "known": ["standard", "formal"],
    "last_year": 1910,
    "least": 3,
    "letters": ["A", "E", "F"],
    "letter": "F",
    "limit": 3,
    "line": "F DWO G",
    "lines": 1400,
    "longest": 64,
    "mode": "NoDIAS",
    "most": 34,
    "name": "war1901",
    "near": ("Ukraine", "Bohemia"),
    "order_type": "R",
    "owner": "GERMANY",
    "phase": "S1901M",
    "phase_type": "A",
    "place": "St Petersburg (south coast)",
    "played": ["S1901M", "F1901M"],
    "points": 12,
    "power": "FRANCE",
    "province": "Belgium",
    "public": True,
    "reason": "refused: the core's own words",
    "removals": 1,
    "role": "F",
    "rule": "NO_DIAS",
    "size": 247000,
    "second": "GERMANY",
    "state": "active",
    "syntax": "HISTORY war1901 PRIVACY <password>",
    "text": "next week",
    "tournament": "cup",
    "turns": 99,
    "unit": "Army Paris",
    "until": datetime(2026, 12, 1, 18, 5, tzinfo=timezone.utc),
    "variant": "Standard",
    "victory": True,
    "what": "processing S1901M (master's PROCESS)",
    "word": "noon",
    "written": 100,
}


@dataclass(frozen=True)
class Raise:
    """One construction of a refusal in the source."""

    where: str
    cls: str
    code: str | None  # None: the first argument is not a string literal
    facts: frozenset[str]
    extra: tuple[str, ...]  # what else is wrong with the call (positional facts, **splats)


def _sources() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text("utf-8")) for path in sorted(PACKAGE.rglob("*.py"))}


def _base_names(node: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
            if isinstance(b, (ast.Name, ast.Attribute))}


def _refusal_classes(sources: dict[Path, ast.Module]) -> dict[str, set[str]]:
    """GameError and its subclasses, each with its own parameters besides the code and the
    facts (CountedRefusal's ``count``, ProcessingFault's ``events``), which are no facts."""
    defs = {node.name: node for tree in sources.values() for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)}
    found = {"GameError": set[str]()}
    grew = True
    while grew:
        grew = False
        for name, node in defs.items():
            parents = _base_names(node) & found.keys()
            if name in found or not parents:
                continue
            own = set().union(*(found[p] for p in parents))
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    own = {a.arg for a in item.args.args + item.args.kwonlyargs} - {"self", "code"}
            found[name] = own
            grew = True
    return found


@cache  # read when a test asks, not when the module is collected (in every test process)
def raises() -> list[Raise]:
    sources = _sources()
    classes = _refusal_classes(sources)
    found: list[Raise] = []
    for path, tree in sources.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else None)
            if name not in classes:
                continue
            first = node.args[0] if node.args else None
            code = first.value if isinstance(first, ast.Constant) and isinstance(
                first.value, str) else None
            extra = [f"positional argument {i + 1}" for i in range(1, len(node.args))]
            extra += ["**" + ast.unparse(k.value) for k in node.keywords if k.arg is None]
            facts = frozenset(k.arg for k in node.keywords
                              if k.arg is not None and k.arg not in classes[name])
            found.append(Raise(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", name, code,
                               facts, tuple(extra)))
    return found



def _macros() -> dict[str, Macro]:
    return {name: macro for name, macro in vars(refusals()).items() if isinstance(macro, Macro)}


def test_the_scan_sees_the_service_refusals() -> None:
    """The scan reads the whole judge; it must find the service's refusals (or it tests
    nothing) and every kind of refusal class."""
    in_service = [r for r in raises() if r.where.startswith("judge/service/")]
    assert len(in_service) > 100
    assert {r.cls for r in raises()} >= {"GameError", "CountedRefusal", "WrongPassword",
                                       "ProcessingFault"}


def test_every_refusal_names_a_snake_case_code_and_its_facts_by_name() -> None:
    wrong = [f"{r.where}: {r.cls}(...) must start with a snake_case code literal"
             for r in raises() if r.code is None or not CODE.fullmatch(r.code)]
    wrong += [f"{r.where}: {r.cls}(...) passes its facts as fact=value only, not {e}"
              for r in raises() for e in r.extra]
    assert wrong == []


def test_every_code_has_its_words_and_every_words_its_code() -> None:
    codes = {r.code for r in raises() if r.code is not None}
    macros = set(_macros())
    assert sorted(codes - macros) == [], "refusal codes without a macro in templates/refusals.txt"
    assert sorted(macros - codes) == [], "macros in templates/refusals.txt that nothing raises"


def test_every_refusal_passes_exactly_the_facts_its_words_take() -> None:
    macros = _macros()
    wrong = [f"{r.where}: {r.code} passes {sorted(r.facts)}, its macro takes "
             f"{sorted(macros[r.code].arguments)}"
             for r in raises() if r.code in macros and r.facts != set(macros[r.code].arguments)]
    assert wrong == []
    # facts the macro does not name would be refused at render time; none may be swallowed
    assert [name for name, macro in macros.items() if macro.catch_kwargs] == []


@pytest.mark.parametrize("code", sorted(_macros()))
def test_every_refusal_renders_as_one_line(code: str) -> None:
    arguments = _macros()[code].arguments
    assert set(arguments) <= SAMPLES.keys(), "give each new fact a sample in SAMPLES"
    facts = {name: SAMPLES[name] for name in arguments}
    # every yes/no fact both ways: each branch of the words must render
    flags = [name for name in arguments if isinstance(SAMPLES[name], bool)]
    for flipped in [None, *flags]:
        given = {**facts, **({flipped: not facts[flipped]} if flipped else {})}
        text = refusal_text(GameError(code, **given))
        assert text and text == text.strip() and "\n" not in text, repr(text)
        assert "{" not in text and "Undefined" not in text, text


def test_a_fact_may_be_missing_only_where_the_words_say_so() -> None:
    assert refusal_text(GameError("position_province", word="Xyz", reason=None)) == \
        '"Xyz" is not a province'
    assert refusal_text(GameError("no_open_absence", by_master=True, power=None)) == \
        "That player has announced no absence that is not over."


def test_a_refusal_words_itself_only_through_its_template() -> None:
    """str() of a refusal is for logs: the code and the facts, never the reply's words."""
    error = GameError("no_such_game", name="nosuch")
    assert str(error) == "no_such_game(name='nosuch')"
    assert refusal_text(error) == 'no game named "nosuch" on this judge.'


def test_the_words_keep_the_judge_s_grammar() -> None:
    """The helpers of the template: articles, plurals, capitalised powers, the core's
    "refused: " said once."""
    def words(code: str, **facts: Any) -> str:
        return refusal_text(GameError(code, **facts))

    assert words("wrong_phase_order", order_type="A", phase_type="M") == \
        "that is an adjustment order, but this is a movement phase."
    assert words("formal_order_phase", phase_type="R") == (
        "DWO, SUR, SOI and Undo SOI are given in movement phases, and this is a retreat phase.")
    assert words("absence_too_long", game="g", days=1) == \
        "an absence in g may last at most 1 day (the master's SET MAX ABSENCE)."
    assert words("absence_too_long", game="g", days=2) == \
        "an absence in g may last at most 2 days (the master's SET MAX ABSENCE)."
    assert words("not_your_unit", unit="Army Kiel", owner="GERMANY", power="FRANCE") == \
        "the Army Kiel is Germany's, not France's."
    assert words("surrender_refused", reason="refused: France is at war with nobody") == \
        "you cannot surrender: France is at war with nobody."
    assert words("signon_sender_waits", role="F", game="g", until=SAMPLES["until"]) == \
        "too many failed sign-ons for Fg; try again after 18:05 UTC."
    assert words("vote_command_unused", command="VOTE YES", game="g", mode="DIAS") == (
        "VOTE YES is not used in g, which votes by DIAS: its votes are SET DRAW, SET NODRAW,"
        " SET CONCEDE <power> and SET NOCONCEDE (GET DRAWS explains them).")
