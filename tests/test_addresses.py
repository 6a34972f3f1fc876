"""judge.basics.addresses: which addresses the judge stores and writes to, and how it compares them."""

from __future__ import annotations

import pytest

from judge.basics.addresses import AddressError, checked_address, is_judge_address, usable_address


@pytest.mark.parametrize("text, stored", [
    ("Alice@Example.ORG", "alice@example.org"),
    ("<bob@example.org>", "bob@example.org"),
    ("  carol@example.test ", "carol@example.test"),  # .test is for testing (RFC 2606)
    ("dave@bücher.example", "dave@xn--bcher-kva.example"),  # IDNA, as every relay takes it
])
def test_good_addresses_are_stored_lower_cased_and_ascii(text: str, stored: str) -> None:
    assert checked_address(text) == stored
    assert checked_address(text) == stored  # and the same when remembered


@pytest.mark.parametrize("text", ["wp@rclhka-", "a@-b.com", "a..b@example.org", "a@b@c@d",
                                  "x@example.net.", "", "<>", "root@localhost",
                                  "ünï@example.org", "s" * 250 + "@example.org"])
def test_unusable_addresses_are_refused_every_time(text: str) -> None:
    for _ in range(2):  # a refusal is never remembered as an address
        with pytest.raises(AddressError):
            checked_address(text)
        assert usable_address(text) is None


def test_the_judges_own_addresses() -> None:
    assert is_judge_address("Judge+game@Example.org", "judge@example.org")
    assert not is_judge_address("judgex@example.org", "judge@example.org")
