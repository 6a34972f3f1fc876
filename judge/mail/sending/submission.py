"""Sending through a mail provider's submission server: TLS, a login, a verified certificate.

``[outbound] transport = "smtp+starttls://HOST:587"`` speaks plain SMTP until STARTTLS (never
sending the login before it: a server that does not offer STARTTLS gets no login), and
``"smtps://HOST:465"`` TLS from the first byte.  Either way the server's certificate is
verified against the system's CAs (or ``[outbound] ca_file``'s) and its name checked, and the
judge logs in with ``[outbound] user`` and the password.

The standard library's smtplib does all of it (STARTTLS, implicit TLS, AUTH PLAIN, LOGIN and
CRAM-MD5 as the server offers them) in the sender's own process, where blocking costs nothing:
aiosmtplib would add an event loop the sender has no use for.  Everything else -- one
connection for a run of mails, QUIT only after the sender recorded them, at-least-once -- is
:class:`judge.mail.sending.transports.SmtpTransport`'s.

A refused login or a certificate that fails verification is a temporary failure (the mail is
tried again with back-off, and ``judge outbox list`` shows why): the operator mends the
password or the CA, and the mail goes.  It is said in the log once a run, as an error, and the
judge does not try the login again for every mail of the run (a provider locks an account that
keeps failing).
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from urllib.parse import urlsplit

from judge.basics.config import Config, password_of
from judge.mail.sending.transports import SmtpTransport, TemporaryFailure, Transport, make_transport

log = logging.getLogger("judge.sender")

DEFAULT_PORTS = {"smtp+starttls": 587, "smtps": 465}


def tls_context(ca_file: str = "") -> ssl.SSLContext:
    """A client context that verifies the server's certificate and name: against ``ca_file``
    when given (a private CA), else the system's CAs."""
    return ssl.create_default_context(cafile=ca_file or None)


def why_tls_failed(exc: ssl.SSLError, where: str, setting: str) -> str:
    """One line for the operator: a certificate that fails verification names the setting
    that accepts a private CA."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        reason = exc.verify_message or exc.reason or str(exc)
        return (f"the certificate of {where} failed verification ({reason}); a server with a "
                f"certificate of a private CA needs {setting}")
    return f"TLS with {where} failed: {exc.reason or exc}"


class SubmissionTransport(SmtpTransport):
    """:class:`SmtpTransport` over TLS (STARTTLS or implicit), logged in."""

    def __init__(self, host: str, port: int, *, implicit_tls: bool, user: str, password: str,
                 context: ssl.SSLContext, timeout: float = 30.0) -> None:
        super().__init__(host, port, timeout)
        self.implicit_tls = implicit_tls
        self.user = user
        self._password = password
        self._context = context
        # Why the server cannot be used this run (a refused login, a bad certificate): every
        # mail of the run fails with it at once, without asking the server again.
        self._unusable: str | None = None

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    def _open(self) -> smtplib.SMTP:
        if self._unusable is not None:
            raise TemporaryFailure(self._unusable)
        smtp: smtplib.SMTP | None = None
        try:
            if self.implicit_tls:
                smtp = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout,
                                        context=self._context)
            else:
                smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
                smtp.ehlo()
                if not smtp.has_extn("starttls"):
                    self._give_up(f"{self.where} does not offer STARTTLS: the judge does not "
                                  "send its login unencrypted (smtps:// for port 465?)")
                smtp.starttls(context=self._context)
                smtp.ehlo()
            if self.user:
                smtp.login(self.user, self._password)
            return smtp
        except smtplib.SMTPAuthenticationError as exc:
            _close(smtp)
            self._give_up(f"login to {self.where} as {self.user} refused: {exc.smtp_code} "
                          f"{_text(exc.smtp_error)}")
        except smtplib.SMTPNotSupportedError as exc:
            _close(smtp)
            self._give_up(f"{self.where} offers no login (AUTH) to {self.user}: {exc}")
        except ssl.SSLError as exc:
            _close(smtp)
            self._give_up(why_tls_failed(exc, self.where, "[outbound] ca_file"))
        except BaseException:
            _close(smtp)
            raise
        raise AssertionError("unreachable")  # pragma: no cover - _give_up raises

    def _give_up(self, why: str) -> None:
        """The server cannot be used this run, for a reason the operator must hear of."""
        self._unusable = why
        log.error("cannot send: %s; the mail is tried again later", why)
        raise TemporaryFailure(why)

    def close(self) -> None:
        self._unusable = None  # the next run asks the server again
        super().close()


def _text(error: bytes | str) -> str:
    return error.decode("utf-8", "replace") if isinstance(error, bytes) else str(error)


def _close(smtp: smtplib.SMTP | None) -> None:
    if smtp is not None:
        try:
            smtp.close()
        except OSError:
            pass


def transport_for(config: Config) -> Transport:
    """The transport ``[outbound]`` describes (a submission server with its login, or what
    :func:`judge.mail.sending.transports.make_transport` makes of the URL)."""
    outbound = config.outbound
    scheme = outbound.transport.partition("://")[0]
    if scheme not in DEFAULT_PORTS:
        return make_transport(outbound.transport)
    parts = urlsplit(outbound.transport)
    assert parts.hostname is not None  # judge.basics.config checked it
    return SubmissionTransport(parts.hostname, parts.port or DEFAULT_PORTS[scheme],
                               implicit_tls=scheme == "smtps", user=outbound.user,
                               password=password_of(outbound, "outbound"),
                               context=tls_context(outbound.ca_file))
