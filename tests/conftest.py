"""Shared fixtures: a real ``judge serve`` process on a free port (forked from a process that has
already imported the judge: tests/forked_daemons.py), with its own database and Maildir, and
helpers to mail it and read its replies.

Each test gets a fresh, empty database: a SQLite file in its ``tmp_path``, or, when
``JUDGE_TEST_DATABASE_URL`` names a PostgreSQL server, a database of its own created there
(``CREATE DATABASE`` from ``template0``) and dropped afterwards.  The URL's database is used only
to connect for those two statements; the role needs the CREATEDB privilege.
"""

from __future__ import annotations

import email
import functools
import os
import shutil
import signal
import smtplib
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
import weakref
from contextlib import closing
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import pytest

# Keep compiled modules (pytest's rewritten test modules among them) in __pycache__ even where
# the environment says not to (PYTHONDONTWRITEBYTECODE, common in containers): without them
# every test process compiles every test module again, seconds of each run, and every judge
# subprocess of an editable checkout compiles the judge again.
sys.dont_write_bytecode = False

# Cheap password hashes for the thousands of JOINs and SIGNONs the tests send (see
# judge.service.access.passwords); set before any judge module is imported.
PASSWORD_COST = os.environ.setdefault("JUDGE_PASSWORD_COST", "10")
# In this process (the in-process game and web kits) cheaper still: 2**4 where the judge lets
# nobody set less than 2**10.  A hash records its own cost, so what a test proves does not
# depend on it; at 2**10 hashing was a sixth of the CPU of a game played in process.
import judge.service.access.passwords  # noqa: E402  (after the variable above is set)

judge.service.access.passwords._N = 2 ** 4

from forked_daemons import ForkedDaemon, start_serve  # noqa: E402

JUDGE_EXE = str(Path(sys.executable).with_name("judge"))
JUDGE_ADDRESS = "judge@example.org"
PG_URL = os.environ.get("JUDGE_TEST_DATABASE_URL") or None


def on_postgresql() -> bool:
    """Whether this run's databases are PostgreSQL ones (``JUDGE_TEST_DATABASE_URL`` is set)."""
    return PG_URL is not None


def run_sql(url: str, statement: str, **params: Any) -> list[tuple[Any, ...]]:
    """Run one SQL statement on ``url`` in its own short transaction (and connection); rows if
    it returns any."""
    from sqlalchemy import text
    with _sql_engine(url).begin() as conn:
        result = conn.execute(text(statement), params)
        return [tuple(r) for r in result] if result.returns_rows else []


