"""``judge adjudicate``: a position as JSON on stdin, the outcome as JSON on stdout.

Only the core is imported (judge.core.jsonio): no store, configuration, mail or click, so the
command starts quickly (judge.launch calls it directly; judge.cli's ``adjudicate`` too).
"""

from __future__ import annotations

import json
import sys


def adjudicate(jsonl: bool) -> int:
    """Run the command; its exit status (2, with one line on stderr, for bad input)."""
    from judge.core.errors import InputError
    from judge.core.jsonio import adjudicate_document, adjudicate_json, decode_json

    if jsonl:
        # one line at a time, each written as soon as it is adjudicated
        out, given = sys.stdout.buffer, 0
        for n, line in enumerate(sys.stdin.buffer, 1):
            if not line.strip():
                continue
            given += 1
            try:
                out.write(adjudicate_json(line) + b"\n")
            except InputError as exc:
                return _fail(f"line {n}: {exc}")
        return _fail("no input: give a JSON position on stdin") if not given else 0
    data = sys.stdin.buffer.read()
    if not data.strip():
        return _fail("no input: give a JSON position on stdin")
    try:
        result = adjudicate_document(decode_json(data))
    except InputError as exc:
        return _fail(str(exc))
    sys.stdout.write(json.dumps(result, indent=1) + "\n")
    return 0


def _fail(message: str) -> int:
    sys.stdout.flush()
    print(f"judge: {message}", file=sys.stderr)
    return 2
