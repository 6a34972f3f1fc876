"""The ``judge`` command's entry point.

``judge adjudicate`` (with ``--jsonl`` or without) goes straight to its work: it needs only
the core, and loading the whole command line (click and every command's definition) was a
sixth of its start-up, which programs that call it once a position pay each time.  Anything
else, ``judge adjudicate --help`` included, goes to the full command line (judge.cli).
"""

from __future__ import annotations

import sys


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["adjudicate"] and set(args[1:]) <= {"--jsonl"}:
        from judge.adjudicate_cli import adjudicate

        sys.exit(adjudicate(jsonl="--jsonl" in args))
    from judge.cli import main as command_line

    command_line()
