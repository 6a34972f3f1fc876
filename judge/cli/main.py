"""The ``judge`` command line (click): serve, db, inject, outbox, inbound, adjudicate, check-config."""

from __future__ import annotations

import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from judge import __version__
from judge.basics.utc import utcnow

# SQLAlchemy and the configuration are imported by the commands that use them: `judge
# adjudicate` needs neither, and importing SQLAlchemy alone took most of its start-up.
if TYPE_CHECKING:
    from judge.basics.config import Config


def _fail(message: str) -> NoReturn:
    click.echo(f"judge: {message}", err=True)
    sys.exit(2)


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - for display only: a URL it cannot read is shown as given
        return url


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return (text.splitlines() or [type(exc).__name__])[0].strip()


def _open_store(config: Config, create: bool) -> Any:
    """The store, its database reachable and (with ``create``) its schema current, or exit 2
    with one line saying what is wrong."""
    from sqlalchemy.exc import ArgumentError, InterfaceError, OperationalError

    from judge.store.db import Store
    from judge.store.schema import SchemaOutOfDate, ensure_schema
    where = _safe_url(config.database.url)
    try:
        store = Store(config.database.url)
    except ModuleNotFoundError as exc:
        _fail(f"cannot use the database {where}: its driver is not installed ({exc.name}); "
              "for PostgreSQL install judge[postgres]")
    except ArgumentError as exc:
        _fail(f"[database] url is not a database URL: {where} ({_first_line(exc)})")
    try:
        if create:
            ensure_schema(store.engine)
        else:
            with store.engine.connect():
                pass
    except SchemaOutOfDate as exc:
        store.dispose()
        _fail(str(exc))
    except (OperationalError, InterfaceError) as exc:
        store.dispose()
        _fail(f"cannot use the database {where}: {_first_line(exc)}")
    return store


class CliState:
    """What every subcommand shares: the configuration file named, read once when needed."""

    def __init__(self, config_path: str | None, path_from_environment: bool = False) -> None:
        self.config_path = config_path
        self.path_from_environment = path_from_environment  # named by JUDGE_CONFIG
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
            from judge.basics.config import ConfigError, load_config
            try:
                self._config = load_config(self.config_path)
            except ConfigError as exc:
                _fail(f"configuration error: {exc}")
        assert self._config is not None
        return self._config

    def store(self, create: bool = True) -> Any:
        return _open_store(self.config, create)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              envvar="JUDGE_CONFIG", help="TOML configuration file (default: $JUDGE_CONFIG, "
              "else the embedded defaults).")
@click.option("-v", "--verbose", is_flag=True, help="Log debugging detail.")
@click.version_option(__version__, prog_name="judge")
@click.pass_context
def main(ctx: click.Context, config_path: str | None, verbose: bool) -> None:
    """An email-driven judge for the board game Diplomacy."""
    if ctx.invoked_subcommand != "adjudicate":
        # adjudicate logs nothing: importing logging cost a twentieth of its start-up
        from judge.basics.logs import setup_logging

        setup_logging(verbose)
    if ctx.invoked_subcommand not in ("adjudicate", "map"):
        # the database, spool and Maildir hold mail and passwords: owner-only, whatever the
        # umask (`judge map` writes only the picture asked for, where the user wants it)
        from judge.basics.private_files import keep_new_files_private

        keep_new_files_private()
    ctx.obj = CliState(config_path, ctx.get_parameter_source("config_path")
                       == click.core.ParameterSource.ENVIRONMENT)


@main.command()
@click.pass_obj
def serve(obj: CliState) -> None:
    """Run the judge in the foreground (until SIGTERM or Ctrl-C): intake, worker, sender,
    scheduler and web view.

    \b
    It runs three processes:
      this one   intake: takes mail (SMTP or LMTP), stores it   [intake] listen
                 and/or reads an IMAP mailbox, stores its mail  [mailbox] url
                 the web view: pages and JSON API of the games  [web] listen
      a child    the worker: reads the stored mail, answers it
                 the scheduler: deadlines, reminders, phases
      its child  the sender: delivers the answers               [outbound] transport

    \b
    The configuration file: judge --config FILE serve, or JUDGE_CONFIG=FILE in the
    environment; with neither, the embedded defaults.  Any setting of the file is
    overridden by JUDGE_<SECTION>_<KEY> in the environment.  The ports:
      JUDGE_INTAKE_LISTEN=HOST:PORT   where mail comes in   (default 127.0.0.1:2525)
                                      empty: no listener, mail from [mailbox] only
      JUDGE_WEB_LISTEN=HOST:PORT      the web view          (default 127.0.0.1:8080;
                                      empty: no web view)
    or listen = "HOST:PORT" under [intake] and [web] in the file.  The log's first
    lines say which of the listener and the mailbox run.

    'judge check-config' prints the configuration in force, and which values come from
    the environment.
    """
    from judge.daemon.intake_process import ListenError, serve as run
    from judge.basics.private_files import make_private
    config = obj.config
    _open_store(config, create=True).dispose()
    make_private(config)
    import logging

    try:
        run(config, verbose=logging.getLogger().level <= logging.DEBUG)
    except ListenError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot listen on {config.intake.listen}: {exc.strerror or exc}")


