"""Mails whose shape, more than their size, made reading them dear: built as an attacker sends
them, for the tests that mail them to a running judge (test_hostile_reading.py,
test_hostile_intake.py).  Every line is short enough for SMTP (at most 998 characters)."""

from __future__ import annotations

import base64

JUDGE = "judge@example.org"


def _mail(headers: list[tuple[str, str]], body: str) -> bytes:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    return (head + "\r\n" + body.replace("\r\n", "\n").replace("\n", "\r\n")).encode()


def nested_html(sender: str, message_id: str, tags: int = 15_000, lines: int = 2_000) -> bytes:
    """An HTML-only mail of ``tags`` unclosed ``<i>`` and ``lines`` lines after them (75 KB,
    base64, by default): it held the worker 100 s, quadratic in the nesting."""
    html = "<i>" * tags + "a<br>" * lines
    return _mail([("From", sender), ("To", JUDGE), ("Subject", "nested"),
                  ("Message-ID", message_id), ("MIME-Version", "1.0"),
                  ("Content-Type", "text/html; charset=utf-8"),
                  ("Content-Transfer-Encoding", "base64")],
                 base64.encodebytes(html.encode()).decode())


def many_from(sender: str, message_id: str, count: int = 24_000) -> bytes:
    """A From: of ``count`` addresses, ``sender`` first, folded into lines of about 900
    characters (4.4 s of the header parser, then a reply to ``sender``)."""
    lines, line = [], f"From: {sender},"
    for n in range(count - 1):
        address = f" a{n % 10}@x.y,"
        if len(line) + len(address) > 900:
            lines.append(line)
            line = ""
        line += address
    lines.append(line.rstrip(","))
    return _mail([("To", JUDGE), ("Subject", "many"), ("Message-ID", message_id)],
                 "VERSION\n").replace(b"To:", "\r\n".join(lines).encode() + b"\r\nTo:", 1)


def deep_mime(sender: str, message_id: str, depth: int = 1_000,
              headers: tuple[tuple[str, str], ...] = ()) -> bytes:
    """``depth`` multiparts, each the first part of the last, with VERSION at the bottom: 1,000
    levels exhausted Python's recursion, and then the raw headers and boundaries were read as
    commands, past the robot checks."""
    body = "".join(f"--b{n}\nContent-Type: multipart/mixed; boundary=b{n + 1}\n\n"
                   for n in range(depth))
    body += f"--b{depth}\nContent-Type: text/plain\n\nVERSION\n"
    return _mail([("From", sender), ("To", JUDGE), ("Subject", "deep"),
                  ("Message-ID", message_id), *headers, ("MIME-Version", "1.0"),
                  ("Content-Type", "multipart/mixed; boundary=b0")], body)
