"""Execute a mail's commands in order and collect one answer per line read.

An error in one line never discards the others, except where the judge must stop (a failed
SIGNON: nothing after it is executed, and the reply says so).  Service refusals
(:class:`GameError`) are answered like command errors.  Permission and game-state checks
happen here, once, from the registry, so handlers only do their job.

Each command runs in a savepoint: one that fails changes nothing, and one whose mail would
pass the limits on mail to others is undone and answered so.  Copies to a game's members (the
addresses that confirmed they want its mail) are the game working and never count; copies to
any other address count against ``[limits] mail_per_mail`` and, for an address that has never
written to the judge, ``new_recipients_per_mail``/``_per_day``.  The bytes of every copy to
others count against ``[limits] mail_bytes_per_mail`` and ``mail_bytes_per_day`` (the
sender's, in a UTC day), except for the commands that keep a game moving (the registry's
``moves_game``, and orders), which are never refused for them.

:func:`run_items` executes from a given line for at most a given time, so the pipeline can
commit a long mail in short transactions; :func:`run_finishers` does, once, the work the
commands asked for at the end (a power's order summary, processing a phase whose
orders are complete).  Informational commands (HELP, LIST, HISTORY …) asked twice are answered
once, and are not run once the reply has reached ``[limits] reply_bytes``.  No answer repeats
a password the command carried (the registry's ``secrets``): the quoted line shows ``****``
where they were, and a handler that quotes one of the command's words quotes it as
:meth:`Command.shown` gives it.  The same word elsewhere in an answer (a password ``wrong``,
"wrong password") is the judge's own and stays.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from typing import Callable

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.finishers import FINISHERS
from judge.commands.identity import Identity
from judge.commands.order_lines import handle_order_line
from judge.commands.parse import Command, Item, JudgeLine, OtherLine, read_items
from judge.commands.prepare import Overflow
from judge.commands.registry import Role
from judge.commands.unknown import answer_unknown
from judge.mail.guards import recipients
from judge.mail.writing.game_mail import copy_bytes, recipients_of
from judge.mail.writing.refusals import refusal_text
from judge.service.errors import CountedRefusal, GameError
from judge.store import counters

# Importing the handler modules registers their commands.
from judge.commands import handlers  # noqa: F401


class MailLimit(GameError):
    """A command would make this mail (or its sender today) cause more mail than it may; its
    words are those of the code in templates/refusals.txt, as for any refusal."""


MAIL_BYTES = "mail-bytes"  # the daily counter of the bytes a sender's mail made the judge send


def execute(ctx: Context, items: list[Item] | None = None) -> Context:
    """Every line (by default, of the mail), then the finishers, in the caller's
    transaction."""
    run_items(ctx, read_items(list(ctx.mail.lines)) if items is None else items, 0)
    run_finishers(ctx)
    return ctx


def run_items(ctx: Context, items: list[Item], start: int, until: float | None = None) -> int:
    """Execute ``items[start:]`` until done or (after at least one) the monotonic time
    ``until``; returns the index of the first item not executed."""
    index = start
    while index < len(items):
        if until is not None and index > start and time.monotonic() >= until:
            break
        run_one(ctx, items[index])
        index += 1
    return index


def run_one(ctx: Context, item: Item) -> None:
    if isinstance(item, JudgeLine):  # the judge's own words, pasted back: the reply counts them
        return
    if ctx.halted:
        ctx.answer(item.line_no, item.text, f"Not executed: {ctx.halted}", ok=False)
        return
    if isinstance(item, OtherLine):
        if _guarded(ctx, item, lambda: _other_line(ctx, item)):
            ctx.seen.clear()
        return
    refusal = ctx.refusals.get(item.line_no) or _refusal(ctx, item)
    if refusal:
        ctx.answer(item.line_no, item.text, refusal, ok=False)
        if item.spec.words == ("SIGNON",):  # what follows was meant for the role signed on
            ctx.halted = f"the SIGNON on line {item.line_no} was not executed"
        return
    if item.unterminated:
        ctx.answer(item.line_no, item.text,
                   f"Error: {item.spec.name} without {item.spec.block_end}; nothing was done.",
                   ok=False)
        return
    if not item.spec.informational:
        # what an informational command answers may be different after this one
        if _guarded(ctx, item, lambda: _handle(ctx, item)):
            ctx.seen.clear()
        return
    asked = _asked(ctx, item)
    if asked in ctx.seen:
        ctx.answer(item.line_no, item.text, f"Same as the answer to line {ctx.seen[asked]} above.")
        return
    # An answer that would make the reply too long is not given (nor, once the reply is
    # full, worked out at all): one reply stays within [limits] reply_bytes.
    limit = ctx.config.limits.reply_bytes
    before = len(ctx.answers)
    if ctx.reply_size < limit:
        # An informational command writes nothing (tests/game/test_informational_commands.py
        # watches every statement each one sends): no savepoint, nothing to undo.  A savepoint
        # and its release were a tenth of the worker's time for a mail of one VERSION.
        _guarded(ctx, item, lambda: _handle(ctx, item), savepoint=False)
        if ctx.reply_size <= limit:
            ctx.seen[asked] = item.line_no
            return
        del ctx.answers[before:]
    ctx.answer(item.line_no, item.text,
               f"Not answered: the answer would make this reply longer than one reply may be "
               f"({limit} bytes). Ask again in another mail.", ok=False)


def _handle(ctx: Context, cmd: Command) -> None:
    """The command's handler, once its number of words is one it takes (judge.commands.
    registry: ``args``)."""
    problem = cmd.spec.args_problem(cmd.args)
    if problem is not None:
        raise CommandError(problem)
    cmd.spec.handler(ctx, cmd)


def run_finishers(ctx: Context) -> None:
    # Finishers may ask for more (processing a phase announces it); run until none is left.
    done: set[str] = set()
    while pending := [k for k in ctx.finishers if k not in done]:
        for key in pending:
            done.add(key)
            kind, _, ident = key.partition(":")
            FINISHERS[kind](ctx, int(ident))


def overflow_answer(ctx: Context, overflow: Overflow) -> None:
    lines = (f"line {overflow.first_line}" if overflow.count == 1 else
             f"lines {overflow.first_line} to {overflow.last_line}")
    ctx.answer(overflow.first_line, f"({overflow.count} more line"
               f"{'s' if overflow.count != 1 else ''})",
               f"Not executed ({lines}): too many commands in one mail (at most "
               f"{overflow.limit}). Send the rest in another mail.", ok=False)


def _asked(ctx: Context, cmd: Command) -> str:
    """What an informational command asks, as a key: the same words from the same role."""
    identity = ctx.identity
    who = f"{identity.seat_id}:{identity.power}" if identity is not None else "-"
    return " ".join((who, *cmd.spec.words, *(a.upper() for a in cmd.args)))


def _guarded(ctx: Context, item: Item, work: Callable[[], None], savepoint: bool = True) -> bool:
    """Run one command in a savepoint (unless it writes nothing); a refusal undoes it and
    answers why.  False when it was refused."""
    answers, outgoing, also = len(ctx.answers), len(ctx.outgoing), len(ctx.reply_also)
    identity = ctx.identity.saved() if ctx.identity is not None else None
    try:
        with ctx.session.begin_nested() if savepoint else nullcontext():
            work()
            _check_mail(ctx, outgoing, also, budgeted=_budgeted(item))
    except (CommandError, GameError) as exc:
        del ctx.answers[answers:], ctx.outgoing[outgoing:], ctx.reply_also[also:]
        ctx.identity = Identity.restored(identity, ctx.session) if identity else None
        if isinstance(exc, CountedRefusal) and (savepoint or not exc.if_undone):
            # a wrong password counts though nothing changed
            exc = exc.count(ctx.session) or exc
        verdict = "Not executed" if isinstance(exc, MailLimit) else "Error"
        why = refusal_text(exc) if isinstance(exc, GameError) else str(exc)
        ctx.answer(item.line_no, item.text, f"{verdict}: {why}", ok=False)
        return False
    return True


def _budgeted(item: Item) -> bool:
    """Whether the mail ``item`` causes counts against the byte budgets: not orders, nor a
    command that keeps a game moving (judge.commands.registry)."""
    return isinstance(item, Command) and not item.spec.moves_game


def _check_mail(ctx: Context, outgoing: int, also: int, budgeted: bool) -> None:
    """Refuse (MailLimit) a command whose mail would pass this mail's or its sender's limits:
    the copies to addresses that are not the game's members, and (``budgeted``) the bytes."""
    sender = ctx.mail.sender
    strangers: list[str] = []
    size = 0
    for out in ctx.outgoing[outgoing:]:
        if not out.limited:
            continue
        to, known = recipients_of(ctx.session, out)
        to = [a for a in to if a != sender]
        strangers += [a for a in to if a not in known]
        if budgeted and to:
            size += copy_bytes(ctx.render, ctx.config, out) * len(to)
    strangers += [a for a in ctx.reply_also[also:] if a != sender]
    if strangers:
        _check_copies(ctx, strangers)
    if size:
        _check_bytes(ctx, size)


