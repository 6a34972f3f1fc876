"""A SIGNON whose password was checked a moment ago skips the slow hash, yet a wrong password
is still refused after a right one was remembered, and a changed password is the only one
that works at once (judge.service.access.passwords)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pytest

from gamekit import Judge, start_full_game
from judge.service.access import passwords
from judge.store.db import Store


@pytest.fixture
def slow_hashes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Records every scrypt computed (by password), from a memory holding nothing yet."""
    passwords.forget_checks()
    computed: list[str] = []
    real = passwords._scrypt

    def counting(password: str, *args: object) -> bytes:
        computed.append(password)
        return real(password, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(passwords, "_scrypt", counting)
    yield computed
    passwords.forget_checks()


def _signon(j: Judge, who: str, password: str) -> str:
    return j.mail(who, f"SIGNON Fwar1901 {password}\nA PAR H").body


def test_a_right_password_is_checked_once_and_a_wrong_one_every_time(
        judge_in_process: Judge, slow_hashes: list[str]) -> None:
    j = judge_in_process
    france = start_full_game(j)["FRANCE"]
    right = j.passwords["FRANCE"]
    slow_hashes.clear()
    assert "Signed on as" in _signon(j, france, right)
    assert slow_hashes == [right]  # checked once for the whole mail
    assert "Signed on as" in _signon(j, france, right)
    assert slow_hashes == [right]  # remembered: no second hash
    reply = _signon(j, france, right + "x")
    assert "wrong password" in reply and "Signed on as" not in reply
    assert slow_hashes == [right, right + "x"]  # a wrong one always costs the full hash
    reply = _signon(j, france, right + "x")  # and is never remembered
    assert "wrong password" in reply
    assert slow_hashes == [right, right + "x", right + "x"]


def test_a_changed_password_refuses_the_remembered_old_one(
        judge_in_process: Judge, slow_hashes: list[str]) -> None:
    j = judge_in_process
    france = start_full_game(j)["FRANCE"]
    old = j.passwords["FRANCE"]
    assert "Signed on as" in _signon(j, france, old)  # the old password is remembered now
    reply = j.mail(france, f"SIGNON Fwar1901 {old}\nSET PASSWORD fresh").body
    assert "Your password has been changed" in reply
    reply = _signon(j, france, old)
    assert "wrong password" in reply and "Signed on as" not in reply
    assert "Signed on as" in _signon(j, france, "fresh")


def test_no_password_is_hashed_while_the_store_is_locked(
        judge_in_process: Judge, monkeypatch: pytest.MonkeyPatch) -> None:
    j = judge_in_process
    france = start_full_game(j)["FRANCE"]
    passwords.forget_checks()
    locked = [0]
    hashed_when_locked: list[bool] = []
    real_transaction, real_scrypt = Store.transaction, passwords._scrypt

    @contextmanager
    def transaction(self: Store) -> Iterator[object]:
        locked[0] += 1
        try:
            with real_transaction(self) as session:
                yield session
        finally:
            locked[0] -= 1

    def scrypt(*args: object) -> bytes:
        hashed_when_locked.append(locked[0] > 0)
        return real_scrypt(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "transaction", transaction)
    monkeypatch.setattr(passwords, "_scrypt", scrypt)
    old = j.passwords["FRANCE"]
    assert "Signed on as" in _signon(j, france, old)
    assert "wrong password" in _signon(j, france, "nope")
    reply = j.mail(france, f"SIGNON Fwar1901 {old}\nSET PASSWORD fresh").body
    assert "Your password has been changed" in reply
    assert hashed_when_locked == [False, False, False]  # old, nope, fresh (old remembered)
