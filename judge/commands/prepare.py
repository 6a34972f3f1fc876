"""What is decided about a mail before the store is locked for it.

:func:`plan` reads the lines and keeps at most ``[limits] commands_per_mail`` of them (the
rest are answered with one line saying they were not executed).  :func:`prepare` does the slow
work outside the write transaction: it hashes the new passwords the mail sets and checks the
passwords its SIGNONs give (each command's ``prepare``, or by default a hash of each of its
secret words), within ``[limits] passwords_per_mail``; commands beyond that are refused.  It
also finds whether the mail signs on with the right password for a role whose registered
address is the mail's own (``authenticated``): such mail is never held back by the reply cap.

Nothing here writes; the results are advice the execution uses when they still hold (a hash
worked out here is used only while the stored hash it was checked against is unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.commands.parse import Command, Item, JudgeLine, read_items, trailing_option
from judge.basics.config import Config
from judge.mail.reading.message import ReadMail
from judge.service.access.passwords import Precomputed
from judge.store.models import Game

# A password is one word of at most this many characters (judge.service.games).
MAX_PASSWORD = 64


@dataclass(frozen=True)
class Overflow:
    """The lines beyond the per-mail ceiling: not executed."""

    first_line: int
    last_line: int
    count: int
    limit: int


def plan(lines: list[str] | tuple[str, ...], limit: int) -> tuple[list[Item], Overflow | None]:
    """The mail's commands and order lines, the first ``limit`` of them to execute (the
    judge's own lines pasted back are not counted: they are never executed), those that run
    first (CONFIRM, judge.commands.registry) before the others."""
    read = read_items(list(lines), limit)
    items = sorted(read, key=lambda i: not (isinstance(i, Command) and i.spec.runs_first))
    executed = [k for k, item in enumerate(items) if not isinstance(item, JudgeLine)]
    if len(executed) <= limit:
        return items, None
    rest = [item for item in items[executed[limit]:] if not isinstance(item, JudgeLine)]
    return items[:executed[limit]], Overflow(rest[0].line_no, rest[-1].line_no, len(rest),
                                             limit)


@dataclass
class Preparation:
    session: Session  # for reading only
    config: Config
    mail: ReadMail
    now: datetime
    passwords: Precomputed = field(default_factory=Precomputed)
    used: int = 0
    refusals: dict[int, str] = field(default_factory=dict)
    # A SIGNON checked here succeeded for a role registered to the mail's own address.
    authenticated: bool = False
    # A SIGNON will fail: nothing after it is executed, so nothing after it is prepared.
    stop: bool = False
    # Commands of one kind prepared so far (e.g. CREATEs, of which a day allows a few).
    counted: dict[str, int] = field(default_factory=dict)

    # What was read once for the whole mail (nothing written while it is prepared).
    known: dict[str, int] = field(default_factory=dict)

    def once(self, key: str, read: Callable[[], int]) -> int:
        """``read()`` the first time ``key`` is asked for in this mail, the same after."""
        if key not in self.known:
            self.known[key] = read()
        return self.known[key]

    def count(self, kind: str) -> int:
        """Count one more ``kind``; returns how many came before it."""
        before = self.counted.get(kind, 0)
        self.counted[kind] = before + 1
        return before

    def spend(self, cmd: Command, count: int = 1) -> bool:
        """Take ``count`` password operations from the mail's allowance; False (and the
        command refused) when it has run out."""
        limit = self.config.limits.passwords_per_mail
        if self.used + count > limit:
            self.refusals[cmd.line_no] = (
                f"Not executed: one mail may set or check at most {limit} password"
                f"{'s' if limit != 1 else ''}; send the rest in another mail.")
            return False
        self.used += count
        return True

    def hash_new(self, cmd: Command, *passwords: str) -> None:
        """Hash the new passwords of ``cmd`` (not those the command will refuse anyway)."""
        wanted = [p for p in passwords if 0 < len(p) <= MAX_PASSWORD]
        if wanted and self.spend(cmd, len(wanted)):
            for password in wanted:
                self.passwords.add_hash(password)


def prepare(session: Session, config: Config, mail: ReadMail, items: list[Item],
            now: datetime) -> Preparation:
    prep = Preparation(session, config, mail, now)
    for item in items:
        if prep.stop:
            break
        if not isinstance(item, Command) or item.unterminated:
            continue
        if item.spec.prepare is not None:
            item.spec.prepare(prep, item)
        elif item.spec.secrets is not None:
            prep.hash_new(item, *(item.args[i] for i in sorted(item.secret)))
        if item.spec.stops_reading:
            break
    return prep


def with_privacy(*fixed: int) -> Callable[[Preparation, Command], None]:
    """A command's ``prepare`` for commands that may end in ``PRIVACY <privacy password>``
    (LIST, HISTORY, SUMMARY, MAP, OBSERVE, JOIN): hash the new passwords at ``fixed``
    positions, and check the privacy password against the game's before the lock is taken."""
    def prepare_command(prep: Preparation, cmd: Command) -> None:
        args, privacy = trailing_option(cmd.args, "PRIVACY", 1)
        new = [args[i] for i in fixed if i < len(args)]
        if new:
            prep.hash_new(cmd, *new)
        if privacy is None or not args:
            return
        stored = prep.session.scalars(select(Game.privacy_hash).where(
            Game.name_key == args[0].lower())).first()
        if stored and prep.spend(cmd):
            prep.passwords.add_check(privacy, stored)
    return prepare_command
