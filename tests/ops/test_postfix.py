"""The real mail path: a private Postfix instance (its own configuration, queue and log under a
temporary directory, listening on a free loopback port) hands mail for the judge's domain to a
running ``judge serve`` over LMTP with the transport map of ``deploy/postfix``, and the judge's
reply goes back out through that Postfix into a player's Maildir, delivered by Postfix itself.

Needs Postfix installed (``.ci/run`` installs it when it runs as root) and root, because Postfix
starts as root and drops to its ``postfix`` user; otherwise the test is skipped with the reason.
"""

from __future__ import annotations

import email
import os
import shutil
import smtplib
import subprocess
import time
import uuid
from email import policy
from pathlib import Path
from typing import Callable, Iterator

import pytest

from conftest import RunningJudge, body_of, free_port, make_mail

POSTFIX = shutil.which("postfix", path="/usr/sbin:/usr/bin:" + os.environ.get("PATH", ""))
POSTCONF = shutil.which("postconf", path="/usr/sbin:/usr/bin:" + os.environ.get("PATH", ""))
POSTMAP = shutil.which("postmap", path="/usr/sbin:/usr/bin:" + os.environ.get("PATH", ""))
DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "postfix"

pytestmark = [
    # Much of this module's time is spent waiting (Postfix's queue): it runs first
    # (tests/conftest.py).
    pytest.mark.waits_long,
    pytest.mark.skipif(POSTFIX is None or POSTCONF is None or POSTMAP is None,
                       reason="Postfix is not installed (.ci/run installs it as root: "
                              "apt-get install postfix)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="a private Postfix instance needs root"),
]

JUDGE_DOMAIN = "judge.test"
PLAYER = "alice@players.test"


class PrivatePostfix:
    def __init__(self, base: Path, judge_port: int, mailboxes: tuple[str, ...] = (PLAYER,),
                 settings: tuple[str, ...] = ()) -> None:
        self.base = base
        self.conf = base / "etc"
        self.port = free_port()
        self.mailboxes = base / "mailboxes"
        self.log = base / "postfix.log"
        self.conf.mkdir(parents=True)
        (base / "spool").mkdir()  # root's; `postfix check` makes the queues inside
        (base / "lib").mkdir()
        shutil.chown(base / "lib", "postfix", "postfix")
        self.mailboxes.mkdir()
        shutil.chown(self.mailboxes, "nobody", "nogroup")
        shutil.copy("/etc/postfix/master.cf", self.conf / "master.cf")
        # The deploy snippets, with the example domain and port replaced by the test's.
        transport = (DEPLOY / "transport").read_text().replace("judge.example.org", JUDGE_DOMAIN)
        transport = transport.replace("127.0.0.1:2525", f"127.0.0.1:{judge_port}")
        (self.conf / "transport").write_text(transport)
        (self.conf / "judge_recipients").write_text(
            (DEPLOY / "judge_recipients").read_text().replace("judge.example.org", JUDGE_DOMAIN))
        (self.conf / "mailboxes").write_text(
            "".join(f"{box} {box.partition('@')[0]}/\n" for box in mailboxes))
        (self.conf / "main.cf").write_text("\n".join([
            "compatibility_level = 3.6",
            f"queue_directory = {base / 'spool'}",
            f"data_directory = {base / 'lib'}",
            "mail_owner = postfix",
            "setgid_group = postdrop",
            "myhostname = mx.test",
            "mydomain = test",
            "myorigin = mx.test",
            "mydestination =",
            "inet_interfaces = 127.0.0.1",
            "inet_protocols = ipv4",
            "mynetworks = 127.0.0.0/8",
            "smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination",
            "alias_maps =",
            "alias_database =",
            "local_recipient_maps =",
            "smtp_host_lookup = native",
            "lmtp_host_lookup = native",
            f"maillog_file_prefixes = {base}",
            f"maillog_file = {self.log}",
            # from deploy/postfix/main.cf: the judge's domain is relayed to it by LMTP
            f"relay_domains = {JUDGE_DOMAIN}",
            f"transport_maps = hash:{self.conf / 'transport'}",
            f"relay_recipient_maps = hash:{self.conf / 'judge_recipients'}",
            "recipient_delimiter = +",
            # the players' mailboxes: Maildirs Postfix's virtual(8) writes as nobody
            "virtual_mailbox_domains = players.test",
            f"virtual_mailbox_base = {self.mailboxes}",
            f"virtual_mailbox_maps = hash:{self.conf / 'mailboxes'}",
            "virtual_uid_maps = static:65534",
            "virtual_gid_maps = static:65534",
            *settings,
            "",
        ]))
        for table in ("transport", "judge_recipients", "mailboxes"):
            self._run(POSTMAP, "-c", str(self.conf), str(self.conf / table))
        # No chroot (it would need copies of /etc files in the queue), smtpd on our port only.
        self._postconf("-F", "*/*/chroot = n")
        self._postconf("-MX", "smtp/inet")
        self._postconf("-M", f"127.0.0.1:{self.port}/inet = 127.0.0.1:{self.port} inet n - n - - smtpd")

    def _run(self, *args: str | None) -> str:
        result = subprocess.run([a for a in args if a is not None], capture_output=True,
                                text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"{args}: {result.stderr}{self.logged()}")
        return result.stdout

    def _postconf(self, *args: str) -> None:
        self._run(POSTCONF, "-c", str(self.conf), *args)

    def logged(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self) -> None:
        self._run(POSTFIX, "-c", str(self.conf), "check")
        self._run(POSTFIX, "-c", str(self.conf), "start")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with smtplib.SMTP("127.0.0.1", self.port, timeout=5) as s:
                    s.noop()
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"private Postfix did not listen:\n{self.logged()}")

    def stop(self) -> None:
        subprocess.run([POSTFIX, "-c", str(self.conf), "stop"], capture_output=True, timeout=60)

    def maildir(self, name: str) -> list[email.message.EmailMessage]:
        out = []
        new = self.mailboxes / name / "new"
        if new.is_dir():
            for f in sorted(new.iterdir()):
                out.append(email.message_from_bytes(f.read_bytes(), policy=policy.default))
        return out


