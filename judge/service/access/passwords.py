"""Passwords: stored only as salted scrypt hashes, compared in constant time.

A hash is slow on purpose, so the mail pipeline works them out *before* it takes the store's
write lock (judge.commands.prepare) and hands them in with :func:`precomputed`: while that is in
force, :func:`hash_password` and :func:`check_password` take a result worked out beforehand
when there is one, and compute it themselves otherwise (when the stored hash changed meanwhile,
say), so the answer is always the one computing it now would give.

A check that succeeded is remembered for ``CHECK_MEMORY_SECONDS`` (:class:`_CheckMemory`): a
player who mails orders, then corrections a few minutes later, pays the slow hash once.  It is
safe because it remembers only the true answer of a pure function of (password, stored hash):

* failures are never remembered, so every wrong guess still costs a full scrypt;
* an entry answers only for the very password checked against the very stored hash, and
  setting a new password stores a new hash (with a new salt), so the old entry can no longer
  match: a changed password takes effect at once, and the old one is refused;
* entries are keyed by an HMAC under a key drawn at process start, so the memory holds no
  password; the store itself keeps mail as received (SIGNON lines and all) for
  ``[retention] raw_mail_days``, so this adds nothing an intruder in the process could not
  read there;
* it lives in the process only, at most ``CHECK_MEMORY_SIZE`` entries, each for a few minutes
  from the check that succeeded (a hit does not prolong it).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import os
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from contextvars import ContextVar
import itertools
from dataclasses import dataclass, field
from typing import Callable, Iterator

# 2**14 × 8 × 1 costs 16 MiB and some tens of milliseconds per check: slow for a guesser,
# cheap for one mail.  JUDGE_PASSWORD_COST (log2 of N, 10 to 17) changes it for new hashes
# only -- each hash records its own parameters, so old ones still check.  The test suite
# lowers it: its thousands of JOINs and SIGNONs would otherwise spend minutes hashing.
_COST = os.environ.get("JUDGE_PASSWORD_COST", "14")
_N, _R, _P = 2 ** min(max(int(_COST) if _COST.isdigit() else 14, 10), 17), 8, 1


_HASHED = itertools.count()  # scrypt computations so far (next() is atomic in CPython)


def hashes_computed() -> int:
    """How many scrypt hashes this process has computed so far: a hint for whoever schedules
    password work (judge.pipeline.stages reads a batch in two threads while they are many)."""
    return next(_HASHED)  # counts itself too; only differences are meaningful


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    """scrypt (RFC 7914) as libsodium computes it: the same function as ``hashlib.scrypt``
    (OpenSSL's), bit for bit, in about a third less time: its Salsa20/8 core uses the
    processor's vector instructions (measured on a two-core x86-64 server: 33 ms against
    43–49 ms a hash at 2^14, 18 against 25 ms each with two at once).  A guesser gains
    nothing: the work is the same, only done faster for the judge, so mail with first
    sign-ons is answered sooner.  The C call runs without the interpreter's lock, so two
    hashes use two cores.  Bad parameters in a stored hash raise ValueError, as hashlib's
    do."""
    next(_HASHED)
    derive, failure = _sodium()
    try:
        return derive(password.encode("utf-8"), salt, n, r, p, 32,
                      256 * r * n + (1 << 20))  # scrypt needs 128·r·N bytes
    except failure as exc:  # say, a cost too large to allocate
        raise ValueError(f"scrypt failed: {exc}") from exc


@functools.cache
def _sodium() -> tuple[Callable[..., bytes], type[Exception]]:
    # Imported at the first hash: loading libsodium's bindings takes ~15 ms, which commands
    # that never see a password (judge adjudicate, say) should not pay at start-up.
    from nacl.bindings import crypto_pwhash_scryptsalsa208sha256_ll
    from nacl.exceptions import CryptoError
    return crypto_pwhash_scryptsalsa208sha256_ll, CryptoError


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


CHECK_MEMORY_SECONDS = 600.0
CHECK_MEMORY_SIZE = 4096


class _CheckMemory:
    """Successful checks of the last few minutes, by HMAC of (stored hash, password)."""

    def __init__(self) -> None:
        self._key = os.urandom(32)
        self._seen: OrderedDict[bytes, float] = OrderedDict()  # key → when it was checked
        self._lock = threading.Lock()  # the worker and the CLI may check from threads

    def key(self, password: str, stored: str) -> bytes:
        message = stored.encode("utf-8", "surrogatepass") + b"\0" + \
            password.encode("utf-8", "surrogatepass")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def holds(self, key: bytes) -> bool:
        with self._lock:
            at = self._seen.get(key)
            if at is None:
                return False
            if time.monotonic() - at < CHECK_MEMORY_SECONDS:
                return True
            del self._seen[key]
            return False

    def remember(self, key: bytes) -> None:
        with self._lock:
            self._seen[key] = time.monotonic()
            self._seen.move_to_end(key)
            while len(self._seen) > CHECK_MEMORY_SIZE:
                self._seen.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()


_MEMORY = _CheckMemory()


def forget_checks() -> None:
    """Forget every remembered check (a fresh process's state)."""
    _MEMORY.clear()


def _compute_check(password: str, stored: str) -> bool:
    key = _MEMORY.key(password, stored)
    if _MEMORY.holds(key):
        return True
    ok = _slow_check(password, stored)
    if ok:
        _MEMORY.remember(key)
    return ok


def _slow_check(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)