def _check_copies(ctx: Context, others: list[str]) -> None:
    limits = ctx.config.limits
    if ctx.mail_to_others + len(others) > limits.mail_per_mail:
        raise MailLimit("mail_copies", written=ctx.mail_to_others, limit=limits.mail_per_mail)
    # new to the judge, and not counted already for an earlier line of this mail
    new = recipients.unheard(ctx.session, set(others)) - set(ctx.new_recipients)
    if new:
        if len(ctx.new_recipients) + len(new) > limits.new_recipients_per_mail:
            raise MailLimit("new_recipients_mail", limit=limits.new_recipients_per_mail)
        sender = ctx.mail.sender
        today = counters.count(ctx.session, "new-recipient", sender, ctx.now)
        if today + len(new) > limits.new_recipients_per_day:
            raise MailLimit("new_recipients_day", limit=limits.new_recipients_per_day)
        counters.bump(ctx.session, "new-recipient", sender, ctx.now, len(new))
    ctx.mail_to_others += len(others)
    ctx.new_recipients.extend(sorted(new))


def _check_bytes(ctx: Context, size: int) -> None:
    """``size`` more bytes of mail to others, within this mail's budget and the sender's
    day's (counted in the command's savepoint: a command undone counts nothing)."""
    limits = ctx.config.limits
    if ctx.mail_bytes + size > limits.mail_bytes_per_mail:
        raise MailLimit("mail_bytes_mail", size=size, limit=limits.mail_bytes_per_mail)
    today = counters.count(ctx.session, MAIL_BYTES, ctx.mail.sender, ctx.now)
    if today + size > limits.mail_bytes_per_day:
        raise MailLimit("mail_bytes_day", size=size, limit=limits.mail_bytes_per_day)
    counters.bump(ctx.session, MAIL_BYTES, ctx.mail.sender, ctx.now, size)
    ctx.mail_bytes += size


def _refusal(ctx: Context, cmd: Command) -> str | None:
    roles = cmd.spec.roles
    if Role.ANYONE in roles:
        return None
    identity = ctx.identity
    if identity is None:
        return f"Error: {cmd.spec.name} needs a SIGNON first."
    if not (identity.role & roles):
        return f"Error: {cmd.spec.name} is not for {identity.describe()}."
    states = cmd.spec.states
    if states is not None and identity.game_state not in states:
        return f"Error: {cmd.spec.name} cannot be used while the game is {identity.game_state}."
    return None


def _other_line(ctx: Context, line: OtherLine) -> None:
    if ctx.identity is not None:
        handle_order_line(ctx, ctx.identity, line)
        return
    answer_unknown(ctx, line, signed_on=False)
