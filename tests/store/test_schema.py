"""The store's schema: Alembic migrations, the models they must match, the check `judge serve`
makes before it starts, and the SQLite connection settings the reliability rules need.

Every test takes a ``database_url``: the fresh database of conftest's ``db_url`` (SQLite, or a
throwaway PostgreSQL database when ``JUDGE_TEST_DATABASE_URL`` is set; CI runs both).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from conftest import run_cli
from judge.store.db import Store
from judge.store.models import Base
from judge.store.schema import (SchemaOutOfDate, alembic_config, current_revision, downgrade,
                                ensure_schema, head_revision, upgrade)

JUDGE_TABLES = {"inbound", "outbox", "reply_count", "games", "seats", "phase_snapshots",
                "draw_votes", "game_results", "tournaments",
                "daily_counts", "known_addresses", "absences"}


@pytest.fixture
def database_url(db_url: str) -> str:
    """A fresh, empty database: SQLite, or PostgreSQL with ``JUDGE_TEST_DATABASE_URL`` set."""
    return db_url


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    s = Store(database_url)
    yield s
    s.dispose()


def cli_env(url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["JUDGE_DATABASE_URL"] = url
    return env


def run_judge(url: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, env=cli_env(url), cwd=cwd)


def tables(store: Store) -> set[str]:
    return set(inspect(store.engine).get_table_names())


# --------------------------------------------------------------------------- ensure_schema


def test_ensure_schema_creates_then_reports_current(store: Store) -> None:
    assert not tables(store) & JUDGE_TABLES
    assert ensure_schema(store.engine) == "created"
    assert JUDGE_TABLES <= tables(store)
    assert current_revision(store.engine) == head_revision()
    assert ensure_schema(store.engine) == "current"
    assert ensure_schema(store.engine) == "current"


def test_there_is_a_single_alembic_head(store: Store) -> None:
    heads = ScriptDirectory.from_config(alembic_config(store.engine)).get_heads()
    assert len(heads) == 1
    assert heads[0] == head_revision()


def test_each_migration_file_is_named_after_its_revision(store: Store) -> None:
    # the start-up check reads the code's head from the file names alone (judge.store.schema)
    scripts = ScriptDirectory.from_config(alembic_config(store.engine))
    for script in scripts.walk_revisions():
        assert Path(script.path).name.startswith(f"{script.revision}_"), script.path
        if script.down_revision is not None:
            assert int(script.down_revision) == int(script.revision) - 1, script.path


def test_upgrade_downgrade_upgrade_round_trips(store: Store) -> None:
    upgrade(store.engine)
    assert JUDGE_TABLES <= tables(store)
    downgrade(store.engine, "base")
    assert not tables(store) & JUDGE_TABLES
    assert current_revision(store.engine) is None
    upgrade(store.engine)
    assert JUDGE_TABLES <= tables(store)
    assert current_revision(store.engine) == head_revision()
    assert ensure_schema(store.engine) == "current"


def test_models_match_the_migrations(store: Store) -> None:
    upgrade(store.engine)
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True,
                                                         "compare_server_default": True})
        differences = compare_metadata(context, Base.metadata)
    assert differences == []


def test_the_upgraded_schema_accepts_and_returns_rows(store: Store) -> None:
    # A smoke test that the tables the migration made are the ones the code writes.
    from judge.basics.utc import utcnow
    from judge.store.models import InboundMessage, ReplyCount
    ensure_schema(store.engine)
    with store.transaction() as s:
        s.add(InboundMessage(dedupe_key="k", message_id="<a@x>", recipients="judge@example.org",
                             envelope_sender="a@x", raw=b"raw", received_at=utcnow()))
        s.add(ReplyCount(address="a@x", day="2026-01-01", count=1))
    with store.transaction() as s:
        row = s.query(InboundMessage).one()
        assert (row.status, row.attempts, row.raw) == ("new", 0, b"raw")


# --------------------------------------------------------------------------- out of date


def test_a_database_stamped_at_another_revision_is_out_of_date(store: Store) -> None:
    upgrade(store.engine)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0000old'"))
    with pytest.raises(SchemaOutOfDate, match="judge db upgrade"):
        ensure_schema(store.engine)


def test_a_database_downgraded_to_base_is_out_of_date(store: Store) -> None:
    upgrade(store.engine)
    downgrade(store.engine, "base")
    with pytest.raises(SchemaOutOfDate, match="judge db upgrade"):
        ensure_schema(store.engine)
    # refusing changed nothing
    assert not tables(store) & JUDGE_TABLES


def test_serve_refuses_an_out_of_date_database_and_db_upgrade_fixes_it(
        store: Store, database_url: str, tmp_path: Path) -> None:
    upgrade(store.engine)
    downgrade(store.engine, "base")
    store.dispose()

    result = run_judge(database_url, tmp_path, "serve")
    assert result.returncode != 0
    assert "judge db upgrade" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr

    result = run_judge(database_url, tmp_path, "db", "upgrade")
    assert result.returncode == 0, result.stderr
    head = head_revision()
    assert f"database at revision {head}" in result.stdout
    assert ensure_schema(store.engine) == "current"
    assert JUDGE_TABLES <= tables(store)


def test_db_upgrade_on_an_empty_database_creates_the_schema(database_url: str,
                                                             tmp_path: Path) -> None:
    result = run_judge(database_url, tmp_path, "db", "upgrade")
    assert result.returncode == 0, result.stderr
    assert "was empty" in result.stdout
    s = Store(database_url)
    try:
        assert ensure_schema(s.engine) == "current"
    finally:
        s.dispose()
    # running it again is harmless
    again = run_judge(database_url, tmp_path, "db", "upgrade")
    assert again.returncode == 0, again.stderr


# --------------------------------------------------------------------------- SQLite settings


def test_sqlite_connections_are_durable_and_patient(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'judge.db'}")
    try:
        ensure_schema(store.engine)
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() > 0
    finally:
        store.dispose()