@main.command("check-config")
@click.option("--no-database", is_flag=True, help="Check the file only, not the database.")
@click.pass_obj
def check_config(obj: CliState, no_database: bool) -> None:
    """Read the configuration, print it (saying which values come from the environment), and
    check that the database is reachable and its schema current.  Exits non-zero, with one
    line saying why, when something is wrong."""
    from judge.basics.config import environment_settings, stray_environment
    config = obj.config
    named = " (named by JUDGE_CONFIG)" if obj.path_from_environment else ""
    click.echo(f"configuration from {config.source}{named}:")
    from_environment = environment_settings()
    for section in (f.name for f in fields(config) if f.name != "source"):
        for key, value in vars(getattr(config, section)).items():
            if section == "database" and key == "url":
                value = _safe_url(value)
            elif key == "password" and value:
                value = "********"  # set, and not shown
            var = from_environment.get((section, key))
            click.echo(f"  [{section}] {key} = {value!r}" + (f"  (from {var})" if var else ""))
    for var, section in stray_environment():
        click.echo(f"ignored: {var} in the environment names no key of [{section}]")
    click.echo("configuration OK")
    _warn_of_open_files(config)
    if no_database:
        return
    from sqlalchemy.engine import make_url

    from judge.store.schema import current_revision, head_revision, is_empty
    url = make_url(config.database.url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        path = Path(url.database)
        if not path.parent.is_dir():
            _fail(f"cannot use the database {url}: directory {path.parent} does not exist")
        if not path.exists():
            # Connecting would create an empty file: say what will happen instead.
            click.echo(f"database file {path} does not exist yet: 'judge serve' or "
                       "'judge db upgrade' creates it")
            return
    store = _open_store(config, create=False)
    try:
        if is_empty(store.engine):
            click.echo("database reachable and empty: 'judge serve' or 'judge db upgrade' "
                       "creates the schema")
            return
        current, head = current_revision(store.engine), head_revision()
    finally:
        store.dispose()
    if current != head:
        _fail(f"the database schema is at revision {current or 'none'}, the code needs {head}: "
              "run 'judge db upgrade'")
    click.echo(f"database OK: schema at revision {head}")


def _warn_of_open_files(config: Config) -> None:
    """Name the judge's files that others than their owner may open (judge.basics.private_files)."""
    from judge.basics.private_files import judge_files, too_open
    for path, mode in too_open(judge_files(config)):
        click.echo(f"warning: {path} is open to other users than its owner (mode {mode:04o}); "
                   "'judge serve' makes it owner-only when it starts")


@main.group()
def db() -> None:
    """Database schema management."""


@db.command()
@click.option("--revision", default="head", show_default=True)
@click.pass_obj
def upgrade(obj: CliState, revision: str) -> None:
    """Upgrade the schema (Alembic) to the newest revision."""
    from judge.store import schema
    store = obj.store(create=False)
    before = schema.current_revision(store.engine)
    schema.upgrade(store.engine, revision)
    click.echo(f"database at revision {schema.current_revision(store.engine)} (was {before or 'empty'})")


@main.command()
@click.argument("files", nargs=-1, type=click.File("rb"))
@click.pass_obj
def inject(obj: CliState, files: tuple[Any, ...]) -> None:
    """Feed raw messages (FILES, or stdin) through the judge as if they had arrived by mail."""
    from judge.cli.inject import inject as run
    messages = [f.read() for f in files] if files else [sys.stdin.buffer.read()]
    messages = [m for m in messages if m.strip()]
    if not messages:
        _fail("nothing to inject: give message files or a message on stdin")
    report = run(obj.store(), obj.config, messages)
    click.echo(f"stored {report.stored} (duplicates skipped: {report.duplicates}), "
               f"processed {report.processed}, delivered {report.delivered}")


def _table(rows: list[tuple[Any, ...]], header: tuple[str, ...]) -> None:
    if not rows:
        click.echo("(none)")
        return
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in (header, *rows):
        click.echo("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())


@main.group()
def outbox() -> None:
    """Inspect and operate the outgoing queue and its dead letters."""


@outbox.command("list")
@click.option("--status", type=click.Choice(["pending", "sent", "failed", "dropped", "all"]),
              default="all", show_default=True)
@click.option("--limit", default=50, show_default=True)
@click.pass_obj
def outbox_list(obj: CliState, status: str, limit: int) -> None:
    """List outgoing mail, newest first."""
    from sqlalchemy import select

    from judge.store.models import OutboxMessage
    store = obj.store()
    with store.session() as s:
        q = select(OutboxMessage).order_by(OutboxMessage.id.desc()).limit(limit)
        if status != "all":
            q = q.where(OutboxMessage.status == status)
        rows = [(m.id, m.status, m.attempts, m.recipients, m.subject[:40], (m.last_error or "")[:60])
                for m in s.scalars(q)]
    _table(rows, ("id", "status", "tries", "to", "subject", "last error"))


def _pick(model: Any, ids: tuple[int, ...], all_failed: bool, session: Any) -> list[Any]:
    from sqlalchemy import select
    if all_failed:
        return list(session.scalars(select(model).where(model.status == "failed")))
    rows = [session.get(model, i) for i in ids]
    missing = [i for i, r in zip(ids, rows) if r is None]
    if missing:
        _fail(f"no such message: {', '.join(map(str, missing))}")
    return rows


@outbox.command("retry")
@click.argument("ids", nargs=-1, type=int)
@click.option("--failed", "all_failed", is_flag=True, help="Retry every failed mail.")
@click.pass_obj
def outbox_retry(obj: CliState, ids: tuple[int, ...], all_failed: bool) -> None:
    """Send failed (or pending) mail again at once."""
    from judge.store.models import OutboxMessage, OutboxStatus
    if not ids and not all_failed:
        _fail("name message ids, or --failed")
    with obj.store().transaction() as s:
        rows = _pick(OutboxMessage, ids, all_failed, s)
        for m in rows:
            if m.status == OutboxStatus.SENT:
                _fail(f"message {m.id} was already sent")
            if not m.raw:
                _fail(f"message {m.id} has no text any more ([retention] raw_mail_days)")
            m.status, m.attempts, m.next_attempt_at, m.lease_until = "pending", 0, utcnow(), None
    click.echo(f"{len(rows)} message(s) queued again; a running daemon sends them shortly")


@outbox.command("drop")
@click.argument("ids", nargs=-1, type=int, required=True)
@click.pass_obj
def outbox_drop(obj: CliState, ids: tuple[int, ...]) -> None:
    """Give up on outgoing mail; it stays listed as dropped."""
    from judge.store.models import OutboxMessage, OutboxStatus
    with obj.store().transaction() as s:
        rows = _pick(OutboxMessage, ids, False, s)
        for m in rows:
            if m.status == OutboxStatus.SENT:
                _fail(f"message {m.id} was already sent")
            m.status = OutboxStatus.DROPPED
    click.echo(f"{len(rows)} message(s) dropped")


def _purge(obj: CliState, which: str, days: float | None) -> None:
    from judge.store import retention
    keep = obj.config.retention.raw_mail_days if days is None else days
    if keep <= 0:
        _fail("[retention] raw_mail_days is 0 (keep for ever): give --days to purge anyway")
    store = obj.store()
    purge = retention.purge_inbound if which == "inbound" else retention.purge_outbox
    try:
        count = purge(store, keep, utcnow())
    finally:
        store.dispose()
    what = "received" if which == "inbound" else "sent or dropped"
    click.echo(f"deleted the raw text of {count} {what} mail(s) older than {keep:g} day(s)")


@outbox.command("purge")
@click.option("--days", type=float, default=None,
              help="Keep this many days (default: [retention] raw_mail_days).")
@click.pass_obj
def outbox_purge(obj: CliState, days: float | None) -> None:
    """Delete the text of mail sent (or dropped) longer ago than the retention time."""
    _purge(obj, "outbox", days)


@main.group()
def inbound() -> None:
    """Inspect received mail and retry messages that were set aside."""


@inbound.command("list")
@click.option("--status", type=click.Choice(["new", "done", "ignored", "failed", "all"]),
              default="failed", show_default=True)
@click.option("--limit", default=50, show_default=True)
@click.pass_obj
def inbound_list(obj: CliState, status: str, limit: int) -> None:
    """List received messages (by default those set aside after failing)."""
    from sqlalchemy import select

    from judge.store.models import InboundMessage
    with obj.store().session() as s:
        q = select(InboundMessage).order_by(InboundMessage.id.desc()).limit(limit)
        if status != "all":
            q = q.where(InboundMessage.status == status)
        rows = [(m.id, m.status, m.attempts, m.envelope_sender or "<>", m.message_id or "",
                 (m.note or "").strip().splitlines()[-1:][0][:70] if m.note else "")
                for m in s.scalars(q)]
    _table(rows, ("id", "status", "tries", "from", "message-id", "note"))


@inbound.command("retry")
@click.argument("ids", nargs=-1, type=int)
@click.option("--failed", "all_failed", is_flag=True, help="Retry every failed message.")
@click.pass_obj
def inbound_retry(obj: CliState, ids: tuple[int, ...], all_failed: bool) -> None:
    """Process messages that were set aside once more."""
    from judge.store.models import InboundMessage, InboundStatus
    if not ids and not all_failed:
        _fail("name message ids, or --failed")
    with obj.store().transaction() as s:
        rows = _pick(InboundMessage, ids, all_failed, s)
        for m in rows:
            if m.status != InboundStatus.FAILED:
                _fail(f"message {m.id} is {m.status}, not failed")
            m.status, m.attempts, m.lease_until = InboundStatus.NEW, 0, None
    click.echo(f"{len(rows)} message(s) queued again; a running daemon processes them shortly")


@inbound.command("purge")
@click.option("--days", type=float, default=None,
              help="Keep this many days (default: [retention] raw_mail_days).")
@click.pass_obj
def inbound_purge(obj: CliState, days: float | None) -> None:
    """Delete the raw text of received mail processed longer ago than the retention time
    (mail waiting or set aside keeps it)."""
    _purge(obj, "inbound", days)


@main.command()
@click.option("--jsonl", is_flag=True, help="One JSON position per line in, one result per line "
              "out; a line refused gets an error object in its place, and the rest goes on.")
def adjudicate(jsonl: bool) -> None:
    """Adjudicate a position given as JSON on stdin; the outcome as JSON on stdout."""
    from judge.cli.adjudicate import adjudicate as run

    status = run(jsonl)
    if status:
        sys.exit(status)


@main.command("map")
@click.option("--format", "fmt", type=click.Choice(["png", "svg"]), default=None,
              help="Picture format (default: from the output file's name, else png).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              show_default=True, help="Where to write the picture ('-' is stdout).")
def map_command(fmt: str | None, output: str) -> None:
    """Draw the map of a position given as JSON on stdin: the input of 'judge adjudicate'
    (orders, if any, are adjudicated and drawn with their results), optionally with its
    output under "outcome", a "game" name and Formal Diplomacy's "formal" state."""
    from judge.core.errors import InputError
    from judge.pictures import png_available, scene_of
    from judge.pictures.document import picture_from_document
    fmt = fmt or ("svg" if output.lower().endswith(".svg") else "png")
    try:
        doc = json.loads(sys.stdin.read() or "null")
    except json.JSONDecodeError as exc:
        _fail(f"not valid JSON: {exc}")
    except RecursionError:
        _fail("not valid JSON: nested too deeply")
    try:
        scene = scene_of(picture_from_document(doc, adjudicate_orders=True))
    except InputError as exc:
        _fail(str(exc))
    if fmt == "svg":
        from judge.pictures.svg import render_svg
        data = render_svg(scene).encode("utf-8")
    else:
        if not png_available():
            _fail("PNG pictures need Pillow (pip install pillow); --format svg works without")
        from judge.pictures.raster import render_png
        data = render_png(scene)
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        try:
            Path(output).write_bytes(data)
        except OSError as exc:
            _fail(f"cannot write {output}: {exc.strerror or exc}")


# Last, because judge.cli.tournament builds on the helpers above.
from judge.cli.tournament import register as _register_tournament  # noqa: E402

_register_tournament(main)


if __name__ == "__main__":  # pragma: no cover
    main()
