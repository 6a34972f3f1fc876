"""Mail addresses: which ones are the judge's, how to compare them, and which ones it may use.

Every address the judge stores (SET ADDRESS, the players of JOIN, OBSERVE and REPLACE, a
tournament's director) or answers (the sender of a mail) goes through :func:`checked_address`.
It uses ``email-validator`` for the syntax, without DNS: the standard library's
``email.headerregistry`` parser is built to read any header leniently and keeps going, so it
accepts ``wp@rclhka-``, ``a@-b.com`` or ``a..b@example.org`` as they are, and turns
``a@b@c@d`` or ``x@example.net.`` into an empty address with only a "defect" noted -- exactly
the addresses that later made mail impossible to queue.  ``email-validator`` refuses them with
a reason a person can read, knows the rules for domain names (no trailing dot or hyphen, IDNA),
and refuses internationalised local parts (the judge does not speak SMTPUTF8), while giving an
internationalised domain in its ASCII (``xn--``) form, which every relay accepts.
"""

from __future__ import annotations

from email.utils import parseaddr
from functools import lru_cache

from email_validator import EmailNotValidError, validate_email

# Longer than SMTP allows (RFC 5321: 64 + 1 + 255, and 256 for a whole path).
MAX_ADDRESS = 254


class AddressError(ValueError):
    """An address the judge will neither store nor write to; ``str()`` says why."""


def checked_address(text: str) -> str:
    """``text`` as the addr-spec the judge stores and writes to (lower-cased, ASCII), or
    :class:`AddressError`.  ``.test`` domains (reserved for testing, RFC 2606) are accepted;
    ``localhost`` and the other special-use names are not."""
    address = (text or "").strip()
    if address.startswith("<") and address.endswith(">"):
        address = address[1:-1].strip()
    if not address:
        raise AddressError("no address given")
    if len(address) > MAX_ADDRESS:
        raise AddressError(f"an address has at most {MAX_ADDRESS} characters")
    return _validated(address)


# The same few addresses are checked for every mail (its sender, each copy's recipient);
# a check is a pure function of the text and a tenth of a millisecond.  Only good addresses
# are remembered (a refusal raises, and lru_cache keeps no exception), and only so many.
@lru_cache(maxsize=4096)
def _validated(address: str) -> str:
    try:
        found = validate_email(address, check_deliverability=False, allow_smtputf8=False,
                               allow_quoted_local=False, allow_domain_literal=False,
                               allow_display_name=False, test_environment=True)
    except EmailNotValidError as exc:
        raise AddressError(str(exc).rstrip(".")) from None
    return (found.ascii_email or found.normalized).lower()


def usable_address(text: str) -> str | None:
    """:func:`checked_address`, or None where it refuses."""
    try:
        return checked_address(text)
    except AddressError:
        return None


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
