"""The ``judge`` command's entry point.

``judge adjudicate`` (with ``--jsonl`` or without) goes straight to its work: it needs only
the core, and loading the whole command line (click and every command's definition) was a
sixth of its start-up, which programs that call it once a position pay each time.  Anything
else, ``judge adjudicate --help`` included, goes to the full command line (judge.cli.main).

Every command ends through :func:`finish`, which does what the interpreter does at exit except
take every module apart one object at a time: that last step cost ~75 ms of CPU after a
command that opened the database, and ~170 ms after ``judge serve`` (SQLAlchemy, the
templates, the pipeline), at every stop of the daemon and every command a script runs.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def main() -> None:
    try:
        _run(sys.argv[1:])
    except SystemExit as stop:
        finish(stop.code)
    finish(0)


def _run(args: list[str]) -> None:
    if args[:1] == ["adjudicate"] and set(args[1:]) <= {"--jsonl"}:
        from judge.cli.adjudicate import adjudicate

        sys.exit(adjudicate(jsonl="--jsonl" in args))
    from judge.cli.main import main as command_line

    command_line()


def finish(status: object) -> NoReturn:
    """End the process with ``status`` (what ``sys.exit`` was given) as the interpreter would:
    wait for the threads that are not daemons (thread pools are told to stop first), run the
    exit handlers (logging flushes and closes its files there), flush standard output and
    error; then leave without tearing the modules down, which frees memory the process is about
    to give back anyway.  An exception other than SystemExit never comes here: it ends the
    process the ordinary way, with its traceback."""
    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status
    else:  # sys.exit("message"): the message on standard error, exit status 1
        print(status, file=sys.stderr)
        code = 1
    # what Py_FinalizeEx does first: join the non-daemon threads, after telling
    # concurrent.futures' pools to stop (their exit hooks are registered with threading)
    shutdown_threads = getattr(threading, "_shutdown", None)
    if shutdown_threads is not None:
        shutdown_threads()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            # a closed pipe (``judge ... | head``): the interpreter exits 120 then
            code = code or 120
    os._exit(code)
