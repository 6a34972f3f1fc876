"""Configuration: a TOML file, every key optional, overridden by environment variables.

The file is chosen by ``--config FILE`` or ``JUDGE_CONFIG``; with neither, the embedded defaults
give a working judge (SQLite file, SMTP on 127.0.0.1:2525, replies to a local Maildir).  Each key
``[section] key`` can be overridden by the environment variable ``JUDGE_<SECTION>_<KEY>``
(e.g. ``JUDGE_DATABASE_URL``).  Anything wrong is a :class:`ConfigError` whose message is one
line, fit to print before a non-zero exit.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from email.headerregistry import Address
from pathlib import Path
from typing import Any, Callable, Mapping, cast


class ConfigError(Exception):
    """A configuration that cannot work; ``str()`` is one line for the operator."""


@dataclass(frozen=True)
class JudgeSection:
    address: str = "judge@localhost"
    name: str = "JUDGE"
    # The judge sends at most this many replies to one address per day, then one last notice.
    # Mail that signs on with the right password from the role's own address is not counted.
    replies_per_day: int = 50
    # The same for an address that is the master of a game in play (a fast game's master
    # may LIST every phase).
    master_replies_per_day: int = 500
    # The keeper's (operator's) address: exempt from the daily ceiling on CREATE.
    keeper: str = ""


@dataclass(frozen=True)
class DatabaseSection:
    url: str = "sqlite:///judge.db"


@dataclass(frozen=True)
class IntakeSection:
    # HOST:PORT of the SMTP/LMTP listener; empty: no listener (mail comes from [mailbox] only).
    listen: str = "127.0.0.1:2525"
    protocol: str = "smtp"
    max_message_size: int = 256 * 1024
    # How long SIGTERM waits for sessions in flight before the daemon exits anyway.
    shutdown_grace: float = 8.0
    # SMTP/LMTP sessions open at once; one more is answered 421 and closed.
    max_connections: int = 100
    # A session that sends no command for this long is closed (a DATA transfer included).
    idle_timeout: float = 60.0
    # A session is closed (421) after this long, however busy it keeps itself.
    session_timeout: float = 600.0
    # Recipients one transaction may name (the message is stored once whatever their number).
    max_recipients: int = 100


@dataclass(frozen=True)
class OutboundSection:
    # maildir:PATH, smtp://HOST:PORT (a relay that needs no login), or a provider's submission
    # server: smtp+starttls://HOST:587 or smtps://HOST:465 (with user and a password).
    transport: str = "maildir:./mail"
    max_attempts: int = 12
    retry_base_seconds: float = 30.0
    # The submission server's login: the account's user name, and its password here, in the
    # environment (JUDGE_OUTBOUND_PASSWORD) or in a file of its own (password_file, first line).
    user: str = ""
    password: str = field(default="", repr=False)  # never in a repr, a log or a traceback
    password_file: str = ""
    # A CA certificate file (PEM) to verify the server with instead of the system's CAs (a
    # private CA); the certificate is always verified.
    ca_file: str = ""


@dataclass(frozen=True)
class MailboxSection:
    """An IMAP mailbox the judge takes its mail from, beside or instead of [intake] listen."""

    # imaps://HOST[:993] or imap+starttls://HOST[:143]; empty: no mailbox is read.
    url: str = ""
    # The login, as for [outbound]: password here, in JUDGE_MAILBOX_PASSWORD, or password_file.
    user: str = ""
    password: str = field(default="", repr=False)
    password_file: str = ""
    ca_file: str = ""
    # The folder the judge's mail arrives in.
    folder: str = "INBOX"
    # Where a mail goes once the judge has stored it; empty: it is deleted from the server
    # (the judge keeps its own copy for [retention] raw_mail_days).
    stored_folder: str = ""
    # How often the folder is looked at; a server with IDLE says at once when mail comes.
    poll_seconds: float = 60.0


@dataclass(frozen=True)
class BouncesSection:
    """Mail that comes back undelivered (judge.mail.reading.bounces)."""

    # The envelope sender (return path) of the judge's mail; {token} is replaced by a token
    # of each recipient's own, which tells the judge whose mail bounced.  Empty: the judge's
    # address with "+bounce-{token}".  A return path without {token} (a provider that takes
    # no "+" addresses) gets the bounces too: then only a bounce naming a mail the judge sent
    # to the address it names is counted.
    return_path: str = ""
    # Hard bounces (the address does not exist, 5xx) after which an address is marked
    # failing: its games' masters are told and the judge writes to it no more until it writes.
    hard_bounces: int = 3


@dataclass(frozen=True)
class WorkerSection:
    # A message whose processing fails this many times is set aside for the operator.
    max_attempts: int = 3
    poll_seconds: float = 2.0
    lease_seconds: float = 300.0
    # How much lower the CPU priority of the worker process (worker, scheduler), of the sender and
    # of the web view's process is than the daemon's (a nice increment, 0 to 19): on a machine
    # short of CPU, accepting mail comes first.  0 runs them all alike.
    niceness: int = 19


@dataclass(frozen=True)
class SchedulerSection:
    # How often the daemon looks for games whose reminder, deadline or grace has come.
    poll_seconds: float = 5.0
    # Games handled per pass (each in its own transaction).
    batch: int = 100


@dataclass(frozen=True)
class RetentionSection:
    # Raw received mail and sent mail are kept this many days after processing (or sending),
    # then their bodies are deleted (the rows and their notes stay); 0 keeps them for ever.
    raw_mail_days: float = 3.0


@dataclass(frozen=True)
class LimitsSection:
    """What one mail, or one address in one UTC day, may make the judge do."""

    # Commands (and order lines) executed from one mail; the rest are answered unread.
    commands_per_mail: int = 200
    # Size of one reply's text; answers beyond it are cut, with a note saying so.
    reply_bytes: int = 1_000_000
    # Passwords one mail may set or check (each costs a deliberately slow hash).
    passwords_per_mail: int = 20
    # Copies of mail one mail may cause to addresses other than its sender's that have not
    # confirmed they want the game's mail (a game's confirmed members are the game working).
    mail_per_mail: int = 100
    # Bytes of mail to others one mail, and one sender in a day, may cause (press, votes,
    # notices); the commands that keep a game moving (the master's, orders, JOIN) are not
    # counted, and never refused.
    mail_bytes_per_mail: int = 1_000_000
    mail_bytes_per_day: int = 5_000_000
    # One press message's text: at most this many bytes and lines.
    press_bytes: int = 10_000
    press_lines: int = 200
    # Observers of one game, those still to confirm included (one seat per address).
    observers_per_game: int = 30
    # Days a confirmation code (OBSERVE, REPLACE, SET ADDRESS) stays valid, and the wrong
    # codes one address may send a day (then its CONFIRMs are not checked until midnight).
    confirm_days: int = 3
    confirm_failures_per_sender: int = 5
    # Addresses that have never written to the judge which one mail, or one sender in a
    # day, may make the judge write to (each gets one notice until it writes itself).
    new_recipients_per_mail: int = 10
    new_recipients_per_day: int = 30
    # Games one address may CREATE a day (the keeper's address is exempt).
    creates_per_day: int = 10
    # Failed SIGNONs for one role a day: from one address, and from all addresses other
    # than the role's own (beyond them guesses are not even checked; the role's own
    # address is always checked).
    signon_failures_per_sender: int = 5
    signon_failures_per_role: int = 20
    # A mail's commands are committed in batches of at most this long, so that one mail
    # never holds the store for long.
    batch_seconds: float = 0.2
    # How much of one received mail is read (judge.mail.reading.bounds): a mail beyond any of these
    # is answered that it could not be read, and none of it is executed.  The MIME parts of
    # one mail (attachments, alternatives, attached messages) and how deep they nest; every
    # line of a part costs the parser a look at each enclosing part's boundary.
    mime_parts: int = 100
    mime_depth: int = 20
    # Characters of the headers that are parsed (From, Reply-To, Subject, the robot checks'
    # headers, each part's Content-Type, -Disposition and -Transfer-Encoding), all together:
    # the email package's parsers spend up to tens of microseconds a character on them.
    header_chars: int = 10_000
    # Elements, comments and declarations of an HTML-only mail, and the elements open at once.
    html_nodes: int = 20_000
    html_depth: int = 500


@dataclass(frozen=True)
class WebSection:
    """The read-only web view and JSON API (judge.web), served by ``judge serve``."""

    # HOST:PORT the pages are served on; empty: no web server
    listen: str = "127.0.0.1:8080"
    # the address people reach the pages at (e.g. https://judge.example.org, behind a proxy);
    # when set, results mails and LIST replies carry a link to the game's page
    url: str = ""
    # Web connections open at once; one more is answered 503 and closed.  Lowered to fit the
    # web process's open-files limit (the web view runs in a process of its own: its
    # connections never take a file descriptor SMTP intake needs).
    max_connections: int = 256
    # A request's head (its request line and headers) must arrive within this long of the
    # connection, or of its first byte after the last answer; else the connection is closed.
    header_timeout: float = 10.0
    # A kept-alive connection with no request for this long is closed.
    idle_timeout: float = 30.0
    # Reading a request's body and sending its answer may take this long; then the connection
    # is closed (a client that reads the answer a byte at a time holds nothing for ever).
    request_timeout: float = 30.0
    # Pages, JSON answers and map pictures being made, or waiting for a thread, at once; one
    # more is answered 503 at once (answers kept or already drawn are not counted).
    max_renders: int = 8
    # Seconds a public answer (the same for everybody) is kept and served again; 0: never.
    keep_seconds: float = 1.0
    # Bytes of public answers kept (expired ones are dropped as answers are added, then the
    # least recently used).
    cache_bytes: int = 16 * 1024 * 1024
    # Bytes of drawn map pictures kept (each board is drawn once while it is kept; evicted
    # least recently asked first).
    map_cache_bytes: int = 64 * 1024 * 1024
    # Days a private game's pass (the cookie) lasts, and a link from mail can be opened in.
    pass_days: float = 30.0


@dataclass(frozen=True)
class Config:
    judge: JudgeSection = field(default_factory=JudgeSection)
    database: DatabaseSection = field(default_factory=DatabaseSection)
    intake: IntakeSection = field(default_factory=IntakeSection)
    outbound: OutboundSection = field(default_factory=OutboundSection)
    worker: WorkerSection = field(default_factory=WorkerSection)
    scheduler: SchedulerSection = field(default_factory=SchedulerSection)
    retention: RetentionSection = field(default_factory=RetentionSection)
    limits: LimitsSection = field(default_factory=LimitsSection)
    web: WebSection = field(default_factory=WebSection)
    mailbox: MailboxSection = field(default_factory=MailboxSection)
    bounces: BouncesSection = field(default_factory=BouncesSection)
    source: str = "embedded defaults"

    @property
    def listens(self) -> bool:
        """Whether the SMTP/LMTP listener runs (``[intake] listen`` is not empty)."""
        return bool(self.intake.listen.strip())

    @property
    def listen_host(self) -> str:
        return _split_listen(self.intake.listen)[0]

    @property
    def listen_port(self) -> int:
        return _split_listen(self.intake.listen)[1]

    @property
    def web_address(self) -> tuple[str, int] | None:
        """Where the web view listens, or None when ``[web] listen`` is empty (turned off)."""
        if not self.web.listen.strip():
            return None
        return _split_listen(self.web.listen, "[web] listen")

    @property
    def web_url(self) -> str:
        """``[web] url`` without a trailing slash ('' when not set)."""
        return self.web.url.rstrip("/")

    @property
    def judge_domain(self) -> str:
        return self.judge.address.rpartition("@")[2]


# Each section's class (its dataclass field's default factory), by section name.
_SECTIONS: dict[str, Callable[[], Any]] = {
    f.name: cast(Callable[[], Any], f.default_factory) for f in fields(Config)
    if f.name != "source"}


def load_config(path: str | os.PathLike[str] | None = None,
                environ: Mapping[str, str] | None = None) -> Config:
    """Read the configuration from ``path`` (or ``$JUDGE_CONFIG``), then apply env overrides."""
    env = os.environ if environ is None else environ
    path = path or env.get("JUDGE_CONFIG") or None
    raw: dict[str, Any] = {}
    source = "embedded defaults"
    if path:
        p = Path(path)
        try:
            raw = tomllib.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"configuration file not found: {p}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read configuration file {p}: {exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: not valid TOML: {exc}") from None
        source = str(p)
    config = Config(source=source)
    for section, values in raw.items():
        if section not in _SECTIONS:
            raise ConfigError(f"{source}: unknown section [{section}] "
                              f"(known: {', '.join(sorted(_SECTIONS))})")
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: [{section}] must be a table")
        config = _apply(config, section, values, source)
    overrides: dict[str, dict[str, str]] = {}
    for (section, key), var in environment_settings(env).items():
        overrides.setdefault(section, {})[key] = env[var]
    for section, values in overrides.items():
        config = _apply(config, section, values, "environment")
    validate(config)
    return config


def environment_settings(environ: Mapping[str, str] | None = None) -> dict[tuple[str, str], str]:
    """``(section, key)`` → the variable ``JUDGE_<SECTION>_<KEY>`` of ``environ`` (default
    ``os.environ``) that sets it, for every such variable there."""
    env = os.environ if environ is None else environ
    found = {}
    for section, factory in _SECTIONS.items():
        for f in fields(factory()):
            var = f"JUDGE_{section.upper()}_{f.name.upper()}"
            if var in env:
                found[section, f.name] = var
    return found


def stray_environment(environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """Variables of ``environ`` that begin like a section's (``JUDGE_INTAKE_``) but name none of
    its keys, with that section: the judge ignores them, and a mistyped one would otherwise
    go unnoticed."""
    env = os.environ if environ is None else environ
    known = set(environment_settings(env).values())
    stray = []
    for var in sorted(env):
        for section in _SECTIONS:
            if var.startswith(f"JUDGE_{section.upper()}_") and var not in known:
                stray.append((var, section))
    return stray


def _apply(config: Config, section: str, values: Mapping[str, Any], source: str) -> Config:
    current = getattr(config, section)
    known = {f.name: f for f in fields(current)}
    changes: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown key '{key}' in [{section}] "
                              f"(known: {', '.join(sorted(known))})")
        default = getattr(type(current)(), key)
        changes[key] = _coerce(value, type(default), f"[{section}] {key}", source)
    return replace(config, **{section: replace(current, **changes)})


def _coerce(value: Any, kind: type, where: str, source: str) -> Any:
    # Environment values are strings; TOML values are typed. Accept both, refuse nonsense.
    try:
        if kind is bool:
            raise TypeError  # no boolean keys yet
        if kind is int and not isinstance(value, (bool, float)):  # 2.5 is no count of anything
            return int(value)
        if kind is float and not isinstance(value, bool):
            return float(value)
        if kind is str and isinstance(value, str):
            return value
    except (TypeError, ValueError):
        pass
    raise ConfigError(f"{source}: {where} must be {kind.__name__}, got {value!r}")


def _split_listen(listen: str, key: str = "[intake] listen") -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not (0 <= int(port) <= 65535):
        raise ConfigError(f"{key} must be HOST:PORT, got {listen!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def validate(config: Config) -> None:
    """Check values that parse but cannot work; raise ConfigError with one line."""
    try:
        addr = Address(addr_spec=config.judge.address)
    except Exception:
        raise ConfigError(f"[judge] address is not a mail address: {config.judge.address!r}") from None
    if not addr.username or not addr.domain:
        raise ConfigError(f"[judge] address needs a local part and a domain: {config.judge.address!r}")
    if not config.judge.name.strip() or any(c.isspace() for c in config.judge.name):
        raise ConfigError(f"[judge] name must be one word, got {config.judge.name!r}")
    if config.listens:
        _split_listen(config.intake.listen)
    elif not config.mailbox.url.strip():
        raise ConfigError("[intake] listen is empty and [mailbox] url is not set: the judge "
                          "would take no mail")
    if config.web.listen.strip():
        _split_listen(config.web.listen, "[web] listen")
    url = config.web.url
    if url and (not re.fullmatch(r"https?://[^\s/]+(/[^\s]*)?", url)):
        raise ConfigError(f"[web] url must be empty or start with http:// or https://, got {url!r}")
    if config.intake.protocol not in ("smtp", "lmtp"):
        raise ConfigError(f"[intake] protocol must be 'smtp' or 'lmtp', got {config.intake.protocol!r}")
    if config.intake.max_message_size < 1024:
        raise ConfigError("[intake] max_message_size must be at least 1024 bytes")
    scheme = config.database.url.split(":", 1)[0]
    if not (scheme.startswith("sqlite") or scheme.startswith("postgresql")):
        raise ConfigError("[database] url must be sqlite:/// or postgresql+psycopg://, "
                          f"got {config.database.url!r}")
    _validate_transport(config.outbound)
    _validate_mailbox(config.mailbox)
    _validate_bounces(config)
    if config.judge.keeper:
        from judge.basics.addresses import AddressError, checked_address
        try:
            checked_address(config.judge.keeper)
        except AddressError as exc:
            raise ConfigError(f"[judge] keeper is not a usable mail address: {exc}") from None
    for name, value in (("[judge] replies_per_day", config.judge.replies_per_day),
                        ("[judge] master_replies_per_day", config.judge.master_replies_per_day),
                        ("[limits] commands_per_mail", config.limits.commands_per_mail),
                        ("[limits] reply_bytes", config.limits.reply_bytes),
                        ("[worker] max_attempts", config.worker.max_attempts),
                        ("[outbound] max_attempts", config.outbound.max_attempts),
                        ("[intake] max_connections", config.intake.max_connections),
                        ("[intake] max_recipients", config.intake.max_recipients),
                        ("[limits] mime_parts", config.limits.mime_parts),
                        ("[limits] mime_depth", config.limits.mime_depth),
                        ("[limits] header_chars", config.limits.header_chars),
                        ("[limits] html_nodes", config.limits.html_nodes),
                        ("[limits] html_depth", config.limits.html_depth),
                        ("[web] max_connections", config.web.max_connections),
                        ("[web] max_renders", config.web.max_renders),
                        ("[bounces] hard_bounces", config.bounces.hard_bounces)):
        if value < 1:
            raise ConfigError(f"{name} must be at least 1")
    for name, seconds in (("[intake] idle_timeout", config.intake.idle_timeout),
                          ("[intake] session_timeout", config.intake.session_timeout),
                          ("[web] header_timeout", config.web.header_timeout),
                          ("[web] idle_timeout", config.web.idle_timeout),
                          ("[web] request_timeout", config.web.request_timeout),
                          ("[web] pass_days", config.web.pass_days)):
        if seconds <= 0:
            raise ConfigError(f"{name} must be more than 0 seconds")
    if min(config.web.cache_bytes, config.web.map_cache_bytes, config.web.keep_seconds) < 0:
        raise ConfigError("[web] keep_seconds, cache_bytes and map_cache_bytes must not be "
                          "negative")
    if not 0 <= config.worker.niceness <= 19:
        raise ConfigError(f"[worker] niceness must be 0 to 19, got {config.worker.niceness}")
    if config.retention.raw_mail_days < 0:
        raise ConfigError("[retention] raw_mail_days must be 0 (keep for ever) or more")
    for name, value in vars(config.limits).items():
        if value < 0:
            raise ConfigError(f"[limits] {name} must not be negative")
    if config.limits.confirm_days < 1:
        raise ConfigError("[limits] confirm_days must be at least 1")
    # the day's count is stored in a 32-bit column
    if config.limits.mail_bytes_per_day >= 2 ** 31:
        raise ConfigError("[limits] mail_bytes_per_day must be less than 2147483648")


# The transports whose server the judge logs in to, and the URL schemes of each kind.
SUBMISSION_SCHEMES = ("smtp+starttls", "smtps")
MAILBOX_SCHEMES = ("imaps", "imap+starttls")


def _server_url(url: str, key: str, schemes: tuple[str, ...]) -> None:
    """A server's URL names a host and no login: the login has keys of its own, so that a
    password never stands in a URL the log or check-config would print."""
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is no number
    except ValueError as exc:
        raise ConfigError(f"{key} is not a usable URL: {url!r} ({exc})") from None
    if parts.scheme not in schemes or not parts.hostname:
        raise ConfigError(f"{key} must be {' or '.join(s + '://HOST[:PORT]' for s in schemes)}, "
                          f"got {url!r}")
    if parts.username is not None or parts.password is not None:
        raise ConfigError(f"{key} must not hold a login: set user and password (or "
                          "password_file) in its section instead")
    if parts.path.strip("/") or parts.query:
        raise ConfigError(f"{key} takes only a host and a port, got {url!r}")


def _validate_login(section: Any, name: str) -> None:
    if section.password and section.password_file:
        raise ConfigError(f"[{name}] password and password_file are both set: set one")
    if section.user and not (section.password or section.password_file):
        raise ConfigError(f"[{name}] user is set but no password (password, "
                          f"JUDGE_{name.upper()}_PASSWORD or password_file)")
    if (section.password or section.password_file) and not section.user:
        raise ConfigError(f"[{name}] has a password but no user")
    if section.password_file:
        password_of(section, name)  # readable, not empty
    if section.ca_file and not Path(section.ca_file).is_file():
        raise ConfigError(f"[{name}] ca_file {section.ca_file!r} is not a file")


def password_of(section: Any, name: str) -> str:
    """The password of a login section (``[outbound]``, ``[mailbox]``): the setting (or its
    environment variable), else the first line of ``password_file``."""
    if section.password or not section.password_file:
        return str(section.password)
    try:
        text = Path(section.password_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"[{name}] password_file {section.password_file!r} cannot be read: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None
    password = (text.splitlines() or [""])[0]
    if not password:
        raise ConfigError(f"[{name}] password_file {section.password_file!r} is empty")
    return password


def _validate_transport(outbound: OutboundSection) -> None:
    transport = outbound.transport
    if transport.startswith("maildir:") or transport.startswith("smtp://"):
        if outbound.user:
            raise ConfigError("[outbound] user is set, but a login needs an encrypted "
                              "connection: transport = 'smtp+starttls://HOST:587' or "
                              "'smtps://HOST:465'")
        return
    if transport.partition("://")[0] not in SUBMISSION_SCHEMES:
        raise ConfigError("[outbound] transport must be 'maildir:PATH', 'smtp://HOST:PORT', "
                          "'smtp+starttls://HOST:PORT' or 'smtps://HOST:PORT', "
                          f"got {transport!r}")
    _server_url(transport, "[outbound] transport", SUBMISSION_SCHEMES)
    _validate_login(outbound, "outbound")


def _validate_mailbox(mailbox: MailboxSection) -> None:
    if not mailbox.url.strip():
        return
    _server_url(mailbox.url, "[mailbox] url", MAILBOX_SCHEMES)
    if not mailbox.user:
        raise ConfigError("[mailbox] url is set but no user to log in as")
    _validate_login(mailbox, "mailbox")
    if not mailbox.folder.strip():
        raise ConfigError("[mailbox] folder must name a folder (INBOX, say)")
    if mailbox.stored_folder.strip() == mailbox.folder.strip():
        raise ConfigError("[mailbox] stored_folder must not be the folder mail arrives in")
    if mailbox.poll_seconds <= 0:
        raise ConfigError("[mailbox] poll_seconds must be more than 0 seconds")


def _validate_bounces(config: Config) -> None:
    pattern = config.bounces.return_path
    if not pattern:
        return
    if pattern.count("{token}") > 1 or "{token}" in pattern.rpartition("@")[2]:
        raise ConfigError("[bounces] return_path may hold {token} once, before the @, "
                          f"got {pattern!r}")
    from judge.basics.addresses import AddressError, checked_address
    try:
        checked_address(pattern.replace("{token}", "abcdefghijklmnopqrst"))
    except AddressError as exc:
        raise ConfigError(f"[bounces] return_path is not a usable mail address ({exc}): "
                          f"{pattern!r}") from None
