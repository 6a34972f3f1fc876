"""Mail addresses: which ones are the judge's, and how to compare them."""

from __future__ import annotations

from email.utils import parseaddr


def normalise(address: str) -> str:
    """An addr-spec with the domain lower-cased (local parts may be case-sensitive in theory;
    no mail system the judge meets treats them so, and players mistype case all the time)."""
    address = (address or "").strip()
    if not any(c in address for c in ' "(<,'):  # a bare addr-spec, as SMTP envelopes carry
        return address.lower()
    _, addr = parseaddr(address)
    return (addr or address).strip().strip("<>").lower()


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
