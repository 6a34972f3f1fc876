"""How a power is named in mail: one reading for every command and order that names powers.

A power is named by its initial (the map's letter, ``F``), its name (``France``) or its
adjective (``French``), in any case.  Where one power is asked for (``DWO``, ``DUMMY``,
``SET CONCEDE``, ``SET WAR`` …) the beginning of a name or adjective also names it when it is
at least three letters long and fits only one power (``Fra``, ``Germ``).  A list of powers
(``SET DRAW``, ``PRESS TO``) takes names and adjectives, and initials run together (``EG``) or
apart (``E G``, ``E,G``); beginnings of names are not read there, since ``FRA`` would then be
both France and the initials F, R and A.

Both readers answer with values, never exceptions: the power names found, or a
:class:`PowerNameError` saying which word named nothing.  Callers word the refusal for their
command; :attr:`PowerNameError.message` is a sentence fit for a reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Iterable, Mapping

from judge.core.maps import Map

_SEPARATORS = re.compile(r"[\s,]+")
MIN_PREFIX = 3


@dataclass(frozen=True)
class PowerNames:
    """The spellings of a map's powers: ``letters`` (initial → power) and ``words`` (upper-case
    name or adjective → power); ``order`` is the map's order of the powers."""

    letters: Mapping[str, str]
    words: Mapping[str, str]
    order: tuple[str, ...]

    @staticmethod
    def of_map(m: Map) -> "PowerNames":
        return _of_map(m)

    @staticmethod
    def of_names(names: Iterable[str]) -> "PowerNames":
        """For a bare list of power names (no map): the initials that name one power only."""
        order = tuple(n.upper() for n in names)
        by_letter: dict[str, list[str]] = {}
        for name in order:
            by_letter.setdefault(name[0], []).append(name)
        letters = {k: v[0] for k, v in by_letter.items() if len(v) == 1}
        return PowerNames(MappingProxyType(letters), MappingProxyType({n: n for n in order}),
                          order)

    def initials(self) -> str:
        """``A E F G I R T``: the initials, in map order."""
        by_power = {p: k for k, p in self.letters.items()}
        return " ".join(by_power[p] for p in self.order if p in by_power)

    def names(self) -> str:
        return ", ".join(p.capitalize() for p in self.order)


@lru_cache(maxsize=None)
def _of_map(m: Map) -> PowerNames:
    letters = {p.letter.upper(): name for name, p in m.powers.items()}
    words: dict[str, str] = {}
    for name, p in m.powers.items():
        words.setdefault(name.upper(), name)
        words.setdefault(p.adjective.upper(), name)
    return PowerNames(MappingProxyType(letters), MappingProxyType(words), tuple(m.powers))


@dataclass(frozen=True)
class PowerNameError:
    """A word that names no power (or more than one); ``message`` is one sentence."""

    word: str
    message: str
    candidates: tuple[str, ...] = ()  # the powers an ambiguous beginning fits


def _table(names: PowerNames | Map) -> PowerNames:
    return names if isinstance(names, PowerNames) else PowerNames.of_map(names)


def _hint(t: PowerNames) -> str:
    return (f"name a power by its initial ({t.initials()}), its name (e.g. "
            f"{t.order[0].capitalize()}) or its adjective")


def find_power(names: PowerNames | Map, text: str) -> str | PowerNameError:
    """The one power ``text`` names: initial, name, adjective or a beginning of three letters
    or more that fits only one power."""
    t = _table(names)
    word = " ".join(text.replace("!", " ").replace(".", " ").split()).upper()
    if not word:
        return PowerNameError("", f"no power named: {_hint(t)}")
    if word in t.words:
        return t.words[word]
    if len(word) == 1 and word in t.letters:
        return t.letters[word]
    if len(word) >= MIN_PREFIX:
        found = sorted({p for w, p in t.words.items() if w.startswith(word)},
                       key=t.order.index)
        if len(found) == 1:
            return found[0]
        if found:
            return PowerNameError(text.strip(), f'"{text.strip()}" could be '
                                  f"{' or '.join(p.capitalize() for p in found)}",
                                  tuple(found))
    return PowerNameError(text.strip(), f'"{text.strip()}" is not a power: {_hint(t)}')


def find_powers(names: PowerNames | Map, text: str,
                extra: Mapping[str, str] | None = None) -> list[str] | PowerNameError:
    """The powers a list names, in the order written (a power named twice is kept twice).

    ``extra`` adds words or initials of the caller's own (``{"M": "MASTER", "MASTER":
    "MASTER"}`` for press); a map power's initial wins over an extra one.
    """
    t = _table(names)
    extra = {k.upper(): v for k, v in (extra or {}).items()}
    letters = {**{k: v for k, v in extra.items() if len(k) == 1}, **t.letters}
    words = {**{k: v for k, v in extra.items() if len(k) > 1}, **t.words}
    found: list[str] = []
    for token in (w for w in _SEPARATORS.split(text.strip()) if w):
        upper = token.upper()
        if upper in words:
            found.append(words[upper])
        elif upper.isalpha() and all(ch in letters for ch in upper):
            found.extend(letters[ch] for ch in upper)
        else:
            bad = next((ch for ch in token if ch.upper() not in letters), token)
            if upper.isalpha() and 1 < len(upper) <= 4 and len(bad) == 1:
                message = (f'"{bad}" (in "{token}") is not a power initial; use the initials '
                           f"{t.initials()} or the powers' names")
            else:
                message = f'"{token}" is not a power: {_hint(t)}'
            return PowerNameError(token, message)
    return found
