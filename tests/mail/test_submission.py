"""Sending through a provider's submission server (judge.mail.sending.submission), against a server
that speaks real TLS and AUTH (tests/mailservers.py): STARTTLS on a 587-style port, implicit
TLS on a 465-style one, a refused login, a certificate that fails verification, a server
without STARTTLS; the password from the file, the environment or a file, masked by
check-config and never logged."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Iterator

import pytest

from conftest import run_cli
from judge.basics.config import Config, load_config
from judge.mail.writing.compose import Composer
from judge.mail.sending.outbox import enqueue
from judge.mail.sending.sender import deliver_due
from judge.mail.sending.submission import SubmissionTransport, transport_for
from judge.store.db import Store
from judge.store.models import OutboxMessage
from judge.basics.utc import utcnow
from mailservers import Certificates, SubmissionServer

# aiosmtpd warns of a login without STARTTLS: the implicit TLS server has TLS from the start
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

ACCOUNT = "judge@mail.test"
PASSWORD = "s3cret pass"


@pytest.fixture
def servers(certificates: Certificates) -> Iterator[list[SubmissionServer]]:
    started: list[SubmissionServer] = []
    yield started
    for server in started:
        server.stop()


def serve(servers: list[SubmissionServer], certificates: Certificates,
          **options: object) -> SubmissionServer:
    server = SubmissionServer(certificates, **options).start()  # type: ignore[arg-type]
    servers.append(server)
    return server


def config_for(server: SubmissionServer, certificates: Certificates, **more: str) -> Config:
    return load_config(None, environ={
        "JUDGE_JUDGE_ADDRESS": ACCOUNT, "JUDGE_OUTBOUND_TRANSPORT": server.url,
        "JUDGE_OUTBOUND_USER": ACCOUNT, "JUDGE_OUTBOUND_PASSWORD": PASSWORD,
        "JUDGE_OUTBOUND_CA_FILE": str(certificates.ca), **more})


def queue(store: Store, config: Config, to: str = "alice@players.test") -> int:
    msg = Composer(config).reply(to=[to], original_subject="orders",
                                 original_id="<orig@players.test>", references=[],
                                 body="Accepted.\n", now=utcnow())
    with store.transaction() as session:
        return enqueue(session, msg)


def row(store: Store, row_id: int) -> OutboxMessage:
    with store.transaction() as session:
        found = session.get(OutboxMessage, row_id)
        assert found is not None
        session.expunge(found)
        return found


@pytest.mark.parametrize("implicit_tls", [False, True], ids=["starttls-587", "tls-465"])
def test_mail_goes_out_encrypted_and_logged_in(store: Store, certificates: Certificates,
                                               servers: list[SubmissionServer],
                                               implicit_tls: bool) -> None:
    server = serve(servers, certificates, implicit_tls=implicit_tls)
    config = config_for(server, certificates)
    row_id = queue(store, config)
    transport = transport_for(config)
    assert isinstance(transport, SubmissionTransport)
    assert deliver_due(store, transport, config) == 1
    [got] = server.received
    assert got.tls and got.login == ACCOUNT
    assert got.rcpt_tos == ["alice@players.test"]
    # the return path is the recipient's own (judge.mail.sending.return_paths)
    assert got.mail_from.startswith("judge+bounce-") and got.mail_from.endswith("@mail.test")
    assert got.message["From"].addresses[0].addr_spec == ACCOUNT
    assert row(store, row_id).status == "sent"
    assert server.logins == [(ACCOUNT, True)]


def test_a_refused_login_is_retried_with_back_off_and_the_operator_sees_why(
        store: Store, certificates: Certificates, servers: list[SubmissionServer],
        caplog: pytest.LogCaptureFixture, tmp_path: Path, migrated_db_url: str) -> None:
    server = serve(servers, certificates)
    config = config_for(server, certificates, JUDGE_OUTBOUND_PASSWORD="not it")
    ids = [queue(store, config, f"p{n}@players.test") for n in range(3)]
    with caplog.at_level(logging.INFO, logger="judge.sender"):
        assert deliver_due(store, transport_for(config), config) == 3
    assert server.received == []
    # one login (smtplib tries it with each mechanism the server offers: PLAIN, LOGIN), not
    # one a mail: a provider locks an account that keeps failing
    assert server.logins == [(ACCOUNT, False)] * 2
    for row_id in ids:
        found = row(store, row_id)
        assert found.status == "pending" and found.attempts == 1
        assert found.next_attempt_at.replace(tzinfo=None) > utcnow().replace(tzinfo=None)
        assert f"login to localhost:{server.port} as {ACCOUNT} refused: 535" in found.last_error
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "refused" in errors[0]
    assert "not it" not in caplog.text
    # judge outbox list shows it
    listed = run_cli(["outbox", "list"], env={"JUDGE_DATABASE_URL": migrated_db_url},
                     cwd=tmp_path)
    assert "temporary: login to localhost:" in listed.stdout
    # mended, the mail goes at its next try
    with store.transaction() as session:
        for found in session.query(OutboxMessage):
            found.next_attempt_at = utcnow()
    mended = config_for(server, certificates)
    assert deliver_due(store, transport_for(mended), mended) == 3
    assert len(server.received) == 3


@pytest.mark.parametrize("implicit_tls", [False, True], ids=["starttls-587", "tls-465"])
def test_a_certificate_that_fails_verification_is_said_and_no_login_is_sent(
        store: Store, certificates: Certificates, servers: list[SubmissionServer],
        caplog: pytest.LogCaptureFixture, implicit_tls: bool) -> None:
    # signed by a CA nobody trusts, while the judge trusts only the test CA
    server = serve(servers, certificates, implicit_tls=implicit_tls, trusted=False)
    config = config_for(server, certificates)
    row_id = queue(store, config)
    with caplog.at_level(logging.INFO, logger="judge.sender"):
        deliver_due(store, transport_for(config), config)
    found = row(store, row_id)
    assert found.status == "pending"
    assert "failed verification" in found.last_error
    assert "[outbound] ca_file" in found.last_error
    assert server.logins == [] and server.received == []


def test_the_systems_cas_are_used_without_ca_file(store: Store, certificates: Certificates,
                                                  servers: list[SubmissionServer]) -> None:
    server = serve(servers, certificates)
    config = config_for(server, certificates, JUDGE_OUTBOUND_CA_FILE="")
    row_id = queue(store, config)
    deliver_due(store, transport_for(config), config)
    assert "failed verification" in row(store, row_id).last_error
    assert server.logins == []


def test_a_server_without_starttls_gets_no_login(store: Store, certificates: Certificates,
                                                 servers: list[SubmissionServer]) -> None:
    server = serve(servers, certificates, starttls=False)
    config = config_for(server, certificates)
    row_id = queue(store, config)
    deliver_due(store, transport_for(config), config)
    found = row(store, row_id)
    assert found.status == "pending"
    assert "does not offer STARTTLS" in found.last_error
    assert server.logins == [] and server.received == []


def test_the_password_may_come_from_a_file(store: Store, certificates: Certificates,
                                           servers: list[SubmissionServer],
                                           tmp_path: Path) -> None:
    server = serve(servers, certificates, implicit_tls=True)
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")
    config = config_for(server, certificates, JUDGE_OUTBOUND_PASSWORD="",
                        JUDGE_OUTBOUND_PASSWORD_FILE=str(secret))
    queue(store, config)
    assert deliver_due(store, transport_for(config), config) == 1
    assert server.logins == [(ACCOUNT, True)]


def test_check_config_masks_the_passwords(tmp_path: Path) -> None:
    toml = tmp_path / "judge.toml"
    toml.write_text('[outbound]\ntransport = "smtps://smtp.example.org:465"\n'
                    'user = "judge@example.org"\npassword = "file secret"\n')
    env = {"JUDGE_MAILBOX_URL": "imaps://imap.example.org", "JUDGE_MAILBOX_USER": "judge",
           "JUDGE_MAILBOX_PASSWORD": "environment secret"}
    result = run_cli(["--config", str(toml), "check-config", "--no-database"], env=env,
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "secret" not in result.stdout
    assert "  [outbound] password = '********'" in result.stdout
    assert "  [mailbox] password = '********'  (from JUDGE_MAILBOX_PASSWORD)" in result.stdout
    assert "  [outbound] password_file = ''" in result.stdout


@pytest.mark.parametrize("settings, complaint", [
    ({"JUDGE_OUTBOUND_TRANSPORT": "smtp://relay.example.org:25",
      "JUDGE_OUTBOUND_USER": "judge", "JUDGE_OUTBOUND_PASSWORD": "x"},
     "a login needs an encrypted connection"),
    ({"JUDGE_OUTBOUND_TRANSPORT": "smtps://judge:pw@smtp.example.org"},
     "[outbound] transport must not hold a login"),
    ({"JUDGE_OUTBOUND_TRANSPORT": "smtp+tls://smtp.example.org"},
     "[outbound] transport must be"),
    ({"JUDGE_OUTBOUND_TRANSPORT": "smtps://smtp.example.org", "JUDGE_OUTBOUND_USER": "judge"},
     "[outbound] user is set but no password"),
    ({"JUDGE_OUTBOUND_TRANSPORT": "smtps://smtp.example.org", "JUDGE_OUTBOUND_USER": "judge",
      "JUDGE_OUTBOUND_PASSWORD_FILE": "/nonexistent/password"},
     "[outbound] password_file '/nonexistent/password' cannot be read"),
    ({"JUDGE_MAILBOX_URL": "imap://imap.example.org", "JUDGE_MAILBOX_USER": "judge",
      "JUDGE_MAILBOX_PASSWORD": "x"}, "[mailbox] url must be imaps://"),
    ({"JUDGE_MAILBOX_URL": "imaps://imap.example.org"}, "[mailbox] url is set but no user"),
    ({"JUDGE_INTAKE_LISTEN": ""}, "[intake] listen is empty and [mailbox] url is not set"),
    ({"JUDGE_BOUNCES_RETURN_PATH": "bounces@{token}.example.org"},
     "[bounces] return_path may hold {token} once, before the @"),
    ({"JUDGE_BOUNCES_HARD_BOUNCES": "0"}, "[bounces] hard_bounces must be at least 1"),
])
def test_settings_that_cannot_work_are_refused_in_one_line(
        settings: dict[str, str], complaint: str) -> None:
    from judge.basics.config import ConfigError
    with pytest.raises(ConfigError) as refused:
        load_config(None, environ=settings)
    assert complaint in str(refused.value)
    assert "\n" not in str(refused.value)
    for value in settings.values():
        if value in ("x", "pw"):
            assert value not in str(refused.value).split()
