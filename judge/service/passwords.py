"""Passwords: stored only as salted scrypt hashes, compared in constant time.

A hash is slow on purpose, so the mail pipeline works them out *before* it takes the store's
write lock (judge.commands.prepare) and hands them in with :func:`precomputed`: while that is in
force, :func:`hash_password` and :func:`check_password` take a result worked out beforehand
when there is one, and compute it themselves otherwise (when the stored hash changed meanwhile,
say), so the answer is always the one computing it now would give.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Iterator

# 2**14 × 8 × 1 costs 16 MiB and some tens of milliseconds per check: slow for a guesser,
# cheap for one mail.  JUDGE_PASSWORD_COST (log2 of N, 10 to 17) changes it for new hashes
# only -- each hash records its own parameters, so old ones still check.  The test suite
# lowers it: its thousands of JOINs and SIGNONs would otherwise spend minutes hashing.
_COST = os.environ.get("JUDGE_PASSWORD_COST", "14")
_N, _R, _P = 2 ** min(max(int(_COST) if _COST.isdigit() else 14, 10), 17), 8, 1


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          maxmem=256 * r * n + (1 << 20), dklen=32)  # scrypt needs 128·r·N


# A password nobody can sign on with (a dummy power's: the master orders it), without a hash.
UNUSABLE = "!"


@dataclass
class Precomputed:
    """Hashes of new passwords (each used once: every seat gets a salt of its own) and the
    results of checks against stored hashes, worked out before the write lock was taken."""

    hashes: dict[str, list[str]] = field(default_factory=dict)
    checks: dict[tuple[str, str], bool] = field(default_factory=dict)

    def add_hash(self, password: str) -> None:
        self.hashes.setdefault(password, []).append(_compute_hash(password))

    def add_check(self, password: str, stored: str) -> bool:
        key = (password, stored)
        if key not in self.checks:
            self.checks[key] = _compute_check(password, stored)
        return self.checks[key]


_PRECOMPUTED: ContextVar[Precomputed | None] = ContextVar("judge_precomputed", default=None)


@contextmanager
def precomputed(found: Precomputed) -> Iterator[None]:
    token = _PRECOMPUTED.set(found)
    try:
        yield
    finally:
        _PRECOMPUTED.reset(token)


def hash_password(password: str) -> str:
    found = _PRECOMPUTED.get()
    if found is not None and found.hashes.get(password):
        return found.hashes[password].pop()
    return _compute_hash(password)


def check_password(password: str, stored: str) -> bool:
    found = _PRECOMPUTED.get()
    if found is not None and (password, stored) in found.checks:
        return found.checks[(password, stored)]
    return _compute_check(password, stored)


def _compute_hash(password: str) -> str:
    salt = os.urandom(16)
    digest = _scrypt(password, salt, _N, _R, _P)
    b64 = lambda b: base64.b64encode(b).decode("ascii")  # noqa: E731
    return f"scrypt${_N}${_R}${_P}${b64(salt)}${b64(digest)}"


def _compute_check(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)
