"""The migration to one row per received message keeps the rows stored before it: the first
row of each Message-ID gets the hash key, any other row a key of its own, and a downgrade
gives back the (Message-ID, recipient) pairs."""

from __future__ import annotations

from sqlalchemy import text

from judge.basics.utc import utcnow
from judge.mail.intake.accept import message_key
from judge.store.db import Store
from judge.store.schema import downgrade, upgrade

ROWS = [("<a@x>", "judge@example.org"), ("<a@x>", "judge+x@example.org"),
        (None, "judge@example.org"), ("<b@x>", "judge@example.org")]


def test_rows_stored_before_keep_their_messages(db_url: str) -> None:
    store = Store(db_url)  # empty: conftest's ``store`` fixture would be at the head already
    upgrade(store.engine, "0005")
    with store.engine.begin() as conn:
        for message_id, recipient in ROWS:
            conn.execute(text("INSERT INTO inbound (message_id, recipient, envelope_sender, raw,"
                              " received_at, status, attempts) VALUES (:m, :r, 'a@x', :raw, :t,"
                              " 'done', 1)"), dict(m=message_id, r=recipient, raw=b"x",
                                                   t=utcnow()))
    upgrade(store.engine)
    with store.engine.connect() as conn:
        keys = conn.execute(text("SELECT id, dedupe_key, recipients FROM inbound ORDER BY id"))
        assert [tuple(r) for r in keys] == [
            (1, message_key("<a@x>"), "judge@example.org"),
            (2, "legacy:2", "judge+x@example.org"),
            (3, "legacy:3", "judge@example.org"),
            (4, message_key("<b@x>"), "judge@example.org")]
    downgrade(store.engine, "0005")
    with store.engine.connect() as conn:
        back = conn.execute(text("SELECT message_id, recipient FROM inbound ORDER BY id"))
        assert [tuple(r) for r in back] == ROWS
    store.dispose()
