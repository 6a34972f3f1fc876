"""The header factory that remembers parsed headers: the same parse, fewer times, bounded."""

from __future__ import annotations

from email.headerregistry import Address, HeaderRegistry

from judge.mail.reading.headers import RememberingHeaders


def test_a_header_asked_for_again_is_the_same_parse() -> None:
    headers = RememberingHeaders()
    first = headers("Content-Type", "text/plain; charset=us-ascii")
    again = headers("content-type", "text/plain; charset=us-ascii")
    assert again is first
    plain = HeaderRegistry()("Content-Type", "text/plain; charset=us-ascii")
    assert (str(again), again.content_type, again.params) == \
        (str(plain), plain.content_type, dict(plain.params))


def test_different_texts_and_names_are_parsed_apart() -> None:
    headers = RememberingHeaders()
    assert str(headers("Subject", "=?utf-8?q?caf=C3=A9?=")) == "café"
    assert headers("Subject", "a") is not headers("Comments", "a")


def test_addresses_and_long_texts_are_parsed_every_time() -> None:
    headers = RememberingHeaders()
    address = Address("Judge", addr_spec="judge@example.org")
    assert str(headers("From", address)) == "Judge <judge@example.org>"
    long = "x" * (RememberingHeaders.LONGEST + 1)
    assert headers("Subject", long) is not headers("Subject", long)


def test_only_so_many_are_kept() -> None:
    headers = RememberingHeaders()
    first = headers("Subject", "s0")
    for n in range(1, RememberingHeaders.KEEP + 1):
        headers("Subject", f"s{n}")
    assert headers("Subject", "s0") is not first  # the oldest was let go


def test_one_class_per_header_name_and_a_mapping_made_later_counts() -> None:
    from email.headerregistry import UnstructuredHeader

    headers = RememberingHeaders()
    assert type(headers("Subject", "a")) is type(headers("Subject", "b"))
    assert headers["X-Ids"] is headers["x-ids"]

    class Ids(UnstructuredHeader):
        pass

    headers.map_to_type("x-ids", Ids)
    assert issubclass(headers["X-Ids"], Ids)
