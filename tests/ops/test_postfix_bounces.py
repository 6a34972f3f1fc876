"""Real bounces: a private Postfix (tests/ops/test_postfix.py) relays the judge's mail, and the
mail to a player whose mailbox does not exist comes back as Postfix's own delivery status
notification, to the judge's per-recipient return path, by LMTP.  After ``[bounces]
hard_bounces`` of them the game's master gets one mail naming the game, the power, the address
and what the server said.

Needs Postfix and root, as test_postfix.py does; skipped otherwise, saying so.
"""

from __future__ import annotations

import smtplib
from email import policy
from typing import Callable

from conftest import RunningJudge, body_of, free_port, make_mail, polls
import test_postfix
from test_postfix import JUDGE_DOMAIN, PLAYER, PrivatePostfix

# test_postfix's: waits on Postfix's queue, and needs Postfix and root
pytestmark = test_postfix.pytestmark
# its private Postfix, as a fixture of this module
postfix_for = test_postfix.postfix_for

GHOST = "ghost@players.test"  # no such mailbox
OTHERS = [f"p{i}@players.test" for i in range(1, 7)]
JUDGE = f"judge@{JUDGE_DOMAIN}"


def test_a_dead_address_is_reported_to_the_master_after_postfixs_bounces(
        judge_factory: Callable[..., RunningJudge],
        postfix_for: Callable[..., PrivatePostfix]) -> None:
    judge_port = free_port()
    # Postfix takes mail for any address of players.test, and bounces it later when no
    # mailbox has that name (as a remote server would): a DSN, not a refusal at RCPT
    postfix = postfix_for(judge_port, mailboxes=(PLAYER, *OTHERS),
                          settings=("smtpd_reject_unlisted_recipient = no",))
    judge = judge_factory(JUDGE_JUDGE_ADDRESS=JUDGE, JUDGE_INTAKE_PROTOCOL="lmtp",
                          JUDGE_INTAKE_LISTEN=f"127.0.0.1:{judge_port}",
                          JUDGE_OUTBOUND_TRANSPORT=f"smtp://127.0.0.1:{postfix.port}",
                          JUDGE_BOUNCES_HARD_BOUNCES="2")

    def mail(sender: str, body: str) -> None:
        """Through Postfix to the judge, and done (Postfix delivers several at once, in no
        order: a JOIN must not come before the CREATE)."""
        msg = make_mail(body, sender=sender, to=JUDGE)
        with smtplib.SMTP("127.0.0.1", postfix.port, timeout=20) as s:
            s.sendmail(sender, [JUDGE], msg.as_bytes(policy=policy.SMTP))
        assert judge.outcome(str(msg["Message-ID"]), timeout=60)[0][0] == "done"

    mail(PLAYER, "CREATE war1901 mpw")
    mail(GHOST, "JOIN war1901 gpw")  # its reply bounces: 1
    for i, address in enumerate(OTHERS):
        mail(address, f"JOIN war1901 pw{i}")  # the game starts: its mails to the ghost bounce

    subject = "JUDGE:war1901 - S1901M Address Failing"
    told = []
    for _ in polls(60):
        told = [m for m in postfix.maildir("alice") if str(m["Subject"]) == subject]
        if told:
            break
    assert told, f"the master was not told\n{postfix.logged()}\n{judge.log()}"
    body = body_of(told[0]).replace("\r\n", "\n")
    assert f"The judge's mail to {GHOST} does not arrive" in body
    power = judge.sql("SELECT power FROM seats WHERE address = :a", a=GHOST)[0][0]
    assert f"In war1901 it is the\naddress of\n  {power.capitalize()}\n" in body
    assert "Its mail server said:" in body and "unknown" in body.lower()
    # what came back was Postfix's own DSN, to the ghost's return path, and never answered
    notes = judge.sql("SELECT status, envelope_sender, recipients, note FROM inbound "
                      "WHERE note LIKE '%hard bounce%' ORDER BY id")
    assert len(notes) >= 2
    for status, sender, recipients, note in notes:
        assert status == "ignored" and sender == ""
        assert recipients.startswith("judge+bounce-") and GHOST in note
    assert "status=bounced" in postfix.logged()
    judge.settle()
    assert [str(m["Subject"]) for m in postfix.maildir("alice")].count(subject) == 1  # once
