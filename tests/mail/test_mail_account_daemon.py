"""A judge run with an ordinary mail account, against real servers: ``judge serve`` with no
SMTP listener, reading only an IMAP mailbox (a private Dovecot) and sending only through an
authenticated, encrypted submission server (tests/mailservers.py).  A small game is played
through it end to end; and a daemon killed (SIGKILL) again and again while it takes the
mailbox's mail loses none and stores none twice."""

from __future__ import annotations

import signal
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from conftest import RunningJudge, judge_env, make_mail, polls
from forked_daemons import start_serve
from mailservers import (NEEDS_DOVECOT, Certificates, HoldingProxy, PrivateDovecot,
                         SubmissionServer, new_account)
from smtpkit import exchange, text, wait_assignments, wait_audience, wait_broadcast

pytestmark = [NEEDS_DOVECOT, pytest.mark.waits_long]

G = "club1901"


def account_env(tmp: Path, db_url: str, dovecot: PrivateDovecot, user: str, password: str,
                **more: str) -> dict[str, str]:
    """The environment of a judge that reads the account's mailbox and no SMTP listener."""
    settings = dict(JUDGE_JUDGE_ADDRESS=user, JUDGE_INTAKE_LISTEN="",
                    JUDGE_MAILBOX_URL=dovecot.url, JUDGE_MAILBOX_USER=user,
                    JUDGE_MAILBOX_PASSWORD=password,
                    JUDGE_MAILBOX_CA_FILE=str(dovecot.certificates.ca),
                    JUDGE_MAILBOX_POLL_SECONDS="5")
    return judge_env(tmp, 0, db_url, **{**settings, **more})


@pytest.fixture
def start_judge(tmp_path: Path) -> Iterator[Callable[..., RunningJudge]]:
    """Starts ``judge serve`` processes that listen on no port: each is up once its worker process
    runs and it reads the mailbox."""
    started: list[RunningJudge] = []

    def start(env: dict[str, str]) -> RunningJudge:
        running = RunningJudge(tmp_path, 0, env, log_name=f"serve-{len(started) + 1}.log")
        running.proc = start_serve(["serve"], env, tmp_path, running.log_path)
        started.append(running)
        for _ in polls(20):
            log = running.log()
            assert running.proc.poll() is None, log
            if "reading the mailbox" in log and "worker process running" in log:
                return running
        raise AssertionError(f"judge serve did not start:\n{running.log()}")

    yield start
    for running in started:
        if running.proc is not None and running.proc.poll() is None:
            running.proc.send_signal(signal.SIGKILL)
            running.proc.wait(10)


class AccountJudge:
    """What tests/game/smtpkit.py needs of a judge, for one run with a mail account: players'
    mail is delivered into the account's mailbox (as the provider would), and the judge's
    mail is what the submission server took."""

    def __init__(self, running: RunningJudge, dovecot: PrivateDovecot, user: str,
                 password: str, submission: SubmissionServer) -> None:
        self.running, self.dovecot, self.submission = running, dovecot, submission
        self.user, self.password = user, password
        self._read: list[EmailMessage] = []

    def send(self, msg: EmailMessage, *, mail_from: str, **_: Any) -> None:
        raw = msg.as_bytes(policy=policy.SMTP)
        self.dovecot.deliver(self.user, self.password,
                             f"Return-Path: <{mail_from}>\r\n".encode() + raw)

    def replies(self) -> list[EmailMessage]:
        for got in self.submission.received[len(self._read):]:
            self._read.append(got.message)
        return list(self._read)

    def log(self) -> str:
        return self.running.log()


