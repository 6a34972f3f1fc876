"""STANDINGS: anyone may ask for a tournament's table (the finished games, scored).

``STANDINGS <tournament> [SYSTEM <system>] [TIEBREAK <tie-breaks>]`` replies with the same
table ``judge tournament standings`` prints (templates/tournament/standings.txt), except that
players whose addresses the asker may not see are numbered instead (judge.service.access.disclosure).
"""

from __future__ import annotations

from judge.commands.context import Context
from judge.commands.errors import CommandError
from judge.commands.parse import Command
from judge.commands.registry import command
from judge.mail.writing.standings_table import ChoiceError, build_table, choose, render_text
from judge.service.access.disclosure import standings_players
from judge.service.tournament_results import tournament_results
from judge.service.tournaments import find_tournament

USAGE = "STANDINGS <tournament> [SYSTEM <system>] [TIEBREAK <tie-breaks>]"


def _options(args: tuple[str, ...]) -> dict[str, str]:
    opts: dict[str, str] = {}
    for i in range(0, len(args), 2):
        word = args[i].upper()
        if word not in ("SYSTEM", "TIEBREAK") or i + 1 >= len(args) or word in opts:
            raise CommandError(f'"{args[i]}" is not understood here: {USAGE}.')
        opts[word] = args[i + 1]
    return opts


@command("STANDINGS", syntax=USAGE, informational=True,
         summary="a tournament's standings (GET COMMANDS lists systems and tie-breaks)")
def standings_command(ctx: Context, cmd: Command) -> None:
    if not cmd.args:
        raise CommandError(f"STANDINGS needs a tournament name: {USAGE}.")
    opts = _options(cmd.args[1:])
    try:
        system, chain = choose(opts.get("SYSTEM"), opts.get("TIEBREAK"))
    except ChoiceError as exc:
        raise CommandError(f"{exc}.") from None
    tournament = find_tournament(ctx.session, cmd.args[0])
    done, open_games = tournament_results(ctx.session, tournament)
    # players are known by address: only those the asker may see (judge.service.access.disclosure)
    done = standings_players(ctx.session, tournament, done, ctx.mail.sender)
    table = build_table(tournament.name, done, system, chain, [g.name for g in open_games])
    ctx.answer(cmd.line_no, cmd.text, render_text(table))
