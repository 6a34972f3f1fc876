"""The README walk-through test's own steps inside the sandbox, between and after the README's
blocks: waiting for the judge's replies in Postfix's queue, and mailing the judge from outside
the host.  What they find goes to ``$WALKTHROUGH_OUT`` for the test to assert on.

``await-reply N``: waits until Postfix has taken N mails from the judge's address (read from
/etc/judge/judge.toml) and saves each as ``replies/<queue id>.eml``.  The sandbox has no
network, so replies to outside addresses stay in Postfix's queue, where they are read.

``mail-from-outside``: speaks SMTP to Postfix on 127.0.0.1:25 as another site's mail server
would: a mail for ``judge+probe@`` the judge's domain is taken, one for ``nobody@`` it is
refused; the answers are saved as ``mail-from-outside.json``.

Run as ``checkpoints.py TOOL ARGS``; stdlib only (the sandbox's python3).
"""

from __future__ import annotations

import json
import os
import smtplib
import subprocess
import sys
import time
import tomllib
from email.message import EmailMessage
from pathlib import Path

OUT = Path(os.environ.get("WALKTHROUGH_OUT", "."))
PROBE_SENDER = "player@elsewhere.test"


def judge_address() -> str:
    with open("/etc/judge/judge.toml", "rb") as f:
        return tomllib.load(f)["judge"]["address"]


def queued_from(sender: str) -> list[str]:
    """The queued mails the judge sent: from its address, or from a return path of its own
    (``judge+bounce-<token>@…``, one per recipient)."""
    local, _, domain = sender.rpartition("@")
    listing = subprocess.run(["postqueue", "-j"], capture_output=True, text=True, check=True)
    entries = [json.loads(line) for line in listing.stdout.splitlines() if line.strip()]
    return [e["queue_id"] for e in entries if e["sender"] == sender
            or (e["sender"].startswith(f"{local}+bounce-") and e["sender"].endswith(f"@{domain}"))]


def await_reply(count: int, timeout: float = 40) -> int:
    sender = judge_address()
    deadline = time.monotonic() + timeout
    saved = OUT / "replies"
    saved.mkdir(parents=True, exist_ok=True)
    while time.monotonic() < deadline:
        for queue_id in queued_from(sender):
            target = saved / f"{queue_id}.eml"
            if not target.exists():
                message = subprocess.run(["postcat", "-h", "-b", "-q", queue_id],
                                         capture_output=True, check=False).stdout
                if message:
                    target.write_bytes(message)
        if len(list(saved.iterdir())) >= count:
            return 0
        time.sleep(0.2)
    print(f"await-reply: fewer than {count} mail(s) from {sender} reached Postfix in "
          f"{timeout:.0f} s", file=sys.stderr)
    subprocess.run(["postqueue", "-p"])
    return 1


def mail_from_outside() -> int:
    domain = judge_address().partition("@")[2]
    msg = EmailMessage()
    msg["From"] = PROBE_SENDER
    msg["To"] = f"judge+probe@{domain}"
    msg["Subject"] = "from outside"
    msg["Message-ID"] = "<probe-1@elsewhere.test>"
    msg.set_content("VERSION\n")
    answers: dict[str, object] = {}
    with smtplib.SMTP("127.0.0.1", 25, timeout=30) as smtp:
        smtp.ehlo("mail.elsewhere.test")
        smtp.mail(PROBE_SENDER)
        answers["judge+probe"] = smtp.rcpt(f"judge+probe@{domain}")[0]
        answers["nobody"] = smtp.rcpt(f"nobody@{domain}")[0]
        answers["data"] = smtp.data(msg.as_bytes())[0]
    (OUT / "mail-from-outside.json").write_text(json.dumps(answers))
    return 0


def main(argv: list[str]) -> int:
    tool, args = argv[1], argv[2:]
    if tool == "await-reply":
        return await_reply(int(args[0]))
    if tool == "mail-from-outside":
        return mail_from_outside()
    print(f"checkpoints: unknown step {tool}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