def test_a_small_game_with_a_mailbox_and_a_submission_server(
        dovecot: PrivateDovecot, certificates: Certificates, migrated_db_url: str,
        tmp_path: Path, start_judge: Callable[..., RunningJudge]) -> None:
    user, password = new_account(dovecot)
    submission = SubmissionServer(certificates, users={user: "submission pass"}).start()
    try:
        env = account_env(tmp_path, migrated_db_url, dovecot, user, password,
                          JUDGE_OUTBOUND_TRANSPORT=submission.url, JUDGE_OUTBOUND_USER=user,
                          JUDGE_OUTBOUND_PASSWORD="submission pass",
                          JUDGE_OUTBOUND_CA_FILE=str(certificates.ca),
                          JUDGE_BOUNCES_HARD_BOUNCES="1")
        running = start_judge(env)
        assert "taking mail by mailbox imaps://localhost:" in running.log()
        assert "(no SMTP/LMTP listener)" in running.log()  # as deploy/README.md §11 says
        for _ in polls(10):
            if f"logged in as {user}; reading INBOX (IDLE)" in running.log():
                break
        assert f"logged in as {user}; reading INBOX (IDLE)" in running.log()
        judge = AccountJudge(running, dovecot, user, password, submission)
        play(judge)
        bounce_to_the_mailbox(judge)
    finally:
        submission.stop()
    # every mail went out encrypted, logged in, From the account, with its own return path
    local, _, domain = user.partition("@")
    for got in submission.received:
        assert got.tls and got.login == user
        assert got.mail_from.startswith(f"{local}+bounce-") and got.mail_from.endswith(domain)
        assert got.message["From"].addresses[0].addr_spec == user
        assert len(got.rcpt_tos) == 1
    assert len({got.mail_from for got in submission.received}) == 8  # a path per address
    assert "submission pass" not in running.log() and password not in running.log()
    for _ in polls(10):
        if dovecot.count(user, password) == 0:
            break
    assert dovecot.count(user, password) == 0  # all taken, and gone from the server
    assert running.sql("SELECT count(*) FROM inbound WHERE status IN ('new', 'failed')") == [(0,)]
    assert running.sql("SELECT count(*) FROM inbound WHERE status = 'ignored'") == [(1,)]  # the bounce


DEAD = "p3@players.test"
SAMPLES = Path(__file__).resolve().parent / "bounces"


def bounce_to_the_mailbox(judge: AccountJudge) -> None:
    """Postfix's bounce of a mail to p3 comes back to the account (to p3's return path, as
    Delivered-To says): with [bounces] hard_bounces = 1, the master hears of it at once."""
    path = next(got.mail_from for got in judge.submission.received if got.rcpt_tos == [DEAD])
    raw = (SAMPLES / "postfix.eml").read_bytes()
    raw = raw.replace(b"judge+bounce-abcdefghijklmnopqrst@judge.test", path.encode())
    judge.dovecot.deliver(judge.user, judge.password, raw.replace(b"ghost@players.test",
                                                                  DEAD.encode()))
    told = wait_broadcast(judge, f"JUDGE:{G} - F1901M Address Failing")  # after S1901M
    assert str(told["To"]) == "gm@players.test"
    assert f"The judge's mail to {DEAD} does not arrive" in text(told)


def play(judge: Any) -> None:
    """CREATE, seven JOINs, one movement phase with orders, processed by the master."""
    master = "gm@players.test"
    reply = exchange(judge, master, f"CREATE {G} mpw DEADLINE 48h GRACE 12h")
    assert f"Game {G} (Standard) created" in reply
    players = [f"p{i}@players.test" for i in range(7)]
    for i, address in enumerate(players):
        assert "You have joined" in exchange(judge, address, f"JOIN {G} pw{i}")
    wait_broadcast(judge, f"JUDGE:{G} - S1901M Game Starting")
    assigned = wait_assignments(judge, players)
    who = {power: (address, f"pw{players.index(address)}") for address, power in assigned.items()}

    def orders(power: str, *lines: str) -> str:
        address, pw = who[power]
        return exchange(judge, address, f"SIGNON {power[0]}{G} {pw}\n" + "\n".join(lines))

    assert "Accepted: A PAR - BUR" in orders("FRANCE", "A Par-Bur", "A Mar S A Par-Bur",
                                             "F Bre-Mao")
    orders("GERMANY", "A Mun-Bur")
    reply = exchange(judge, master, f"SIGNON M{G} mpw\nPROCESS")
    assert "has been processed;" in reply, reply
    copies = wait_audience(judge, f"JUDGE:{G} - S1901M Results", [master, *players])
    results = text(copies[0])
    assert "France: Army Paris -> Burgundy." in results
    assert "Germany: Army Munich -> Burgundy.  (*bounce*)" in results


