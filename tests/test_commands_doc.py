"""docs/commands.md holds the command reference generated from the command registry.

The part between the two markers is exactly what :func:`reference` writes, so the document
cannot drift from the commands the judge really has.  After adding or changing a command, run
``python tests/test_commands_doc.py`` to rewrite that part.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "commands.md"
BEGIN, END = "<!-- generated from the command registry: begin -->", \
    "<!-- generated from the command registry: end -->"


def _who(roles) -> str:
    from judge.commands.registry import Role
    if roles & Role.ANYONE:
        return "anyone"
    names = [name for flag, name in ((Role.MASTER, "master"), (Role.POWER, "player"),
                                     (Role.OBSERVER, "observer")) if roles & flag]
    return ", ".join(names)


def reference() -> str:
    import judge.commands.handlers  # noqa: F401  (importing the handlers registers them)
    from judge.commands.registry import all_commands
    lines = ["| Command | Who | Syntax | What it does |", "|---|---|---|---|"]
    for spec in all_commands():
        syntax = spec.syntax.replace("|", "\\|")
        summary = spec.summary.replace("|", "\\|").replace("\n", " ")
        if spec.states:
            summary += f" (game states: {', '.join(sorted(str(s) for s in spec.states))})"
        lines.append(f"| {spec.name} | {_who(spec.roles)} | `{syntax}` | {summary} |")
    return "\n".join(lines)


def _generated_part(text: str) -> str:
    assert text.count(BEGIN) == 1 and text.count(END) == 1, f"{DOC} has lost its markers"
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def _with_reference(text: str) -> str:
    head, rest = text.split(BEGIN, 1)
    return f"{head}{BEGIN}\n{reference()}\n{END}{rest.split(END, 1)[1]}"


def test_the_command_reference_is_the_registry() -> None:
    assert _generated_part(DOC.read_text("utf-8")) == reference(), (
        "docs/commands.md differs from the command registry: run "
        "`python tests/test_commands_doc.py` and review the change")


def test_every_command_has_a_syntax_and_a_summary() -> None:
    import judge.commands.handlers  # noqa: F401
    from judge.commands.registry import all_commands
    for spec in all_commands():
        assert spec.summary.strip(), f"{spec.name} has no summary"
        assert spec.syntax.upper().startswith(spec.name), f"{spec.name}: syntax {spec.syntax!r}"


if __name__ == "__main__":
    sys.path.insert(0, str(DOC.parent.parent))
    text = DOC.read_text("utf-8")
    DOC.write_text(_with_reference(text), "utf-8")
    print(f"rewrote the command reference in {DOC}")
