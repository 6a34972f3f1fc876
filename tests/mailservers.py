"""Real mail servers for the tests of a judge run with a mail account: a test CA and server
certificate (made with ``openssl``), a submission server that speaks real TLS and AUTH
(aiosmtpd: STARTTLS on a 587-style port, implicit TLS on a 465-style one), and a private
Dovecot IMAP server run from a configuration in a temporary folder.

Dovecot is Debian's ``dovecot-imapd`` (``.ci/run`` installs it when it runs as root); without
it the tests that need it skip, saying so.
"""

from __future__ import annotations

import email
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import threading
import uuid
import warnings
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from conftest import free_port, polls

OPENSSL = shutil.which("openssl")
DOVECOT = shutil.which("dovecot", path="/usr/sbin:/usr/bin:" + os.environ.get("PATH", ""))
NEEDS_DOVECOT = pytest.mark.skipif(
    DOVECOT is None or OPENSSL is None,
    reason="Dovecot (dovecot-imapd) or openssl is not installed (.ci/run installs them as "
           "root: apt-get install dovecot-imapd openssl)")


# --------------------------------------------------------------------------- certificates

@dataclass(frozen=True)
class Certificates:
    """A test CA, and a certificate it signed for 127.0.0.1 and localhost."""

    ca: Path
    cert: Path
    key: Path
    # a certificate for the same names signed by a CA nobody trusts
    stranger_cert: Path
    stranger_key: Path

    def server_context(self, trusted: bool = True) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        if trusted:
            context.load_cert_chain(self.cert, self.key)
        else:
            context.load_cert_chain(self.stranger_cert, self.stranger_key)
        return context


