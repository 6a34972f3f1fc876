"""The ``judge`` command line (click): serve, db, inject, outbox, inbound, adjudicate, check-config."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, InterfaceError, OperationalError

from judge import __version__
from judge.clock import utcnow
from judge.config import Config, ConfigError, load_config
from judge.logs import setup_logging


def _fail(message: str) -> NoReturn:
    click.echo(f"judge: {message}", err=True)
    sys.exit(2)


def _safe_url(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return (text.splitlines() or [type(exc).__name__])[0].strip()


def _open_store(config: Config, create: bool) -> Any:
    """The store, its database reachable and (with ``create``) its schema current, or exit 2
    with one line saying what is wrong."""
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


class _Obj:
    def __init__(self, config_path: str | None) -> None:
        self.config_path = config_path
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
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
    setup_logging(verbose)
    ctx.obj = _Obj(config_path)


@main.command()
@click.pass_obj
def serve(obj: _Obj) -> None:
    """Run the daemon in the foreground: intake, worker, sender."""
    from judge.daemon import serve as run
    config = obj.config
    _open_store(config, create=True).dispose()
    try:
        run(config)
    except OSError as exc:
        _fail(f"cannot listen on {config.intake.listen}: {exc.strerror or exc}")


@main.command("check-config")
@click.option("--no-database", is_flag=True, help="Check the file only, not the database.")
@click.pass_obj
def check_config(obj: _Obj, no_database: bool) -> None:
    """Read the configuration, print it, and check that the database is reachable and its
    schema current.  Exits non-zero, with one line saying why, when something is wrong."""
    config = obj.config
    click.echo(f"configuration from {config.source}:")
    for section in ("judge", "database", "intake", "outbound", "worker", "scheduler"):
        for key, value in vars(getattr(config, section)).items():
            if section == "database" and key == "url":
                value = _safe_url(value)
            click.echo(f"  [{section}] {key} = {value!r}")
    click.echo("configuration OK")
    if no_database:
        return
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
        current, head = current_revision(store.engine), head_revision(store.engine)
    finally:
        store.dispose()
    if current != head:
        _fail(f"the database schema is at revision {current or 'none'}, the code needs {head}: "
              "run 'judge db upgrade'")
    click.echo(f"database OK: schema at revision {head}")


@main.group()
def db() -> None:
    """Database schema management."""


@db.command()
@click.option("--revision", default="head", show_default=True)
@click.pass_obj
def upgrade(obj: _Obj, revision: str) -> None:
    """Upgrade the schema (Alembic) to the newest revision."""
    from judge.store import schema
    store = obj.store(create=False)
    before = schema.current_revision(store.engine)
    schema.upgrade(store.engine, revision)
    click.echo(f"database at revision {schema.current_revision(store.engine)} (was {before or 'empty'})")


@main.command()
@click.argument("files", nargs=-1, type=click.File("rb"))
@click.pass_obj
def inject(obj: _Obj, files: tuple[Any, ...]) -> None:
    """Feed raw messages (FILES, or stdin) through the judge as if they had arrived by mail."""
    from judge.mail.inject import inject as run
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
def outbox_list(obj: _Obj, status: str, limit: int) -> None:
    """List outgoing mail, newest first."""
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
def outbox_retry(obj: _Obj, ids: tuple[int, ...], all_failed: bool) -> None:
    """Send failed (or pending) mail again at once."""
    from judge.store.models import OutboxMessage
    if not ids and not all_failed:
        _fail("name message ids, or --failed")
    with obj.store().transaction() as s:
        rows = _pick(OutboxMessage, ids, all_failed, s)
        for m in rows:
            if m.status == "sent":
                _fail(f"message {m.id} was already sent")
            m.status, m.attempts, m.next_attempt_at, m.lease_until = "pending", 0, utcnow(), None
    click.echo(f"{len(rows)} message(s) queued again; a running daemon sends them shortly")


@outbox.command("drop")
@click.argument("ids", nargs=-1, type=int, required=True)
@click.pass_obj
def outbox_drop(obj: _Obj, ids: tuple[int, ...]) -> None:
    """Give up on outgoing mail; it stays listed as dropped."""
    from judge.store.models import OutboxMessage
    with obj.store().transaction() as s:
        rows = _pick(OutboxMessage, ids, False, s)
        for m in rows:
            if m.status == "sent":
                _fail(f"message {m.id} was already sent")
            m.status = "dropped"
    click.echo(f"{len(rows)} message(s) dropped")


@main.group()
def inbound() -> None:
    """Inspect received mail and retry messages that were set aside."""


@inbound.command("list")
@click.option("--status", type=click.Choice(["new", "done", "ignored", "failed", "all"]),
              default="failed", show_default=True)
@click.option("--limit", default=50, show_default=True)
@click.pass_obj
def inbound_list(obj: _Obj, status: str, limit: int) -> None:
    """List received messages (by default those set aside after failing)."""
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
def inbound_retry(obj: _Obj, ids: tuple[int, ...], all_failed: bool) -> None:
    """Process messages that were set aside once more."""
    from judge.store.models import InboundMessage
    if not ids and not all_failed:
        _fail("name message ids, or --failed")
    with obj.store().transaction() as s:
        rows = _pick(InboundMessage, ids, all_failed, s)
        for m in rows:
            if m.status != "failed":
                _fail(f"message {m.id} is {m.status}, not failed")
            m.status, m.attempts, m.lease_until = "new", 0, None
    click.echo(f"{len(rows)} message(s) queued again; a running daemon processes them shortly")


@main.command()
@click.option("--jsonl", is_flag=True, help="One JSON position per line in, one result per line out.")
def adjudicate(jsonl: bool) -> None:
    """Adjudicate a position given as JSON on stdin (DESIGN §3.3); JSON on stdout."""
    from judge.core.errors import InputError
    from judge.core.jsonio import adjudicate_document
    text = sys.stdin.read()
    docs: list[tuple[int, str]] = ([(n, line) for n, line in enumerate(text.splitlines(), 1)
                                    if line.strip()] if jsonl else [(0, text)])
    if not docs:
        _fail("no input: give a JSON position on stdin")
    for n, chunk in docs:
        where = f"line {n}: " if jsonl else ""
        try:
            doc = json.loads(chunk)
        except json.JSONDecodeError as exc:
            _fail(f"{where}not valid JSON: {exc}")
        try:
            result = adjudicate_document(doc)
        except InputError as exc:
            _fail(f"{where}{exc}")
        click.echo(json.dumps(result, sort_keys=False) if jsonl else json.dumps(result, indent=1))


from judge.cli_tournament import register as _register_tournament  # noqa: E402

_register_tournament(main)


if __name__ == "__main__":  # pragma: no cover
    main()