@pytest.fixture
def postfix_for(request: pytest.FixtureRequest) -> Iterator[Callable[..., PrivatePostfix]]:
    started: list[PrivatePostfix] = []
    # Short path: Postfix's UNIX sockets live under the queue directory (108-byte limit).
    base = Path("/tmp") / f"judge-pf-{uuid.uuid4().hex[:8]}"

    def make(judge_port: int, **options: tuple[str, ...]) -> PrivatePostfix:
        pf = PrivatePostfix(base, judge_port, **options)
        started.append(pf)
        pf.start()
        return pf

    yield make
    for pf in started:
        pf.stop()
    shutil.rmtree(base, ignore_errors=True)


def test_mail_through_postfix_to_the_judge_and_the_reply_back_to_a_mailbox(
        judge_factory: Callable[..., RunningJudge],
        postfix_for: Callable[[int], PrivatePostfix]) -> None:
    judge_port = free_port()
    postfix = postfix_for(judge_port)
    judge = judge_factory(JUDGE_JUDGE_ADDRESS=f"judge@{JUDGE_DOMAIN}",
                          JUDGE_INTAKE_PROTOCOL="lmtp",
                          JUDGE_INTAKE_LISTEN=f"127.0.0.1:{judge_port}",
                          JUDGE_OUTBOUND_TRANSPORT=f"smtp://127.0.0.1:{postfix.port}")
    assert judge.port == judge_port

    msg = make_mail("VERSION", sender=PLAYER, to=f"judge@{JUDGE_DOMAIN}",
                    subject="through postfix", msgid="<via-postfix@players.test>")
    with smtplib.SMTP("127.0.0.1", postfix.port, timeout=20) as s:
        s.sendmail(PLAYER, [f"judge+x@{JUDGE_DOMAIN}"], msg.as_bytes(policy=policy.SMTP))
        # a recipient the judge's domain does not have is refused by Postfix itself
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            s.sendmail(PLAYER, [f"nobody@{JUDGE_DOMAIN}"], msg.as_bytes(policy=policy.SMTP))

    deadline = time.monotonic() + 60
    while not postfix.maildir("alice") and time.monotonic() < deadline:
        time.sleep(0.1)
    replies = postfix.maildir("alice")
    assert len(replies) == 1, f"no reply in the mailbox\n{postfix.logged()}\n{judge.log()}"
    reply = replies[0]
    assert reply["Subject"] == "Re: through postfix"
    assert reply["In-Reply-To"] == "<via-postfix@players.test>"
    assert "> VERSION" in body_of(reply)
    assert reply["Received"] is not None  # it really went through Postfix
    assert judge.sql("SELECT status FROM inbound") == [("done",)]
    log = postfix.logged()
    assert "relay=127.0.0.1[127.0.0.1]:%d" % judge_port in log  # LMTP hand-over to the judge
    assert "status=sent (delivered to maildir)" in log
