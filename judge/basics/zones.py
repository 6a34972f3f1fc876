"""Time zones as people name them: IANA names (through the standard library's zoneinfo, whose
database the ``tzdata`` package supplies where the system has none), UTC offsets, and a few
common abbreviations that are not IANA names.

A zone is stored as text: an IANA key as the database spells it (``Europe/Paris``), ``UTC``,
or a fixed offset (``+01:00``).  :func:`zone_named` reads what a person wrote (any case) and
gives that text back, or None; :func:`tz` turns stored text into a ``tzinfo``.
"""

from __future__ import annotations

import re
from datetime import timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

UTC_NAMES = frozenset({"UTC", "GMT", "Z", "UT", "ZULU"})

# Abbreviations people write that are not IANA names, each with its one fixed offset.  Those
# that stand for several zones (CST: America or China; IST: India, Ireland or Israel) are left
# out: a deadline is no place for a guess.  CET, EET, WET, MET, EST, MST and HST are IANA
# names and are read as such.
ABBREVIATIONS = {
    "CEST": "+02:00", "EEST": "+03:00", "WEST": "+01:00", "BST": "+01:00",
    "EDT": "-04:00", "CDT": "-05:00", "MDT": "-06:00", "PST": "-08:00", "PDT": "-07:00",
    "AKST": "-09:00", "AKDT": "-08:00", "JST": "+09:00", "KST": "+09:00",
    "AEST": "+10:00", "AEDT": "+11:00", "ACST": "+09:30", "AWST": "+08:00",
    "NZST": "+12:00", "NZDT": "+13:00", "MSK": "+03:00",
}

_OFFSET = re.compile(r"^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _keys() -> dict[str, str]:
    """Every IANA key, by its lower-case spelling (keys are case-sensitive on disk)."""
    return {key.lower(): key for key in available_timezones()}


def offset_name(text: str) -> str | None:
    """``+0100``, ``+01:00``, ``-5``, ``UTC+1`` → ``+01:00`` (None: not an offset)."""
    found = _OFFSET.match(text.strip())
    if not found:
        return None
    sign, hours, minutes = found.group(1), int(found.group(2)), int(found.group(3) or 0)
    if hours > 14 or minutes > 59 or (hours == 14 and minutes):
        return None
    if hours == minutes == 0:
        return "UTC"
    return f"{sign}{hours:02d}:{minutes:02d}"


def zone_named(text: str) -> str | None:
    """The stored form of the zone ``text`` names, or None when it names none."""
    word = text.strip()
    if not word or len(word) > 64:
        return None
    if word.upper() in UTC_NAMES:
        return "UTC"
    if word.upper() in ABBREVIATIONS:
        return ABBREVIATIONS[word.upper()]
    offset = offset_name(word)
    if offset is not None:
        return offset
    key = _keys().get(word.lower())
    if key is None:
        return None
    try:
        ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return "UTC" if key in ("Etc/UTC", "UTC", "Etc/UCT", "UCT", "Zulu", "Etc/Zulu") else key


def tz(name: str | None) -> tzinfo:
    """The ``tzinfo`` of a stored zone (None or empty: UTC)."""
    if not name or name == "UTC":
        return timezone.utc
    if name[0] in "+-":
        sign = -1 if name[0] == "-" else 1
        hours, minutes = int(name[1:3]), int(name[4:6])
        return timezone(sign * timedelta(hours=hours, minutes=minutes))
    return ZoneInfo(name)
