"""The command registry: every mail command, who may use it, and in which game states.

Handlers register themselves with :func:`command`; later features add commands the same way.
Lookup is by the longest run of leading words (``SET DRAW`` before ``SET``), case-insensitive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Flag, auto
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from judge.commands.context import Context
    from judge.commands.parse import Command


class Role(Flag):
    """Who may use a command. ANYONE needs no SIGNON."""

    ANYONE = auto()
    POWER = auto()
    MASTER = auto()
    OBSERVER = auto()
    SIGNED_ON = POWER | MASTER | OBSERVER


Handler = Callable[["Context", "Command"], None]


@dataclass(frozen=True)
class CommandSpec:
    words: tuple[str, ...]
    handler: Handler
    roles: Role
    syntax: str
    summary: str
    # Game states in which the command may be used; None means any (or no game at all).
    states: frozenset[str] | None = None
    # A block command reads the lines up to this word as its text (PRESS … ENDPRESS).
    block_end: str | None = None
    # Reading stops after this command (SIGNOFF).
    stops_reading: bool = False
    aliases: tuple[tuple[str, ...], ...] = field(default=())

    @property
    def name(self) -> str:
        return " ".join(self.words)


_REGISTRY: dict[tuple[str, ...], CommandSpec] = {}
_MAX_WORDS = 1


def command(*words: str, roles: Role = Role.ANYONE, syntax: str = "", summary: str = "",
            states: frozenset[str] | None = None, block_end: str | None = None,
            stops_reading: bool = False,
            aliases: tuple[tuple[str, ...], ...] = ()) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of the command ``words``."""

    def register(handler: Handler) -> Handler:
        global _MAX_WORDS
        key = tuple(w.upper() for w in words)
        spec = CommandSpec(key, handler, roles, syntax or " ".join(key), summary, states,
                           block_end, stops_reading, aliases)
        for k in (key, *aliases):
            if k in _REGISTRY:
                raise ValueError(f"command {' '.join(k)} registered twice")
            _REGISTRY[k] = spec
            _MAX_WORDS = max(_MAX_WORDS, len(k))
        return handler

    return register


def lookup(tokens: list[str]) -> tuple[CommandSpec, int] | None:
    """The command the leading tokens name, and how many tokens its name took."""
    upper = [t.upper() for t in tokens[:_MAX_WORDS]]
    for n in range(len(upper), 0, -1):
        spec = _REGISTRY.get(tuple(upper[:n]))
        if spec is not None:
            return spec, n
    return None


def all_commands() -> list[CommandSpec]:
    seen: dict[tuple[str, ...], CommandSpec] = {}
    for spec in _REGISTRY.values():
        seen.setdefault(spec.words, spec)
    return sorted(seen.values(), key=lambda s: s.words)