def test_a_daemon_killed_while_it_takes_the_mailbox_loses_and_doubles_nothing(
        dovecot: PrivateDovecot, certificates: Certificates, migrated_db_url: str,
        tmp_path: Path, start_judge: Callable[..., RunningJudge]) -> None:
    """SIGKILL at the two moments that matter, held there by a proxy between the judge and
    Dovecot: after the judge fetched mail and before it stored it, and after it stored mail and
    before the server removed it; then a judge that runs to the end."""
    user, password = new_account(dovecot)
    count = 30  # two batches (judge.mail.intake.mailbox.BATCH)
    for n in range(count):
        msg = make_mail(f"VERSION\nmarker {n}\n", sender=f"k{n}@players.test")
        if n % 3 == 0:  # a third without Message-ID: known again by UIDVALIDITY and UID
            del msg["Message-ID"]
        dovecot.deliver(user, password, msg.as_bytes(policy=policy.SMTP))
    proxy = HoldingProxy(certificates, dovecot.imaps_port)
    try:
        env = account_env(tmp_path, migrated_db_url, dovecot, user, password,
                          JUDGE_MAILBOX_URL=proxy.url)

        def killed_at(command: bytes) -> RunningJudge:
            proxy.arm(command)
            running = start_judge(env)
            assert proxy.held.wait(20), running.log()
            assert running.proc is not None
            running.proc.send_signal(signal.SIGKILL)
            running.proc.wait(10)
            return running

        # fetched, not stored: nothing stored, nothing removed
        running = killed_at(b"BODY.PEEK[]")
        assert running.sql("SELECT count(*) FROM inbound") == [(0,)]
        # stored (the first batch, committed), not removed from the server: twice
        for _ in range(2):
            running = killed_at(b"+FLAGS")
            assert running.sql("SELECT count(*) FROM inbound") == [(20,)]
            assert dovecot.count(user, password) == count
        proxy.arm(None)
        running = start_judge(env)
        for _ in polls(30):
            if not dovecot.count(user, password) and running.sql(
                    "SELECT count(*) FROM inbound WHERE status = 'new'") == [(0,)]:
                break
    finally:
        proxy.close()
    rows = running.sql("SELECT raw FROM inbound ORDER BY id")
    found = sorted(int(bytes(raw).split(b"marker ")[1].split()[0]) for (raw,) in rows)
    assert found == list(range(count))  # 0 lost, 0 doubled
    assert dovecot.count(user, password) == 0
    assert "20 mail(s) already stored, not stored again" in running.log()


def test_the_listener_and_the_mailbox_together(
        dovecot: PrivateDovecot, judge_factory: Callable[..., RunningJudge]) -> None:
    """Both ways in at once: a mail by SMTP and one through the mailbox are each answered
    (and the same mail coming both ways is one mail)."""
    user, password = new_account(dovecot)
    judge = judge_factory(JUDGE_JUDGE_ADDRESS=user, JUDGE_MAILBOX_URL=dovecot.url,
                          JUDGE_MAILBOX_USER=user, JUDGE_MAILBOX_PASSWORD=password,
                          JUDGE_MAILBOX_CA_FILE=str(dovecot.certificates.ca))
    judge.wait_log("reading the mailbox")
    assert f"taking mail by SMTP on 127.0.0.1:{judge.port} and mailbox imaps://" in judge.log()
    by_smtp = make_mail("VERSION", sender="a@players.test", to=user)
    by_box = make_mail("VERSION", sender="b@players.test", to=user)
    judge.send(by_smtp, mail_from="a@players.test", rcpt=user)
    dovecot.deliver(user, password, by_box.as_bytes(policy=policy.SMTP))
    dovecot.deliver(user, password, by_smtp.as_bytes(policy=policy.SMTP))  # again, by IMAP
    assert judge.reply_to(str(by_smtp["Message-ID"]))["To"] == "a@players.test"
    assert judge.reply_to(str(by_box["Message-ID"]))["To"] == "b@players.test"
    for _ in polls(10):
        if dovecot.count(user, password) == 0:
            break
    judge.settle()
    assert judge.sql("SELECT count(*) FROM inbound") == [(2,)]
    assert len(judge.replies_to(str(by_smtp["Message-ID"]))) == 1
