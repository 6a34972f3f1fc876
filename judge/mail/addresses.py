"""Mail addresses: which ones are the judge's, and how to compare them."""

from __future__ import annotations

from email.utils import parseaddr


def normalise(address: str) -> str:
    """An addr-spec with the domain lower-cased (local parts may be case-sensitive in theory;
    no mail system the judge meets treats them so, and players mistype case all the time)."""
    _, addr = parseaddr(address or "")
    addr = (addr or address or "").strip().strip("<>")
    return addr.lower()


def split(address: str) -> tuple[str, str]:
    local, _, domain = normalise(address).rpartition("@")
    return local, domain


def is_judge_address(address: str, judge_address: str) -> bool:
    """True for the judge's own address and its ``+tag`` sub-addresses."""
    local, domain = split(address)
    jlocal, jdomain = split(judge_address)
    if not local or domain != jdomain:
        return False
    return local == jlocal or local.startswith(jlocal + "+")
