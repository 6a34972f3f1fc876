"""Savepoints (``session.begin_nested``), whose statements the store sends straight to the
driver (judge.store.db): a nested block that fails is undone alone, whether it failed in
Python, in a statement, or in the ORM's flush, and the transaction around it goes on and
commits.  On SQLite, and on PostgreSQL with ``JUDGE_TEST_DATABASE_URL``."""

from __future__ import annotations

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.exc import IntegrityError

from judge.store.db import Store
from judge.store.models import KnownAddress
from judge.basics.utc import utcnow


def known(address: str) -> KnownAddress:
    return KnownAddress(address=address, confirmed_at=utcnow())


def addresses(store: Store) -> list[str]:
    with store.reading() as s:
        return sorted(s.scalars(select(KnownAddress.address)))


def test_a_failed_nested_block_is_undone_alone_and_the_rest_commits(store: Store) -> None:
    with store.transaction() as s:
        with s.begin_nested():
            s.add(known("kept-1@example.org"))
        with pytest.raises(RuntimeError):
            with s.begin_nested():  # fails in Python, after a flushed write
                s.add(known("undone-1@example.org"))
                s.flush()
                raise RuntimeError("boom")
        with pytest.raises(IntegrityError):
            with s.begin_nested():  # fails in the ORM's flush (the address exists)
                s.add(known("kept-1@example.org"))
                s.flush()
        with pytest.raises(IntegrityError):
            with s.begin_nested():  # fails in a statement (PostgreSQL aborts the transaction)
                s.execute(text("INSERT INTO known_addresses (address)"
                               " VALUES ('kept-1@example.org')"))
        with s.begin_nested():  # the transaction is still usable
            s.add(known("kept-2@example.org"))
            with pytest.raises(RuntimeError):
                with s.begin_nested():  # nested in a nested one
                    s.add(known("undone-2@example.org"))
                    s.flush()
                    raise RuntimeError("inner")
            s.add(known("kept-3@example.org"))
        assert s.scalar(select(func.count()).select_from(KnownAddress)) == 3
    assert addresses(store) == ["kept-1@example.org", "kept-2@example.org",
                                "kept-3@example.org"]


def test_savepoint_statements_go_to_the_driver_not_through_the_compiler(store: Store) -> None:
    """The point of the change: SQLAlchemy no longer builds and compiles them each time."""
    compiled: list[str] = []

    def seen(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        compiled.append(statement)

    event.listen(store.engine, "before_cursor_execute", seen)
    try:
        with store.transaction() as s:
            with s.begin_nested():
                s.add(known("p@example.org"))
    finally:
        event.remove(store.engine, "before_cursor_execute", seen)
    assert any("INSERT" in statement for statement in compiled)
    assert not any("SAVEPOINT" in statement for statement in compiled), compiled
    assert addresses(store) == ["p@example.org"]
