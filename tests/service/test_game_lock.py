"""``lock_game``: the game row is locked and read afresh once per (sub)transaction, and read
again after a savepoint that took the lock is rolled back (PostgreSQL releases the row locks
taken in it; SQLAlchemy expires what it read).  On SQLite, and on PostgreSQL with
``JUDGE_TEST_DATABASE_URL``."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from sqlalchemy import event
from sqlalchemy.orm import Session

from judge.service.games import lock_game
from judge.store.db import Store
from servicekit import full_game


class GameReads:
    """Counts the statements that read the games table."""

    def __init__(self, store: Store) -> None:
        self.count = 0
        self._engine = store.engine
        event.listen(self._engine, "before_cursor_execute", self._seen)

    def _seen(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "FROM games" in statement:
            self.count += 1

    def close(self) -> None:
        event.remove(self._engine, "before_cursor_execute", self._seen)


@pytest.fixture
def reads(store: Store) -> Iterator[GameReads]:
    counter = GameReads(store)
    yield counter
    counter.close()


def test_a_locked_game_is_not_read_again_in_the_same_savepoint(store: Store,
                                                                 reads: GameReads) -> None:
    with store.transaction() as s:
        game_id = full_game(s).id
    with store.transaction() as s:
        with s.begin_nested():
            before = reads.count
            first = lock_game(s, game_id)
            assert reads.count == before + 1
            assert lock_game(s, game_id) is first and reads.count == before + 1
        with s.begin_nested():  # the next message's savepoint locks and reads it again
            lock_game(s, game_id)
            assert reads.count == before + 2


def change_in_a_savepoint_then_roll_back(s: Session, game_id: int, phase: str) -> None:
    """Lock the game in a savepoint of its own, change it, and roll that savepoint back."""
    with pytest.raises(RuntimeError):
        with s.begin_nested():
            lock_game(s, game_id).phase = phase
            s.flush()
            raise RuntimeError("undone")


def test_after_a_rolled_back_savepoint_the_game_is_read_and_locked_again(
        store: Store, reads: GameReads) -> None:
    with store.transaction() as s:
        game = full_game(s)
        game_id, phase = game.id, game.phase
    with store.transaction() as s:
        with s.begin_nested():
            lock_game(s, game_id)
            change_in_a_savepoint_then_roll_back(s, game_id, "F1999M")
            game = lock_game(s, game_id)  # the outer savepoint still holds its lock
            assert game.phase == phase  # the inner change is gone
        change_in_a_savepoint_then_roll_back(s, game_id, "F1998M")
        before = reads.count
        game = lock_game(s, game_id)  # the lock went with the savepoint: taken again
        assert reads.count > before and game.phase == phase
