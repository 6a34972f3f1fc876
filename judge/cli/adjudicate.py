"""``judge adjudicate``: a position as JSON on stdin, the outcome as JSON on stdout.

Only the core is imported (judge.core.jsonio): no store, configuration, mail or click, so the
command starts quickly (judge.cli.launch calls it directly; judge.cli.main's ``adjudicate`` too).

With ``--jsonl`` a line that cannot be adjudicated never ends the stream: its place in the
output holds an error object, every other line is adjudicated, and the exit status says at
the end that some lines were refused (docs/adjudication-json.md).
"""

from __future__ import annotations

import json
import sys

# exit statuses: bad input (a document refused, or with --jsonl some lines refused), and a
# fault of the judge's own on some line (as Python's own exit status for an uncaught error)
REFUSED = 2
FAULT = 1


def adjudicate(jsonl: bool) -> int:
    """Run the command; its exit status (see :data:`REFUSED` and :data:`FAULT`)."""
    if jsonl:
        return _adjudicate_lines()
    from judge.core.errors import InputError
    from judge.core.jsonio import adjudicate_document, decode_json

    data = sys.stdin.buffer.read()
    if not data.strip():
        return _fail("no input: give a JSON position on stdin")
    try:
        result = adjudicate_document(decode_json(data))
    except InputError as exc:
        return _fail(str(exc))
    sys.stdout.write(json.dumps(result, indent=1) + "\n")
    return 0


def _adjudicate_lines() -> int:
    """``--jsonl``: one output line for each line that is not blank, written as soon as it is
    adjudicated: the result, or ``{"error": why, "line": n}``."""
    from judge.core.errors import InputError
    from judge.core.jsonio import adjudicate_json

    out, given = sys.stdout.buffer, 0
    refused: list[tuple[int, str]] = []
    faults = 0
    for n, line in enumerate(sys.stdin.buffer, 1):
        if not line.strip():
            continue
        given += 1
        # (the try costs nothing when nothing is raised: the speed of the stream is kept)
        try:
            result = adjudicate_json(line)
        except InputError as exc:
            refused.append((n, exc.message))
            result = _error_object(exc.message, n)
        except Exception as exc:  # noqa: BLE001 - a fault of the judge's on one position must
            # not lose the positions after it: said on its line and on stderr, and the rest go on
            import traceback

            traceback.print_exc()
            faults += 1
            result = _error_object(f"internal error: {type(exc).__name__}: {exc}", n)
        out.write(result + b"\n")
    if not given:
        return _fail("no input: give a JSON position on stdin")
    if faults:
        return _fail(f"{faults} of {given} lines failed on an internal error (traceback above)",
                     FAULT)
    if refused:
        n, why = refused[0]
        return _fail(f"{len(refused)} of {given} lines refused, each answered by an error "
                     f"object in its place; the first, line {n}: {why}")
    return 0


def _error_object(why: str, line: int) -> bytes:
    # compact, as the results are
    return json.dumps({"error": why, "line": line}, separators=(",", ":"),
                      ensure_ascii=False).encode()


def _fail(message: str, status: int = REFUSED) -> int:
    sys.stdout.flush()
    print(f"judge: {message}", file=sys.stderr)
    return status