@functools.lru_cache(maxsize=32)
def _sql_engine(url: str) -> Any:
    """An engine that keeps no connection (each statement opens its own, so a database a test
    removed or replaced is never held), kept per URL: tests poll the judge's tables hundreds
    of times, and building an engine and compiling the statement each time was most of that."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool
    return create_engine(url, poolclass=NullPool)


class _PostgresDatabases:
    """Throwaway databases, one per test, on the server of ``PG_URL``.

    A copy of the migrated template costs about 0.3 s on the server (CREATE DATABASE copies
    every block), which was most of the PostgreSQL pass.  So a test's database that still has
    exactly the template's schema when the test ends is emptied (TRUNCATE … RESTART IDENTITY,
    ids start again from 1) and kept, renamed, for the next test of this process that needs a
    migrated one; any other (a table dropped, a trigger added, a schema downgraded or marked
    with another revision) is dropped.  The template holds no rows but its revision."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url
        self.base = make_url(url)
        self.admin = create_engine(self.base, isolation_level="AUTOCOMMIT")
        self.kept: list[str] = []  # emptied databases at the head, ready for a test
        self.head: str | None = None  # the migrated template's name (``_head_template``)
        self.head_schema: str | None = None  # and its schema, once known

    def url_of(self, name: str) -> str:
        return self.base.set(database=name).render_as_string(hide_password=False)

    def create(self, template: str = "template0", name: str | None = None) -> str:
        from sqlalchemy import text
        name = name or f"judge_test_{uuid.uuid4().hex[:16]}"
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
        return self.url_of(name)

    def refill(self, url: str, template: str) -> None:
        """The database of ``url`` again, as a copy of ``template`` (a kept one when there is
        one: the same schema, no rows)."""
        from sqlalchemy import text
        from sqlalchemy.engine import make_url
        self.drop(url)
        name = make_url(url).database
        if self.kept:
            with self.admin.connect() as conn:
                conn.execute(text(f'ALTER DATABASE "{self.kept.pop()}" RENAME TO "{name}"'))
        else:
            self.create(template, name)

    def release(self, url: str) -> None:
        """A test is done with ``url``: keep it, emptied, when its schema is the migrated
        template's; drop it otherwise."""
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url
        from sqlalchemy.pool import NullPool
        name = make_url(url).database
        if self.head is None:  # no test of this process asked for a migrated database
            self.drop(url)
            return
        self._disconnect(name)
        if self.head_schema is None:
            self.head_schema = self._schema(self.url_of(self.head))
        engine = create_engine(url, poolclass=NullPool)
        try:
            if self._schema(url) != self.head_schema:
                raise LookupError("not the template's schema")
            with engine.begin() as conn:
                tables = [t for (t,) in conn.execute(text(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                    "AND tablename <> 'alembic_version'"))]
                conn.execute(text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE"))
        except Exception:  # noqa: BLE001 -- whatever is wrong with it, it is not kept
            engine.dispose()
            self.drop(url)
            return
        engine.dispose()
        kept = f"judge_kept_{uuid.uuid4().hex[:16]}"
        with self.admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" RENAME TO "{kept}"'))
        self.kept.append(kept)

    @staticmethod
    def _schema(url: str) -> str:
        """The schema of a database as one string: columns, indexes, constraints, triggers,
        functions and the revision."""
        rows = run_sql(url, """
            SELECT string_agg(x, '|' ORDER BY x) FROM (
              SELECT 'col:' || table_name || '.' || column_name || ':' || data_type || ':'
                     || is_nullable || ':' || coalesce(column_default, '') AS x
                FROM information_schema.columns WHERE table_schema = 'public'
              UNION ALL SELECT 'idx:' || indexdef FROM pg_indexes WHERE schemaname = 'public'
              UNION ALL SELECT 'con:' || conname || ':' || pg_get_constraintdef(oid)
                FROM pg_constraint WHERE connamespace = 'public'::regnamespace
              UNION ALL SELECT 'trg:' || tgname FROM pg_trigger WHERE NOT tgisinternal
              UNION ALL SELECT 'fn:' || proname FROM pg_proc
                WHERE pronamespace = 'public'::regnamespace
              UNION ALL SELECT 'ver:' || version_num FROM alembic_version) AS schema""")
        return str(rows[0][0])

    def _disconnect(self, name: str | None) -> None:
        """End every connection to ``name`` (a killed daemon's may linger a moment)."""
        from sqlalchemy import text
        with self.admin.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE datname = :name AND pid <> pg_backend_pid()"), {"name": name})

    def drop(self, url: str) -> None:
        from sqlalchemy import text
        from sqlalchemy.engine import make_url
        name = make_url(url).database
        with self.admin.connect() as conn:
            # FORCE: a killed daemon's or a test's forgotten connections must not keep it alive.
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def drop_kept(self) -> None:
        while self.kept:
            self.drop(self.url_of(self.kept.pop()))


@pytest.fixture(scope="session")
def _pg_databases() -> Iterator[_PostgresDatabases | None]:
    if PG_URL is None:
        yield None
        return
    databases = _PostgresDatabases(PG_URL)
    yield databases
    databases.drop_kept()
    databases.admin.dispose()


def run_cli(args: Sequence[str], *, env: Mapping[str, str] | None = None,
            cwd: Path | None = None, input: str | bytes | None = None
            ) -> subprocess.CompletedProcess[str]:
    """``judge <args>`` run in this process through click's CliRunner, with the environment
    ``env`` (as a process started with it would have: our variables it lacks are unset) in
    ``cwd``; the result reads like subprocess.run's.  A process costs a Python start and the
    imports each time; the tests of the installed program itself (``serve``, the entry
    point, ``adjudicate``'s start-up) still start one."""
    import logging

    from click.testing import CliRunner

    from judge.cli.main import main
    given = dict(os.environ if env is None else env)
    overlay: dict[str, str | None] = {k: None for k in os.environ if k not in given}
    overlay.update(given)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level  # the CLI sets up logging of its own
    here = os.getcwd()
    umask = os.umask(0o077)  # the CLI sets its own (judge.basics.private_files): put back after
    os.umask(umask)
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = CliRunner().invoke(main, list(args), input=input, env=overlay,
                                    catch_exceptions=False)
    finally:
        os.chdir(here)
        os.umask(umask)
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
    return subprocess.CompletedProcess(["judge", *args], result.exit_code, result.stdout,
                                       result.stderr)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_mail(body: str, *, sender: str = "alice@example.org", subject: str = "test",
              msgid: str | None = None, to: str = JUDGE_ADDRESS, **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = msgid or email.utils.make_msgid(domain="example.org")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


# Each Maildir file parsed once: tests wait for replies by reading the folder again and again,
# and parsing every file on every look was seconds of each run.  A delivered file never
# changes (a changed one is parsed again: its size or time differs).
_PARSED: dict[tuple[str, int, int], EmailMessage] = {}


def read_maildir(path: Path) -> list[EmailMessage]:
    out = []
    for sub in ("new", "cur"):
        folder = path / sub
        if folder.is_dir():
            for f in sorted(folder.iterdir()):
                try:
                    stat = f.stat()
                except FileNotFoundError:
                    continue  # moved from new/ to cur/ meanwhile: read there
                key = (str(f), stat.st_size, stat.st_mtime_ns)
                msg = _PARSED.get(key)
                if msg is None:
                    msg = _PARSED[key] = email.message_from_bytes(f.read_bytes(),
                                                                   policy=policy.default)
                out.append(msg)
    return out


_HEADERS: "weakref.WeakKeyDictionary[EmailMessage, dict[str, str | None]]" = \
    weakref.WeakKeyDictionary()


def header_of(msg: EmailMessage, name: str) -> str | None:
    """``msg[name]`` as a string (None if absent), read once per message: a delivered reply
    never changes, the tests' waits look at every reply again at every poll, and the email
    package parses a header anew at each access (long games by SMTP spent seconds on it)."""
    known = _HEADERS.setdefault(msg, {})
    if name not in known:
        value = msg[name]
        known[name] = None if value is None else str(value)
    return known[name]


def judge_env(tmp: Path, port: int, db_url: str | None = None, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update({
        "JUDGE_JUDGE_ADDRESS": JUDGE_ADDRESS,
        "JUDGE_DATABASE_URL": db_url or f"sqlite:///{tmp / 'judge.db'}",
        "JUDGE_INTAKE_LISTEN": f"127.0.0.1:{port}",
        "JUDGE_OUTBOUND_TRANSPORT": f"maildir:{tmp / 'mail'}",
        "JUDGE_WORKER_POLL_SECONDS": "0.2",
        # The other test workers keep the CPUs busy: at the default nice 19 the worker process
        # and the sender got a few per cent of a core, and a daemon test waited seconds for
        # them.  1 still puts them below the daemon (a test checks that; another the default).
        "JUDGE_WORKER_NICENESS": "1",
        "JUDGE_PASSWORD_COST": PASSWORD_COST,
        # the web view is off unless a test asks for it (tests run side by side: no port
        # may be fixed)
        "JUDGE_WEB_LISTEN": "",
    })
    env.update(overrides)
    return env


def polls(timeout: float) -> Iterator[None]:
    """Yield until ``timeout`` seconds have passed, pausing between yields: 1 ms at first, twice
    as long each time, at most 50 ms.  A wait written ``for _ in polls(t): if done(): return``
    ends soon after what it waits for happens (a reply takes ~15 ms; a fixed 50 ms pause made
    each wait three times that) without spinning through a long one."""
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        yield
        if time.monotonic() >= deadline:
            return
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def process_gone(pid: int) -> bool:
    """No such process any more (a zombie waiting for its new parent counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


@dataclass
class RunningJudge:
    tmp: Path
    port: int
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | ForkedDaemon | None = None
    log_name: str = "serve.log"
    log_path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log_path = self.tmp / self.log_name

    @property
    def maildir(self) -> Path:
        return self.tmp / "mail"

    @property
    def db_path(self) -> Path:
        """The SQLite file (meaningful only when :attr:`db_url` is a SQLite one)."""
        return self.tmp / "judge.db"

    @property
    def db_url(self) -> str:
        return self.env["JUDGE_DATABASE_URL"]

    def sql(self, statement: str, **params: Any) -> list[tuple[Any, ...]]:
        """Run SQL on the judge's database (whichever kind it is), e.g. to look at its queues."""
        return run_sql(self.db_url, statement, **params)

    def start(self) -> "RunningJudge":
        self.proc = start_serve(["serve"], self.env, self.tmp, self.log_path)
        for _ in polls(20):
            if self.proc.poll() is not None:
                raise RuntimeError(f"judge serve exited {self.proc.returncode}:\n{self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                pass
        raise RuntimeError(f"judge serve did not listen in time:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_log(self, text: str, timeout: float = 30) -> None:
        """Wait until the daemon's log says ``text`` (e.g. "worker process running": the worker
        is up, and the database's write lock no longer taken by its start)."""
        for _ in polls(timeout):
            if text in self.log():
                return
        raise AssertionError(f"the log never said {text!r}:\n{self.log()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout)

    def smtp(self) -> smtplib.SMTP:
        return smtplib.SMTP("127.0.0.1", self.port, timeout=20)

    def send(self, msg: EmailMessage | bytes, *, mail_from: str = "alice@example.org",
             rcpt: str = JUDGE_ADDRESS) -> dict[str, Any]:
        # Real MTAs speak CRLF; EmailMessage.as_bytes() alone gives bare LF line ends.
        raw = msg if isinstance(msg, bytes) else msg.as_bytes(policy=policy.SMTP)
        with self.smtp() as s:
            return s.sendmail(mail_from, [rcpt], raw)

    def replies(self) -> list[EmailMessage]:
        return read_maildir(self.maildir)

    def wait_replies(self, count: int, timeout: float = 20) -> list[EmailMessage]:
        for _ in polls(timeout):
            found = self.replies()
            if len(found) >= count:
                return found
        raise AssertionError(f"expected {count} replies, got {len(self.replies())}:\n{self.log()}")

    def replies_to(self, message_id: str) -> list[EmailMessage]:
        """The replies to the mail of that Message-ID (as a daemon shared by tests sees it)."""
        return [r for r in self.replies() if header_of(r, "In-Reply-To") == message_id]

    def reply_to(self, message_id: str, timeout: float = 20) -> EmailMessage:
        """The one reply to the mail of that Message-ID, once it is there."""
        for _ in polls(timeout):
            found = self.replies_to(message_id)
            if found:
                assert len(found) == 1, found
                return found[0]
        raise AssertionError(f"no reply to {message_id}:\n{self.log()}")

    def outcome(self, message_id: str, timeout: float = 20) -> list[tuple[str, str | None]]:
        """The stored rows (status, note) of the mail of that Message-ID once it is processed."""
        for _ in polls(timeout):
            rows = self.sql("SELECT status, note FROM inbound WHERE message_id = :m ORDER BY id",
                            m=message_id)
            if rows and all(status != "new" for status, _ in rows):
                return rows
        raise AssertionError(f"{message_id} not processed:\n{self.log()}")

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until the judge has finished with everything it was given: no stored mail left
        to process and no queued mail left to send.  A test that expects silence checks after
        this, so the check means something however slow the machine (a sleep would not)."""
        for _ in polls(timeout):
            # In the order mail travels: a spool move commits the inbound rows before it
            # deletes them from the spool, and the worker commits a mail's replies with its
            # mark; so nothing can slip from a place not yet looked at to one already looked at.
            spooled = self.spooled()
            waiting = self.sql("SELECT count(*) FROM inbound WHERE status = 'new'")[0][0]
            unsent = self.sql("SELECT count(*) FROM outbox WHERE status = 'pending'")[0][0]
            if spooled == 0 and waiting == 0 and unsent == 0:
                return
        raise AssertionError(f"the judge did not finish its queues in {timeout} s:\n{self.log()}")

    def spooled(self) -> int:
        """Mail intake accepted while the worker process held SQLite's write lock and has not yet
        moved into the inbound table (judge.store.inbound.Spool; it moves within milliseconds):
        until it has, the inbound table does not show it, and "nothing left to do" is false."""
        spool = Path(f"{self.db_path}.spool")
        if not self.db_url.startswith("sqlite") or not spool.exists():
            return 0
        with closing(sqlite3.connect(spool)) as db:
            return int(db.execute("SELECT count(*) FROM spool").fetchone()[0])

    def cli(self, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(args, env=self.env, cwd=self.tmp,
                       input=input.decode() if input is not None else None)


@pytest.fixture
def db_url(tmp_path: Path, _pg_databases: _PostgresDatabases | None,
           request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh, empty database for one test: SQLite, or PostgreSQL when configured."""
    if _pg_databases is None:
        yield f"sqlite:///{tmp_path / 'judge.db'}"
        return
    if "migrated_db_url" in request.fixturenames:
        # only named here: migrated_db_url puts a migrated one under this name (an empty one
        # made first would cost a CREATE DATABASE for nothing)
        url = _pg_databases.url_of(f"judge_test_{uuid.uuid4().hex[:16]}")
    else:
        url = _pg_databases.create()
    yield url
    _pg_databases.release(url)


@pytest.fixture(scope="session")
def _head_template(tmp_path_factory: pytest.TempPathFactory,
                   _pg_databases: _PostgresDatabases | None) -> Iterator[str]:
    """One database per test process with the schema at the head, which tests that need the
    schema start from a copy of (copying a file or a PostgreSQL template is many times faster
    than running every migration again): a SQLite file's path, or a PostgreSQL database name."""
    from sqlalchemy.engine import make_url
    from judge.store.db import Store
    from judge.store.schema import ensure_schema
    url = (f"sqlite:///{tmp_path_factory.mktemp('head') / 'judge.db'}" if _pg_databases is None
           else _pg_databases.create())
    migrated = Store(url)
    ensure_schema(migrated.engine)
    migrated.dispose()
    name = make_url(url).database or ""
    if _pg_databases is not None:
        _pg_databases.head = name
    yield name
    if _pg_databases is not None:
        _pg_databases.head = None
        _pg_databases.drop(url)


@pytest.fixture
def migrated_db_url(db_url: str, _head_template: str,
                    _pg_databases: _PostgresDatabases | None) -> str:
    """The test's database (``db_url``, the same URL) with the schema at the head."""
    if _pg_databases is None:
        from sqlalchemy.engine import make_url
        path = Path(make_url(db_url).database or "")
        if not path.exists():
            shutil.copyfile(_head_template, path)
    else:
        _pg_databases.refill(db_url, _head_template)
    return db_url


@pytest.fixture
def store(migrated_db_url: str) -> Iterator[Any]:
    """A real store with the schema at the head, disposed after the test."""
    from judge.store.db import Store
    from judge.store.schema import ensure_schema
    s = Store(migrated_db_url)
    ensure_schema(s.engine)  # only checks: the copy is at the head
    yield s
    s.dispose()


@pytest.fixture
def judge_factory(tmp_path: Path, migrated_db_url: str) -> Iterator[Callable[..., RunningJudge]]:
    """Starts ``judge serve`` processes; all of one test share its database and Maildir."""
    started: list[RunningJudge] = []

    def start(**overrides: str) -> RunningJudge:
        listen = overrides.get("JUDGE_INTAKE_LISTEN")
        port = int(listen.rpartition(":")[2]) if listen else free_port()
        env = judge_env(tmp_path, port, migrated_db_url, **overrides)
        # A second daemon in the same test (sharing the database) logs to a file of its own.
        name = f"serve-{len(started) + 1}.log" if started else "serve.log"
        running = RunningJudge(tmp_path, port, env, log_name=name).start()
        started.append(running)
        return running

    yield start
    for running in started:
        if running.proc and running.proc.poll() is None:
            running.proc.send_signal(signal.SIGKILL)
            running.proc.wait(10)


@pytest.fixture
def judge(judge_factory: Callable[..., RunningJudge]) -> RunningJudge:
    return judge_factory()


@pytest.fixture(scope="module")
def shared_judge(tmp_path_factory: pytest.TempPathFactory, _head_template: str,
                 _pg_databases: _PostgresDatabases | None) -> Iterator[RunningJudge]:
    """One ``judge serve`` for the tests of a module that only mail it and read what became of
    their own mail (by Message-ID: :meth:`RunningJudge.reply_to`, :meth:`RunningJudge.outcome`),
    never the judge's whole state: starting a daemon is most of such a test's time."""
    tmp = tmp_path_factory.mktemp("shared-judge")
    if _pg_databases is None:
        shutil.copyfile(_head_template, tmp / "judge.db")
        url = f"sqlite:///{tmp / 'judge.db'}"
    else:
        url = _pg_databases.create()
        _pg_databases.refill(url, _head_template)
    port = free_port()
    running = RunningJudge(tmp, port, judge_env(tmp, port, url)).start()
    yield running
    if running.proc and running.proc.poll() is None:
        running.proc.send_signal(signal.SIGKILL)
        running.proc.wait(10)
    if _pg_databases is not None:
        _pg_databases.release(url)


def body_of(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return part.get_content()


# The tests' files (each test's SQLite database and Maildir, the daemons' logs) live in memory
# when the machine has a memory file system at /dev/shm: an fsync there costs nothing, where
# the disk's took ~0.6 ms, and the judge fsyncs at every commit and every mail it writes (a
# tenth of the suite's time was spent waiting for them).  What the tests prove does not
# change: a process killed mid-write (tests/mail/test_crash.py) leaves behind what the kernel
# holds, on any file system; only a power cut, which no test can stage, needs the disk.
# ``--basetemp DIR`` chooses the place instead, and keeps it for a look after the run.
MEMORY_FILES = Path("/dev/shm")


@pytest.hookimpl(tryfirst=True)  # before pytest reads the option
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        config.pluginmanager.register(_LeaveAtOnce(), "judge-leave-at-once")
    if config.option.basetemp or hasattr(config, "workerinput"):
        return  # chosen by hand, or this is an xdist worker (given its part of the place)
    if MEMORY_FILES.is_dir() and os.access(MEMORY_FILES, os.W_OK):
        config.option.basetemp = tempfile.mkdtemp(prefix="judge-tests-", dir=MEMORY_FILES)
        config.stash[_IN_MEMORY] = Path(config.option.basetemp)


_IN_MEMORY = pytest.StashKey[Path]()


def pytest_unconfigure(config: pytest.Config) -> None:
    place = config.stash.get(_IN_MEMORY, None)
    if place is not None:
        shutil.rmtree(place, ignore_errors=True)  # memory: not left behind


# An xdist worker that has finished leaves without the interpreter's teardown, as the judge's
# own commands do (judge/cli/launch.py): taking apart every module and object of a process that
# ran hundreds of tests took it 1.5-2 s, and the main process waited for both workers before it
# could end the run.  By then the worker has sent every report and its "finished" message
# (xdist reads the exit status from that message, not from the process), every fixture has
# been torn down (daemons killed, PostgreSQL databases dropped) and the last unconfigure hook
# runs this.  Skipped: pytest's own clean-ups of the process (capture, warnings filters) and
# the freeing of memory, none of which outlives the process.
class _LeaveAtOnce:
    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


# Tests marked ``waits_long`` (a few modules that spend much of their time waiting out
# timeouts or on other programs) go first.  In their place in the alphabet they came last, both
# workers ran them at once at the end of the run, and the machine idled; first, they share the
# machine with the README walk-through started ahead (tests/ops/walkthrough_sandbox.py) and the
# other worker's tests, and work stealing evens out the rest.
def _waiting_tests_first(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("waits_long") is None)  # stable


# The second pass of .ci/run (PostgreSQL) sets JUDGE_TEST_DATABASE_ONLY=1: only the tests that
# reach the test database (through the ``_pg_databases`` fixture, whatever fixture asks for it)
# and the operations tests (which choose their database themselves) run again; the others
# touch no database and ran, the very same, in the SQLite pass.
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _waiting_tests_first(items)
    if not on_postgresql() or os.environ.get("JUDGE_TEST_DATABASE_ONLY") != "1":
        return
    keep, drop = [], []
    for item in items:
        reaches = "_pg_databases" in getattr(item, "fixturenames", ()) \
            or f"{os.sep}ops{os.sep}" in str(item.path)
        (keep if reaches else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


# A test may skip only for want of an external service, and must say which.  Under CI
# (JUDGE_STRICT_SKIPS=1, set by .ci/run) any other skip fails the run instead of passing
# silently: nothing the suite needs may live outside the repository.
EXTERNAL_SERVICES = ("PostgreSQL", "Postfix", "postfix", "Chromium", "chromium", "Dovecot",
                     "openssl")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("JUDGE_STRICT_SKIPS") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    bad = []
    for report in reporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if not any(service in reason for service in EXTERNAL_SERVICES):
            bad.append(f"{report.nodeid}: {reason}")
    if bad:
        reporter.write_line("skips not allowed in CI (no external service named):", red=True)
        for line in bad:
            reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# The in-process game kit (tests/game/gamekit.py) and the web kit (webkit.py) are plugins of
# the whole suite, so their fixtures (``judge_in_process``, ``web``) reach every module without
# an import.  It is loaded after this
# module has run, which matters: the kit imports its mail helpers from here.
sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))
# The README walk-through's runner is one too: it may start the walk-through ahead of the tests
# (tests/ops/walkthrough_sandbox.py).
sys.path.insert(0, str(Path(__file__).resolve().parent / "ops"))
# The mail servers of a judge run with a mail account (a Dovecot, a submission server) are
# fixtures of any module that asks for them.
pytest_plugins = ["gamekit", "webkit", "walkthrough_sandbox", "mailservers"]
