"""Who may send press to whom: the pure rules behind ``PRESS`` and ``BROADCAST``.

Two questions, both answered with values (never exceptions) so a mail reply can quote them:

* :func:`parse_addressing` reads the words after ``PRESS`` or ``BROADCAST``: ``TO`` and the
  powers (names, adjectives, initials, run together or separated by spaces or commas; ``M`` or
  ``MASTER`` for the master), ``GREY`` anywhere, nothing at all for a broadcast.
* :func:`refusal` says why a press may not be sent, or nothing: the master may write to anyone
  and anyone may write to the master; NO_PRESS allows nothing else, PUBLIC_PRESS only
  broadcasts; observers write to the master, and broadcast only where the master allows it;
  powers at war in Formal Diplomacy may not write to each other privately (as its rules
  say); nobody writes to an eliminated power, a power nobody plays, or to themselves; grey press
  needs the game to allow it.  An eliminated power's player may still write to the master.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.core.formal.press import press_refusals
from judge.core.formal.state import FormalState
from judge.core.maps import Map
from judge.core.powers import PowerNameError, find_powers

MASTER = "MASTER"
OBSERVER = "OBSERVER"
GREY_WORDS = frozenset({"GREY", "GRAY"})
_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class Addressing:
    """Where a press goes: ``powers`` in map order, and/or the master; or everybody."""

    powers: tuple[str, ...] = ()
    to_master: bool = False
    broadcast: bool = False
    grey: bool = False

    @property
    def master_only(self) -> bool:
        return self.to_master and not self.powers and not self.broadcast


@dataclass(frozen=True)
class PressError:
    """Why a press line cannot be read or a press may not be sent; fit for a reply."""

    message: str


@dataclass(frozen=True)
class PressGame:
    """The facts about a game that decide what press it allows."""

    name: str
    rules: frozenset[str]
    grey_allowed: bool
    observer_broadcasts: bool
    survivors: frozenset[str]
    played: frozenset[str]  # powers that have a player (or the master, after BECOME)
    formal: FormalState | None = None


def parse_addressing(m: Map, text: str, broadcast_command: bool) -> Addressing | PressError:
    """Read what follows ``PRESS`` (``broadcast_command`` false) or ``BROADCAST``."""
    words = [w for w in _SEPARATORS.split(text.strip().upper()) if w]
    grey = any(w in GREY_WORDS for w in words)
    words = [w for w in words if w not in GREY_WORDS]
    if broadcast_command:
        if words:
            return PressError("BROADCAST takes no powers (only GREY): it goes to everyone in "
                              "the game. Use PRESS TO <powers> to write to some powers only.")
        return Addressing(broadcast=True, grey=grey)
    if not words:
        return Addressing(broadcast=True, grey=grey)
    if words[0] != "TO":
        return PressError("PRESS is followed by TO and the powers, e.g. PRESS TO EG or "
                          "PRESS TO England Germany (M for the master), or by nothing to "
                          "write to everyone.")
    if len(words) == 1:
        return PressError("PRESS TO needs the powers to write to, e.g. PRESS TO E, "
                          "PRESS TO France Germany, or PRESS TO M for the master.")
    powers: set[str] = set()
    to_master = False
    for word in words[1:]:
        found = _named(m, word)
        if found is None:
            return PressError(f'"{word}" is not a power: name powers by name (France), '
                              f"adjective (French) or initial ({_initials(m)}), several at "
                              f"once if you like (PRESS TO EG), and the master by M or MASTER.")
        for name in found:
            if name == MASTER:
                to_master = True
            else:
                powers.add(name)
    return Addressing(tuple(p for p in m.powers if p in powers), to_master, False, grey)


def _named(m: Map, word: str) -> tuple[str, ...] | None:
    """The powers (or MASTER) one word names, or None when it names nothing: the shared
    reader of power lists, with M and MASTER for the master (M only if no power of the map
    has that initial)."""
    found = find_powers(m, word, extra={"M": MASTER, MASTER: MASTER})
    return None if isinstance(found, PowerNameError) else tuple(found)


def _initials(m: Map) -> str:
    return " ".join(p.letter for p in m.powers.values())


def _name(power: str) -> str:
    return power.capitalize()


def _names(powers: tuple[str, ...] | list[str]) -> str:
    names = [_name(p) for p in powers]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def refusal(sender: str, addressing: Addressing, game: PressGame) -> PressError | None:
    """Why ``sender`` (a power, MASTER or OBSERVER) may not send this press, or None."""
    if addressing.grey and not game.grey_allowed:
        return PressError(f"{game.name} does not allow grey press: send it without GREY.")
    if sender == MASTER and addressing.to_master:
        return PressError("you are the master: press to the master is press to yourself.")
    if sender in addressing.powers:
        return PressError(f"you are {_name(sender)}: you cannot send press to yourself.")
    recipients = _recipient_problem(addressing, game)
    if recipients is not None:
        return recipients
    if sender == MASTER or addressing.master_only:
        return None
    if sender == OBSERVER:
        return _observer_refusal(addressing, game)
    if sender not in game.survivors:
        return PressError(f"{_name(sender)} has been eliminated: its player may still write "
                          "to the master (PRESS TO M), but to nobody else.")
    if "NO_PRESS" in game.rules:
        return PressError(f"{game.name} is a NO_PRESS game: press may only go to the master "
                          "(PRESS TO M).")
    if addressing.broadcast:
        return None
    if "PUBLIC_PRESS" in game.rules:
        return PressError(f"{game.name} is a PUBLIC_PRESS game: no private press. Write to "
                          "the master (PRESS TO M) or to everyone (BROADCAST).")
    if game.formal is not None:
        enemies = press_refusals(game.formal, sender, addressing.powers)
        if enemies:
            return PressError(f"{_name(sender)} is at war with {_names(list(enemies))}: "
                              "powers at war may not send each other private press "
                              "(a BROADCAST is allowed).")
    return None


def _recipient_problem(addressing: Addressing, game: PressGame) -> PressError | None:
    gone = [p for p in addressing.powers if p not in game.survivors]
    if gone:
        verb = "has" if len(gone) == 1 else "have"
        return PressError(f"{_names(gone)} {verb} been eliminated: no press goes to "
                          f"{'it' if len(gone) == 1 else 'them'}.")
    nobody = [p for p in addressing.powers if p not in game.played]
    if nobody:
        return PressError(f"nobody plays {_names(nobody)} in {game.name} at the moment: the "
                          "press would reach no one.")
    return None


def _observer_refusal(addressing: Addressing, game: PressGame) -> PressError | None:
    if not addressing.broadcast:
        return PressError("observers may write only to the master (PRESS TO M), and "
                          "broadcast where the master allows it.")
    if "NO_PRESS" in game.rules:
        return PressError(f"{game.name} is a NO_PRESS game: press may only go to the master "
                          "(PRESS TO M).")
    if not game.observer_broadcasts:
        return PressError(f"observers may not broadcast in {game.name} (the master may allow "
                          "it with SET OBSERVER PRESS); you may write to the master "
                          "(PRESS TO M).")
    return None