def _openssl(*args: str, cwd: Path) -> None:
    assert OPENSSL is not None
    subprocess.run([OPENSSL, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _signed(folder: Path, name: str, ca: str) -> tuple[Path, Path]:
    """A key and a certificate for 127.0.0.1 and localhost, signed by the CA ``ca``."""
    (folder / f"{name}.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj",
             "/CN=localhost", cwd=folder)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
             "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext",
             cwd=folder)
    return folder / f"{name}.pem", folder / f"{name}.key"


def make_certificates(folder: Path) -> Certificates:
    folder.mkdir(parents=True, exist_ok=True)
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    for ca in ("ca", "stranger-ca"):
        _openssl("req", "-x509", *ec, "-keyout", f"{ca}.key", "-out", f"{ca}.pem", "-days", "2",
                 "-subj", f"/CN=judge test {ca}", cwd=folder)
    cert, key = _signed(folder, "server", "ca")
    stranger_cert, stranger_key = _signed(folder, "stranger", "stranger-ca")
    for path in folder.iterdir():
        path.chmod(0o644)  # Dovecot reads the key as root; the CA file is read by anyone
    return Certificates(folder / "ca.pem", cert, key, stranger_cert, stranger_key)


@pytest.fixture(scope="session")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    if OPENSSL is None:
        pytest.skip("openssl is not installed, no test certificate (apt-get install openssl; "
                    "the Dovecot tests need it too)")
    return make_certificates(tmp_path_factory.mktemp("certificates"))


# --------------------------------------------------------------------------- submission

@dataclass
class Submitted:
    mail_from: str
    rcpt_tos: list[str]
    raw: bytes
    tls: bool  # it came over an encrypted connection
    login: str  # the user it logged in as

    @property
    def message(self) -> EmailMessage:
        return email.message_from_bytes(self.raw, policy=policy.default)  # type: ignore[return-value]


@dataclass
class SubmissionServer:
    """A submission server of a mail provider, on loopback: TLS (STARTTLS, or implicit as on
    port 465) and a login required before it takes any mail; what it took is in
    :attr:`received`, and each logins' outcome in :attr:`logins`."""

    certificates: Certificates
    implicit_tls: bool = False
    users: dict[str, str] = field(default_factory=lambda: {"judge@mail.test": "s3cret pass"})
    trusted: bool = True  # False: a certificate signed by a CA nobody trusts
    starttls: bool = True  # False: it offers no STARTTLS
    port: int = 0
    received: list[Submitted] = field(default_factory=list)
    logins: list[tuple[str, bool]] = field(default_factory=list)

    def start(self) -> "SubmissionServer":
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult, LoginPassword

        server = self
        self.port = free_port()

        def authenticator(smtp: Any, session: Any, envelope: Any, mechanism: str,
                          data: Any) -> AuthResult:
            if not isinstance(data, LoginPassword):
                return AuthResult(success=False, handled=False)
            user, password = data.login.decode(), data.password.decode()
            good = server.users.get(user) == password
            server.logins.append((user, good))
            return AuthResult(success=good, handled=False, auth_data=user)

        class Handler:
            async def handle_DATA(self, smtp: Any, session: Any, envelope: Any) -> str:
                server.received.append(Submitted(
                    envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content,
                    tls=session.ssl is not None or server.implicit_tls,
                    login=str(session.auth_data or "")))
                return "250 2.0.0 OK: queued"

        context = self.certificates.server_context(self.trusted)
        options: dict[str, Any] = dict(authenticator=authenticator, auth_required=True,
                                       decode_data=False)
        if self.implicit_tls:
            options.update(ssl_context=context, auth_require_tls=False)
        elif self.starttls:
            options.update(tls_context=context, require_starttls=True)
        else:
            options.update(auth_require_tls=False)
        with warnings.catch_warnings():
            # AUTH without STARTTLS: over implicit TLS, or the server that offers no STARTTLS
            warnings.simplefilter("ignore", UserWarning)
            self._controller = Controller(Handler(), hostname="127.0.0.1", port=self.port,
                                          server_hostname="localhost", **options)
        self._controller.start()
        return self

    def stop(self) -> None:
        self._controller.stop()

    def wait(self, count: int, timeout: float = 20) -> list[Submitted]:
        for _ in polls(timeout):
            if len(self.received) >= count:
                return list(self.received)
        raise AssertionError(f"the submission server got {len(self.received)} mail(s), "
                             f"not {count}")

    @property
    def url(self) -> str:
        return f"{'smtps' if self.implicit_tls else 'smtp+starttls'}://localhost:{self.port}"


# --------------------------------------------------------------------------- Dovecot

def _user_ids() -> tuple[str, str]:
    """The users Dovecot's login and internal processes run as: its own package's when run as
    root, the test's own user otherwise."""
    if os.geteuid() == 0:
        return "dovenull", "dovecot"
    me = pwd.getpwuid(os.geteuid()).pw_name
    return me, me


class PrivateDovecot:
    """A Dovecot of the test's own: IMAP with STARTTLS and IMAPS on free loopback ports, a
    certificate of the test CA, accounts in a passwd-file (added with :meth:`add_user`),
    Maildirs in a folder of its own."""

    def __init__(self, base: Path, certificates: Certificates, trusted: bool = True) -> None:
        assert DOVECOT is not None
        self.base = base
        self.certificates = certificates
        self.imap_port, self.imaps_port = free_port(), free_port()
        self.users_file = base / "users"
        self.mail = base / "mail"
        self.log = base / "dovecot.log"
        self.conf = base / "dovecot.conf"
        self.proc: subprocess.Popen[bytes] | None = None
        self.accounts: list[tuple[str, str]] = []  # not used by a test yet
        self.lock = threading.Lock()
        base.mkdir(parents=True)
        (base / "run").mkdir()
        (base / "state").mkdir()
        self.mail.mkdir()
        self.users_file.write_text("")
        root = os.geteuid() == 0
        # mail is read as nobody when Dovecot runs as root (it refuses uid 0), else as the test
        self.mail_uid = 65534 if root else os.geteuid()
        self.mail_gid = 65534 if root else os.getegid()
        if root:
            shutil.chown(self.mail, self.mail_uid, self.mail_gid)
        login_user, internal_user = _user_ids()
        cert = certificates.cert if trusted else certificates.stranger_cert
        key = certificates.key if trusted else certificates.stranger_key
        dh = Path("/usr/share/dovecot/dh.pem")
        self.conf.write_text("\n".join([
            f"base_dir = {base / 'run'}",
            f"state_dir = {base / 'state'}",
            f"log_path = {self.log}",
            "protocols = imap",
            "listen = 127.0.0.1",
            f"default_login_user = {login_user}",
            f"default_internal_user = {internal_user}",
            f"default_internal_group = {internal_user}",
            "ssl = required",
            f"ssl_cert = <{cert}",
            f"ssl_key = <{key}",
            *([f"ssl_dh = <{dh}"] if dh.exists() else []),
            "disable_plaintext_auth = yes",
            "auth_mechanisms = plain login",
            "auth_failure_delay = 0",  # a refused login is answered at once
            f"mail_location = maildir:{self.mail}/%u",
            "first_valid_uid = 1",
            "mail_fsync = never",
            "passdb {",
            "  driver = passwd-file",
            f"  args = scheme=PLAIN username_format=%u {self.users_file}",
            "}",
            "userdb {",
            "  driver = static",
            f"  args = uid={self.mail_uid} gid={self.mail_gid} home={self.mail}/%u",
            "}",
            "service imap-login {",
            f"  inet_listener imap {{\n    port = {self.imap_port}\n  }}",
            f"  inet_listener imaps {{\n    port = {self.imaps_port}\n    ssl = yes\n  }}",
            "}",
            "service stats {\n  unix_listener stats-reader {\n    mode = 0666\n  }\n"
            "  unix_listener stats-writer {\n    mode = 0666\n  }\n}",
            "",
        ]))

    def add_users(self, count: int, password: str = "box pass") -> None:
        """Accounts for the tests, made before Dovecot starts: it reads the passwd-file again
        only when its time stamp, in seconds, has changed since it last looked."""
        made = [(f"judge{n}-{uuid.uuid4().hex[:6]}@mail.test", password) for n in range(count)]
        with self.users_file.open("a") as users:
            users.writelines(f"{user}:{{PLAIN}}{password}\n" for user, password in made)
        self.accounts.extend(reversed(made))

    def start(self) -> "PrivateDovecot":
        assert DOVECOT is not None
        self.proc = subprocess.Popen([DOVECOT, "-F", "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in polls(20):
            if self.proc.poll() is not None:
                raise RuntimeError(f"dovecot exited: {self.proc.stderr.read().decode()}"  # type: ignore[union-attr]
                                   f"\n{self.logged()}")
            try:
                with socket.create_connection(("127.0.0.1", self.imaps_port), timeout=1):
                    return self
            except OSError:
                pass
        raise RuntimeError(f"dovecot did not listen:\n{self.logged()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def logged(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    @property
    def url(self) -> str:
        return f"imaps://localhost:{self.imaps_port}"

    @property
    def starttls_url(self) -> str:
        return f"imap+starttls://localhost:{self.imap_port}"

    def client(self, user: str, password: str) -> Any:
        """A logged-in IMAPClient (the test's own: as a provider's delivery would, or to look
        at what the judge left)."""
        from imapclient import IMAPClient
        client = IMAPClient("localhost", self.imaps_port, ssl=True, timeout=20,
                            ssl_context=ssl.create_default_context(
                                cafile=str(self.certificates.ca)))
        client.login(user, password)
        return client

    def deliver(self, user: str, password: str, raw: bytes, folder: str = "INBOX") -> None:
        """Put a mail into the account's folder, as the provider's delivery does."""
        client = self.client(user, password)
        try:
            client.append(folder, raw)
        finally:
            client.logout()

    def count(self, user: str, password: str, folder: str = "INBOX") -> int:
        """How many mails the folder holds (not flagged deleted)."""
        client = self.client(user, password)
        try:
            if not client.folder_exists(folder):
                return 0
            client.select_folder(folder, readonly=True)
            return len(client.search(["NOT", "DELETED"]))
        finally:
            client.logout()


# Accounts of a module's Dovecot (each test takes one or two).
ACCOUNTS = 30


@pytest.fixture(scope="module")
def dovecot(certificates: Certificates) -> Any:
    """A Dovecot for the tests of a module (each test adds accounts of its own)."""
    if DOVECOT is None:
        pytest.skip("Dovecot is not installed (.ci/run installs it as root: apt-get install "
                    "dovecot-imapd)")
    # short: Dovecot's UNIX sockets live under base_dir (a path of at most 108 bytes)
    base = Path("/tmp") / f"judge-dc-{uuid.uuid4().hex[:8]}"
    server = PrivateDovecot(base, certificates)
    server.add_users(ACCOUNTS)
    server.start()
    yield server
    server.stop()
    shutil.rmtree(base, ignore_errors=True)


def new_account(server: PrivateDovecot) -> tuple[str, str]:
    """An account of ``server`` no test used yet: (user, password)."""
    with server.lock:
        return server.accounts.pop()


# --------------------------------------------------------------------------- a holding proxy

class HoldingProxy:
    """Between the judge and an IMAPS server, on a port of its own: passes every byte both
    ways (TLS ended and begun again with the test CA's certificate), but holds the first
    command of the judge's that holds ``hold_on`` (say ``b"MOVE"``: the removal of mail the
    judge has just stored) and sets :attr:`held`.  The judge then waits for an answer that
    never comes, at a moment the test chose, and is killed there."""

    def __init__(self, certificates: Certificates, target_port: int) -> None:
        self.certificates = certificates
        self.target_port = target_port
        self.port = free_port()
        self.hold_on: bytes | None = None
        self.held = threading.Event()
        self._released = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._closing = False
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True, name="holding-proxy").start()

    def arm(self, hold_on: bytes | None) -> None:
        """Hold the next command holding ``hold_on`` (None: hold nothing)."""
        self.hold_on = hold_on
        self.held.clear()

    def _accept(self) -> None:
        server_side = self.certificates.server_context()
        client_side = ssl.create_default_context(cafile=str(self.certificates.ca))
        while not self._closing:
            try:
                raw, _ = self._listener.accept()
            except OSError:
                return
            try:
                judge = server_side.wrap_socket(raw, server_side=True)
                imap = client_side.wrap_socket(
                    socket.create_connection(("127.0.0.1", self.target_port), timeout=20),
                    server_hostname="localhost")
            except OSError:
                raw.close()
                continue
            self._sockets += [judge, imap]
            threading.Thread(target=self._pump, args=(judge, imap, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(imap, judge, False), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, from_judge: bool) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if from_judge and self.hold_on is not None and self.hold_on in data:
                    self.hold_on = None
                    self.held.set()
                    self._released.wait()  # never passed on: the judge waits for its answer
                    return
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self._closing = True
        self._released.set()
        self._listener.close()
        for end in self._sockets:
            end.close()

    @property
    def url(self) -> str:
        return f"imaps://localhost:{self.port}"
