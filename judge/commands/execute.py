"""Execute a mail's commands in order and collect one answer per line read.

An error in one line never discards the others, except where the judge must stop (a failed
SIGNON: nothing after it is executed, and the reply says so).  Service refusals
(:class:`GameError`) are answered like command errors.  Finishers registered by handlers run
after the last line (a power's order summary, processing a phase whose orders are complete).  Permission and game-state checks
happen here, once, from the registry, so handlers only do their job.
"""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.parse import Command, OtherLine, parse_lines
from judge.commands.registry import Role
from judge.service.errors import GameError

# Importing the handler modules registers their commands.
from judge.commands import handlers  # noqa: F401


def execute(ctx: Context) -> Context:
    items = parse_lines(list(ctx.mail.lines))
    for item in items:
        if ctx.halted:
            ctx.answer(item.line_no, item.text, f"Not executed: {ctx.halted}", ok=False)
            continue
        if isinstance(item, OtherLine):
            _other_line(ctx, item)
            continue
        refusal = _refusal(ctx, item)
        if refusal:
            ctx.answer(item.line_no, item.text, refusal, ok=False)
            continue
        if item.unterminated:
            ctx.answer(item.line_no, item.text,
                       f"Error: {item.spec.name} without {item.spec.block_end}; nothing was done.",
                       ok=False)
            continue
        try:
            item.spec.handler(ctx, item)
        except (CommandError, GameError) as exc:
            ctx.answer(item.line_no, item.text, f"Error: {exc}", ok=False)
    # Finishers may add more (processing a phase announces it); run until none is left.
    done: set[str] = set()
    while pending := [k for k in ctx.finishers if k not in done]:
        for key in pending:
            done.add(key)
            ctx.finishers[key](ctx)
    return ctx


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
    handler = getattr(ctx.identity, "handle_order_line", None)
    if handler is not None:
        handler(ctx, line)
        return
    word = line.text.split()[0]
    ctx.answer(line.line_no, line.text,
               f'Error: unknown command "{word}". Send HELP for the list of commands'
               " (orders are read only after a SIGNON).", ok=False)
