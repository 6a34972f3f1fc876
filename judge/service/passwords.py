"""Passwords: stored only as salted scrypt hashes, compared in constant time (DESIGN §6)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

# 2**14 × 8 × 1 costs 16 MiB and some tens of milliseconds per check: slow for a guesser,
# cheap for one mail.  JUDGE_PASSWORD_COST (log2 of N, 10 to 17) changes it for new hashes
# only -- each hash records its own parameters, so old ones still check.  The test suite
# lowers it: its thousands of JOINs and SIGNONs would otherwise spend minutes hashing.
_COST = os.environ.get("JUDGE_PASSWORD_COST", "14")
_N, _R, _P = 2 ** min(max(int(_COST) if _COST.isdigit() else 14, 10), 17), 8, 1


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          maxmem=256 * r * n + (1 << 20), dklen=32)  # scrypt needs 128·r·N


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = _scrypt(password, salt, _N, _R, _P)
    b64 = lambda b: base64.b64encode(b).decode("ascii")  # noqa: E731
    return f"scrypt${_N}${_R}${_P}${b64(salt)}${b64(digest)}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)
