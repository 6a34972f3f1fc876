"""Who the judge may write to (judge.mail.guards.recipients): an address heard from gets mail, a
stranger one first notice and then nothing, an unusable address nothing; and the reply's
sender, known to be heard from, is let through without a look-up."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import event, select

from judge.mail.guards.recipients import heard_from, screen
from judge.store.db import Store
from judge.store.models import KnownAddress

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=timezone.utc)


def known(store: Store) -> dict[str, tuple[bool, bool]]:
    """address → (heard from, notified)."""
    with store.reading() as s:
        return {row.address: (row.confirmed_at is not None, row.notified_at is not None)
                for row in s.scalars(select(KnownAddress))}


def test_heard_from_strangers_and_unusable_addresses(store: Store) -> None:
    with store.transaction() as s:
        heard_from(s, "player@example.org", NOW)
    with store.transaction() as s:
        first = screen(s, ["player@example.org", "stranger@example.org", "no at sign"], NOW)
    withheld: list[str] = []
    with store.transaction() as s:
        again = screen(s, ["stranger@example.org", "player@example.org"], NOW, withheld)
    assert first == ["player@example.org", "stranger@example.org"]
    assert again == ["player@example.org"] and withheld == ["stranger@example.org"]
    assert known(store) == {"player@example.org": (True, False),
                            "stranger@example.org": (False, True)}


def test_a_sender_known_to_be_heard_from_needs_no_look_up(store: Store) -> None:
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany) -> None:  # noqa: ANN001
        statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", count)
    with store.transaction() as s:
        heard_from(s, "sender@example.org", NOW)
        statements.clear()
        alone = screen(s, ["sender@example.org"], NOW, heard={"sender@example.org"})
        assert statements == []  # nothing to look up
        both = screen(s, ["sender@example.org", "other@example.org"], NOW,
                      heard={"sender@example.org"})
    assert alone == ["sender@example.org"]
    assert both == ["sender@example.org", "other@example.org"]
    # the stranger got its first notice; the sender was not made a stranger notified
    assert known(store) == {"sender@example.org": (True, False),
                            "other@example.org": (False, True)}
