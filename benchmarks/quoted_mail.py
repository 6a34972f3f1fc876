#!/usr/bin/env python3
"""What reading a mail that quotes or pastes the judge's own mail costs, before any command runs.

Usage::

    .venv/bin/python benchmarks/quoted_mail.py [--runs 5]

Each mail is read as the worker reads it (judge.mail.reading.message.read_message: the text, quoted
lines, where an original begins) and planned (judge.commands.prepare.plan: its lines made
commands, orders, lines of the judge's own, closings), the two steps before execution; the
figure is the median CPU time of ``--runs`` rounds (``time.process_time``), per mail.  The
mails: a SIGNON and four orders; the same above the results of docs/mail-format.md quoted
under an Outlook header block, under a Gmail attribution with ``>``, and pasted with no
header; and three full-size (256 KB) hostile mails, of pasted results, of ``Thanks!`` lines
and of attribution lines.  Printed first: what the first mail with a line that is no command
costs a worker once, for learning the shapes of the judge's templates.

Not part of the test run; prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDERS = "SIGNON Gwar1901 secret\nA Ruh-Bel\nF Hol S A Ruh-Bel\nA Kie-Den\nA Mun H\n"
# a full-size mail, as intake takes it (256 KB)
FULL = 256 * 1024


def results() -> str:
    """The movement results of docs/mail-format.md, without the Subject line."""
    doc = (ROOT / "docs" / "mail-format.md").read_text("utf-8")
    block = doc.split("### Movement results", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    return re.sub(r"\ASubject: .*\n\n", "", block)


def mails() -> dict[str, bytes]:
    sample = results()
    quoted = "\n".join(f"> {line}".rstrip() for line in sample.split("\n"))
    outlook = ("Von: Judge <judge@example.org>\nGesendet: Montag, 23. November 2026 10:00\n"
               "An: player@example.org\nBetreff: JUDGE:war1901 - F1901M Results\n\n")
    bodies = {
        "orders": ORDERS,
        "orders, Outlook block": f"{ORDERS}\n{outlook}{sample}",
        "orders, Gmail quote": f"{ORDERS}\nOn Mon, Nov 23, 2026 at 10:00 AM Judge"
                               f" <judge@example.org> wrote:\n{quoted}\n",
        "orders, results pasted": f"{ORDERS}\n{sample}",
        "256 KB of pasted results": (sample * (FULL // len(sample)))[:FULL],
        "256 KB of Thanks!": ("Thanks!\n" * (FULL // 8)),
        "256 KB of attributions": ("On Mon, X wrote:\n" * (FULL // 17)),
    }
    out = {}
    for name, body in bodies.items():
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = ("p@example.org", "judge@example.org",
                                                  "Re: results")
        msg.set_content(body)
        out[name] = msg.as_bytes()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    import judge.commands.handlers  # noqa: F401  (registers the commands)
    from judge.commands.prepare import plan
    from judge.mail.reading.message import read_message

    def read_and_plan(raw: bytes) -> None:
        mail = read_message(raw, envelope_sender="p@example.org",
                            judge_address="judge@example.org")
        plan(mail.lines, 200)

    every = mails()
    start = time.process_time()
    read_and_plan(every["orders, results pasted"])
    print(f"first mail with a line that is no command: {1000 * (time.process_time() - start):.0f}"
          " ms of CPU (once a process)")
    for name, raw in every.items():
        rounds = []
        for _ in range(args.runs):
            start = time.process_time()
            read_and_plan(raw)
            rounds.append(time.process_time() - start)
        print(f"{name:28} {len(raw):>7} bytes  {1000 * statistics.median(rounds):9.2f} ms")


if __name__ == "__main__":
    main()
