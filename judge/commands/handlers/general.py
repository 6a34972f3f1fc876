"""Commands anyone may send without signing on: HELP, GET, VERSION, LIST, SIGNOFF."""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.parse import Command
from judge.commands.registry import all_commands, command
from judge.resources import templates_dir


def help_topics() -> list[str]:
    return sorted(p.stem.upper() for p in (templates_dir() / "help").glob("*.txt")
                  if p.stem != "index")


@command("HELP", syntax="HELP", summary="how to use the judge, and the list of help topics")
def help_command(ctx: Context, cmd: Command) -> None:
    ctx.answer(cmd.line_no, cmd.text,
               ctx.render("help/index.txt", topics=help_topics(), **ctx.template_vars()))


@command("GET", syntax="GET <topic>", summary="a help text: INFO, COMMANDS, ORDERS, DRAWS, RULES …")
def get_command(ctx: Context, cmd: Command) -> None:
    topics = help_topics()
    if len(cmd.args) != 1:
        raise CommandError(f"GET needs one topic: {', '.join(topics)}.")
    topic = cmd.args[0].upper()
    if topic not in topics:
        raise CommandError(f'no help topic "{cmd.args[0]}". Topics: {", ".join(topics)}.')
    ctx.answer(cmd.line_no, cmd.text,
               ctx.render(f"help/{topic.lower()}.txt", topics=topics, **ctx.template_vars()))


@command("VERSION", syntax="VERSION", summary="the judge's version")
def version_command(ctx: Context, cmd: Command) -> None:
    v = ctx.template_vars()
    ctx.answer(cmd.line_no, cmd.text, f"{v['judge_name']} is judge version {v['version']}.")


@command("SIGNOFF", syntax="SIGNOFF", summary="stop reading this mail here", stops_reading=True)
def signoff_command(ctx: Context, cmd: Command) -> None:
    ctx.answer(cmd.line_no, cmd.text, "Signed off; the rest of the mail was not read.")


@command("LIST", syntax="LIST [<game>]", summary="the games on this judge, or one game")
def list_command(ctx: Context, cmd: Command) -> None:
    # Games arrive with the games issue; until then the judge has none to list.
    games: list[object] = []
    if cmd.args:
        raise CommandError(f'no game named "{cmd.args[0]}" on this judge.')
    ctx.answer(cmd.line_no, cmd.text, ctx.render("list.txt", games=games, **ctx.template_vars()))


def command_summaries() -> list[tuple[str, str]]:
    return [(spec.syntax, spec.summary) for spec in all_commands()]
