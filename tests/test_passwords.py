"""Passwords are salted scrypt hashes that record their own cost, so lowering or raising
JUDGE_PASSWORD_COST never locks anyone out."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys

from judge.service.access.passwords import check_password, hash_password


def test_hash_is_salted_and_checks_only_the_right_password() -> None:
    a, b = hash_password("secret"), hash_password("secret")
    assert a != b and a.startswith("scrypt$") and "secret" not in a
    assert check_password("secret", a) and not check_password("Secret", a)
    assert not check_password("secret", "garbage") and not check_password("secret", "md5$x")


def test_a_hash_made_at_another_cost_still_checks() -> None:
    salt = os.urandom(16)
    digest = hashlib.scrypt(b"pw", salt=salt, n=2 ** 14, r=8, p=1, maxmem=64 << 20, dklen=32)
    stored = "scrypt${}$8$1${}${}".format(2 ** 14, base64.b64encode(salt).decode(),
                                          base64.b64encode(digest).decode())
    assert check_password("pw", stored) and not check_password("px", stored)


def test_the_cost_comes_from_the_environment_within_bounds() -> None:
    code = "from judge.service.access.passwords import hash_password as h; print(h('x').split('$')[1])"
    def n_for(cost: str) -> int:
        env = {**os.environ, "JUDGE_PASSWORD_COST": cost}
        return int(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                  capture_output=True, text=True).stdout)
    assert n_for("14") == 2 ** 14
    assert n_for("3") == 2 ** 10 and n_for("40") == 2 ** 17  # clamped


def test_the_judges_hashes_are_standard_scrypt() -> None:
    """The judge computes scrypt with libsodium; OpenSSL's (hashlib) must agree bit for bit,
    at the test cost and the default one, for a password beyond ASCII."""
    from judge.service.access import passwords
    for n in (passwords._N, 2 ** 14):
        for password in ("secret", "pässwörd ✓"):
            salt = os.urandom(16)
            assert passwords._scrypt(password, salt, n, 8, 1) == hashlib.scrypt(
                password.encode(), salt=salt, n=n, r=8, p=1, maxmem=64 << 20, dklen=32)


def test_a_stored_hash_with_impossible_parameters_is_refused_not_raised() -> None:
    salt = base64.b64encode(os.urandom(16)).decode()
    for n, r, p in ((2 ** 30, 8, 1), (1000, 8, 1), (2 ** 14, 0, 1), (2 ** 14, 8, 0), (-16, 8, 1)):
        assert not check_password("pw", f"scrypt${n}${r}${p}${salt}$AAAA")
