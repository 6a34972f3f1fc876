"""The migration to double opt-in (0015) keeps every seat there is getting its game's mail: each
counts as confirmed when it joined.  A downgrade forgets the observers that never confirmed
(the older judge would mail them) and keeps every other seat."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import text

from judge.store.db import Store
from judge.store.schema import downgrade, upgrade
from judge.basics.utc import as_utc, utcnow

SEATS = [("master", "gm@example.org"), ("power", "p1@example.org"),
         ("observer", "o1@example.org")]


def moment(value: datetime | str) -> datetime | None:
    """A stored time as a UTC datetime (SQLite's text, read without the models, too)."""
    return as_utc(datetime.fromisoformat(value) if isinstance(value, str) else value)


def test_seats_stored_before_are_confirmed_and_keep_their_mail(db_url: str) -> None:
    store = Store(db_url)  # empty: conftest's ``store`` fixture would be at the head already
    upgrade(store.engine, "0014")
    joined = utcnow() - timedelta(days=30)
    with store.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO games (name, name_key, variant, state, phase, position, rules,"
            " movement_seconds, retreat_seconds, adjustment_seconds, grace_seconds,"
            " clock_stage, version, created_at) VALUES ('g', 'g', 'standard', 'active',"
            " 'S1901M', '{}', '', 1, 1, 1, 1, 0, 0, :t)"), dict(t=joined))
        for kind, address in SEATS:
            conn.execute(text(
                "INSERT INTO seats (game_id, kind, address, password_hash, wait, orders,"
                " status, joined_at) VALUES (1, :k, :a, 'x', false, '{}', 'active', :t)"),
                dict(k=kind, a=address, t=joined))
    upgrade(store.engine)
    with store.engine.connect() as conn:
        rows = conn.execute(text("SELECT address, confirmed_at, pending_address, confirm_hash"
                                 " FROM seats ORDER BY id")).all()
    assert [(r[0], moment(r[1]), r[2], r[3]) for r in rows] == [
        (address, moment(joined), None, None) for _, address in SEATS]
    # an observer that never confirmed is forgotten by a downgrade; the others stay
    with store.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO seats (game_id, kind, address, password_hash, wait, orders, status,"
            " joined_at) VALUES (1, 'observer', 'stranger@example.net', 'x', false, '{}',"
            " 'active', :t)"), dict(t=utcnow()))
    downgrade(store.engine, "0014")
    with store.engine.connect() as conn:
        kept = conn.execute(text("SELECT address FROM seats ORDER BY id")).all()
    assert [r[0] for r in kept] == [address for _, address in SEATS]
    store.dispose()
