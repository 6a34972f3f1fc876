"""The command registry: every mail command, who may use it, and in which game states.

Handlers register themselves with :func:`command`; later features add commands the same way.
Lookup is by the longest run of leading words (``SET DRAW`` before ``SET``), case-insensitive.

A command says which of its words are passwords (``secrets``): they are shown as ``****``
wherever the line is quoted back, an answer that quotes one of the line's words shows them so
too (judge.commands.parse, ``Command.shown``), and their slow hashing is done before the store
is locked (``prepare``, see judge.commands.prepare).  Where a line is mistyped, more words are
hidden rather than fewer.  ``informational`` commands only answer (HELP, LIST, HISTORY …): the
same one twice in a mail is answered once, and none is run once the reply is full.
A command that ``moves_game`` (the master's, JOIN, RESIGN …; orders too) is the game working:
the mail it causes is never counted against, nor refused for, the byte budgets of
judge.commands.execute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Flag, auto
from typing import AbstractSet, Callable


class Role(Flag):
    """Who may use a command. ANYONE needs no SIGNON."""

    ANYONE = auto()
    POWER = auto()
    MASTER = auto()
    OBSERVER = auto()
    SIGNED_ON = POWER | MASTER | OBSERVER


# handler(ctx: Context, cmd: Command): the registry is the bottom of the commands package
# (parsing, the context and the handlers build on it), so it names no type above it; each
# handler's own signature is checked where it is written.
Handler = Callable[..., None]
# The positions of the password words among a command's arguments.
Secrets = Callable[[tuple[str, ...]], tuple[int, ...]]
# Slow work for one command done before the store is locked (hashing, checking passwords).
Preparer = Callable[..., None]  # preparer(prep: Preparation, cmd: Command)


def positions(*where: int, rest: bool = False, privacy: int | None = None) -> Secrets:
    """Secrets at fixed positions (those the line has); with ``rest`` also every word after
    the last of them (a password mistakenly written as two words is still hidden); with
    ``privacy`` every word after a ``PRIVACY`` keyword found at that position or later (the
    privacy password, judge.commands.parse.trailing_option; the keyword itself stays)."""
    def find(args: tuple[str, ...]) -> tuple[int, ...]:
        found = {i for i in where if i < len(args)}
        keyword = privacy_keyword(args, privacy) if privacy is not None else None
        if rest and where:
            found |= set(range(max(where), len(args)))
        if keyword is not None:
            found |= set(range(keyword + 1, len(args)))
            found.discard(keyword)
        return tuple(sorted(found))
    return find


def privacy_keyword(args: tuple[str, ...], start: int) -> int | None:
    """The position of the first ``PRIVACY`` at ``start`` or later that has a word after it."""
    return next((i for i in range(start, len(args) - 1) if args[i].upper() == "PRIVACY"), None)


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
    secrets: Secrets | None = None
    informational: bool = False
    prepare: Preparer | None = None
    # How many words may follow the command's name (at least, at most; None: any number),
    # and the answer when another number does: checked before the handler runs.
    args: tuple[int, int | None] | None = None
    wrong_args: str = ""
    # The words the command's one argument may be (any case), for a switch such as ON|OFF:
    # another word gets ``wrong_args`` too.
    one_of: tuple[str, ...] = ()
    # The game's own working (see the module's docstring): not held to the byte budgets.
    moves_game: bool = False
    # Executed before the mail's other lines, wherever it stands (CONFIRM: a SIGNON above it
    # may need it).
    runs_first: bool = False

    def args_problem(self, args: tuple[str, ...]) -> str | None:
        """Why the command cannot take these words, by their number; None when it can."""
        if self.args is None:
            return None
        least, most = self.args
        if least <= len(args) and (most is None or len(args) <= most) and (
                not self.one_of or args[0].upper() in self.one_of):
            return None
        return self.wrong_args or f"{self.name} is written {self.syntax}."

    def secret_positions(self, args: tuple[str, ...]) -> tuple[int, ...]:
        return self.secrets(args) if self.secrets else ()

    @property
    def name(self) -> str:
        return " ".join(self.words)


_REGISTRY: dict[tuple[str, ...], CommandSpec] = {}
_MAX_WORDS = 1
# The first words of the commands that take passwords (kept as they register: every mail's
# subject is searched for them).
_PASSWORD_WORDS: set[str] = set()
# How alike a word must be to a command's word to be taken for it, mistyped (difflib's
# ratio, 0 to 1): 0.75 takes LSIT for LIST and SIGNOM for SIGNON, not STATUS for START.
NEAR_COMMAND = 0.75


def command(*words: str, roles: Role = Role.ANYONE, syntax: str = "", summary: str = "",
            states: frozenset[str] | None = None, block_end: str | None = None,
            stops_reading: bool = False,
            aliases: tuple[tuple[str, ...], ...] = (), secrets: Secrets | None = None,
            informational: bool = False, prepare: Preparer | None = None,
            args: tuple[int, int | None] | None = None,
            wrong_args: str = "", one_of: tuple[str, ...] = (),
            moves_game: bool | None = None,
            runs_first: bool = False) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of the command ``words``.  ``args``
    declares how many words may follow the name (at least, at most or None), ``wrong_args``
    the answer when another number does (the execution checks, the handler need not);
    ``one_of`` the words a switch's one argument may be (it implies ``args=(1, 1)``);
    ``moves_game`` is true by default for the master's commands, which control the game;
    ``runs_first`` commands are executed before the mail's other lines."""
    if one_of and args is None:
        args = (1, 1)
    if moves_game is None:
        moves_game = roles == Role.MASTER

    def register(handler: Handler) -> Handler:
        global _MAX_WORDS
        key = tuple(w.upper() for w in words)
        spec = CommandSpec(key, handler, roles, syntax or " ".join(key), summary, states,
                           block_end, stops_reading, aliases, secrets, informational, prepare,
                           args, wrong_args, tuple(w.upper() for w in one_of),
                           bool(moves_game), runs_first)
        for k in (key, *aliases):
            if k in _REGISTRY:
                raise ValueError(f"command {' '.join(k)} registered twice")
            _REGISTRY[k] = spec
            _MAX_WORDS = max(_MAX_WORDS, len(k))
            if secrets is not None:
                _PASSWORD_WORDS.add(k[0])
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


def password_words() -> AbstractSet[str]:
    """The first words of the commands (and aliases) that take passwords."""
    return _PASSWORD_WORDS


def all_commands() -> list[CommandSpec]:
    seen: dict[tuple[str, ...], CommandSpec] = {}
    for spec in _REGISTRY.values():
        seen.setdefault(spec.words, spec)
    return sorted(seen.values(), key=lambda s: s.words)
