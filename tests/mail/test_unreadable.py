"""Why a mail could not be read is a code and facts (judge.mail.reading.bounds.Unreadable), worded by
``templates/unreadable_reasons.txt``: read from the source, every code raised has its macro
there and every macro is raised, each with the facts its raises pass, and each renders.  The
replies themselves are tested by mail (tests/mail/test_hostile_reading.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from jinja2.runtime import Macro

from judge.mail.writing.compose import make_environment

PACKAGE = Path(__file__).resolve().parent.parent.parent / "judge"
SAMPLES = {"limit": 20, "header": "From", "error": "RecursionError"}


def _raised() -> dict[str, set[frozenset[str]]]:
    """Each code raised as ``Unreadable("<code>", fact=…)``, with the facts of each raise."""
    found: dict[str, set[frozenset[str]]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Unreadable":
                code = node.args[0]
                assert isinstance(code, ast.Constant) and isinstance(code.value, str), \
                    f"{path}:{node.lineno}: the code must be a literal"
                facts = frozenset(k.arg for k in node.keywords if k.arg is not None)
                found.setdefault(code.value, set()).add(facts)
    return found


def _macros() -> dict[str, Macro]:
    module = make_environment().get_template("unreadable_reasons.txt").module
    return {name: value for name, value in vars(module).items() if isinstance(value, Macro)}


def test_every_code_raised_has_its_macro_and_every_macro_is_raised() -> None:
    raised = _raised()
    assert raised, "no Unreadable raised anywhere: the source scan is broken"
    assert set(raised) == set(_macros())


def test_each_raise_passes_the_facts_its_macro_takes_and_each_renders() -> None:
    macros = _macros()
    for code, fact_sets in _raised().items():
        for facts in fact_sets:
            assert facts == set(macros[code].arguments), (code, facts)
            text = str(macros[code](**{fact: SAMPLES[fact] for fact in facts}))
            assert text and text == text.strip() and text[0].islower() and \
                not text.endswith("."), (code, text)
