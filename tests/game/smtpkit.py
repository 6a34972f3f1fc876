"""Helpers for games played by SMTP against a running ``judge serve`` (the ``judge`` fixture):
send a mail and wait for its reply, wait for a broadcast by subject."""

from __future__ import annotations

from email.message import EmailMessage

from conftest import RunningJudge, body_of, header_of, make_mail, polls


def exchange(judge: RunningJudge, sender: str, body: str, timeout: float = 20) -> str:
    """Mail the judge and return the body of its reply (found by In-Reply-To)."""
    msg = make_mail(body, sender=sender)
    judge.send(msg, mail_from=sender)
    for _ in polls(timeout):
        for reply in judge.replies():
            if header_of(reply, "In-Reply-To") == msg["Message-ID"]:
                return body_of(reply).replace("\r\n", "\n")
    raise AssertionError(f"no reply to {body!r}:\n{judge.log()[-3000:]}")


def observe(judge: RunningJudge, address: str, game: str, password: str = "opw") -> str:
    """OBSERVE, then CONFIRM with the code of its answer: ``address`` observes ``game``, and
    gets its mail.  Returns the answer to OBSERVE."""
    from gamekit import code_in
    reply = exchange(judge, address, f"OBSERVE {game} {password}")
    confirmed = exchange(judge, address, f"CONFIRM {code_in(reply)}")
    assert "Confirmed:" in confirmed, confirmed
    return reply


def broadcasts(judge: RunningJudge, subject: str) -> list[EmailMessage]:
    """Every copy of a broadcast: the judge mails each recipient a copy of their own."""
    return [m for m in judge.replies() if header_of(m, "Subject") == subject]


def audience(judge: RunningJudge, subject: str) -> list[str]:
    """Who got a copy, one entry per copy (so a duplicate shows up twice)."""
    return sorted(header_of(m, "To") or "" for m in broadcasts(judge, subject))


def one_copy_each(judge: RunningJudge, subject: str) -> list[str]:
    """The broadcast went out once: somebody got it, and nobody got it twice."""
    who = audience(judge, subject)
    assert who and len(who) == len(set(who)), f"{subject!r} copies: {who}"
    return who


def wait_audience(judge: RunningJudge, subject: str, expected: list[str],
                  timeout: float = 20) -> list[EmailMessage]:
    """Wait until exactly ``expected`` have one copy each; the copies go out one by one."""
    for _ in polls(timeout):
        if audience(judge, subject) == sorted(expected):
            return broadcasts(judge, subject)
    raise AssertionError(f"{subject!r} went to {audience(judge, subject)}, "
                         f"expected one copy each for {sorted(expected)}")


def wait_broadcast(judge: RunningJudge, subject: str, timeout: float = 20) -> EmailMessage:
    for _ in polls(timeout):
        found = broadcasts(judge, subject)
        if found:
            return found[0]
    raise AssertionError(f"no mail with subject {subject!r}: "
                         f"{[str(m['Subject']) for m in judge.replies()]}")


def wait_assignments(judge: RunningJudge, addresses: list[str], timeout: float = 20
                     ) -> dict[str, str]:
    """address → power from the "You are <power>" mails, once every address has its own.

    The judge writes its mails one at a time (the reply first, then each copy of each
    broadcast), so a mail seen in the Maildir says nothing about the ones queued after it:
    wait for the very mails wanted, never for "some mail" or a count of files.
    """
    found: dict[str, str] = {}
    for _ in polls(timeout):
        found = {str(m["To"]): str(m["Subject"]).rsplit(" ", 1)[1].upper()
                 for m in judge.replies() if " You are " in str(m["Subject"])}
        if all(a in found for a in addresses):
            return {a: found[a] for a in addresses}
    raise AssertionError(f"no power assignment for {[a for a in addresses if a not in found]}")


def text(msg: EmailMessage) -> str:
    return body_of(msg).replace("\r\n", "\n")
