"""The ``judge tournament …`` and ``judge scoring`` commands (click), registered on the main
group by :func:`register`.

* ``judge tournament create <name> [--director ADDRESS] [--password PW]`` -- a new, empty
  tournament with its password (asked for when not given);
* ``judge tournament password <name> [--password PW]`` -- give a tournament a new password
  (by mail a game joins a tournament only with its password, see ``CREATE … TOURNAMENT``);
* ``judge tournament add <name> <game>`` -- put a game in a tournament (the operator may add
  any game);
* ``judge tournament standings <name> [--system S] [--tiebreak T] [--json]`` -- the table
  of the tournament's finished games, the same text the mail command STANDINGS sends;
* ``judge tournament results <name>`` -- its finished games as the JSON ``judge scoring``
  reads;
* ``judge scoring <results.json> [--system S] [--tiebreak T] [--json]`` -- score games
  played anywhere (judge.core.scoring.game_results documents the file).

Every refusal is one line on stderr and exit status 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

SYSTEM_HELP = ("Scoring system: draw-size (dias), sum-of-squares, c-diplo, carnage, tribute, "
               "opentribute, world-classic, manorcon.  Default: draw-size.")
TIEBREAK_HELP = ("Comma-separated tie-breaks: head-to-head, years:X, years-elim:X, "
                 "common-denominator, or none.  Default: head-to-head,common-denominator.")


def _fail(message: str) -> NoReturn:
    click.echo(f"judge: {message}", err=True)
    sys.exit(2)


def _choose(system: str | None, tiebreak: str | None) -> tuple[Any, Any]:
    from judge.mail.writing.standings_table import ChoiceError, choose
    try:
        return choose(system, tiebreak)
    except ChoiceError as exc:
        _fail(str(exc))


def _show(table: Any, as_json: bool) -> None:
    from judge.mail.writing.standings_table import as_json as to_json
    from judge.mail.writing.standings_table import render_text
    if as_json:
        click.echo(json.dumps(to_json(table), indent=1))
    else:
        click.echo(render_text(table), nl=False)


def _in_transaction(obj: Any, work: Any) -> Any:
    """Run ``work(session)`` in one transaction of the configured store; GameError → exit 2."""
    from judge.mail.writing.refusals import refusal_text
    from judge.service.errors import GameError
    store = obj.store(create=True)
    try:
        with store.transaction() as session:
            return work(session)
    except GameError as exc:
        _fail(refusal_text(exc))
    finally:
        store.dispose()


@click.group()
def tournament() -> None:
    """Tournaments: create them, add games, show the standings."""


PASSWORD_HELP = ("The tournament's password: games are added to it by mail with CREATE … "
                 "TOURNAMENT <name> <password>.  Asked for when not given.")


@tournament.command("create")
@click.argument("name")
@click.option("--director", default="", help="The director's address, for contact.")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
              help=PASSWORD_HELP)
@click.pass_obj
def tournament_create(obj: Any, name: str, director: str, password: str) -> None:
    """Create the tournament NAME."""
    from judge.basics.utc import utcnow
    from judge.basics.addresses import AddressError, checked_address
    from judge.service.tournaments import create_tournament
    if director:
        try:
            director = checked_address(director)
        except AddressError as exc:
            _fail(f"--director is not a usable mail address: {exc}")
    else:
        director = obj.config.judge.address
    row = _in_transaction(obj, lambda s: create_tournament(
        s, name, director, utcnow(), password).name)
    click.echo(f"tournament {row} created")


@tournament.command("password")
@click.argument("name")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
              help=PASSWORD_HELP)
@click.pass_obj
def tournament_password(obj: Any, name: str, password: str) -> None:
    """Give the tournament NAME a new password."""
    from judge.service.tournaments import set_password
    row = _in_transaction(obj, lambda s: set_password(s, name, password).name)
    click.echo(f"tournament {row} has a new password")


@tournament.command("add")
@click.argument("name")
@click.argument("game")
@click.pass_obj
def tournament_add(obj: Any, name: str, game: str) -> None:
    """Put the game GAME in the tournament NAME."""
    from judge.service.games import find_game
    from judge.service.tournaments import add_game, find_tournament

    def work(session: Any) -> str:
        t, g = find_tournament(session, name), find_game(session, game)
        add_game(session, t, g)
        return f"{g.name} is in tournament {t.name}"
    click.echo(_in_transaction(obj, work))


def _tournament_results(obj: Any, name: str) -> tuple[str, list[Any], list[str]]:
    from judge.service.tournament_results import tournament_results
    from judge.service.tournaments import find_tournament

    def work(session: Any) -> tuple[str, list[Any], list[str]]:
        t = find_tournament(session, name)
        done, open_games = tournament_results(session, t)
        return t.name, done, [g.name for g in open_games]
    return _in_transaction(obj, work)


@tournament.command("standings")
@click.argument("name")
@click.option("--system", default=None, help=SYSTEM_HELP)
@click.option("--tiebreak", default=None, help=TIEBREAK_HELP)
@click.option("--json", "as_json", is_flag=True, help="JSON instead of the text table.")
@click.pass_obj
def tournament_standings(obj: Any, name: str, system: str | None, tiebreak: str | None,
                         as_json: bool) -> None:
    """The standings of the tournament NAME (its finished games)."""
    from judge.mail.writing.standings_table import build_table
    chosen, chain = _choose(system, tiebreak)
    title, done, open_games = _tournament_results(obj, name)
    _show(build_table(title, done, chosen, chain, open_games), as_json)


@tournament.command("results")
@click.argument("name")
@click.pass_obj
def tournament_results_cmd(obj: Any, name: str) -> None:
    """The finished games of the tournament NAME as the JSON `judge scoring` reads."""
    from judge.service.tournament_results import results_document
    _, done, _ = _tournament_results(obj, name)
    click.echo(json.dumps(results_document(done), indent=1))


@click.command("scoring")
@click.argument("results", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--system", default=None, help=SYSTEM_HELP)
@click.option("--tiebreak", default=None, help=TIEBREAK_HELP)
@click.option("--json", "as_json", is_flag=True, help="JSON instead of the text table.")
def scoring(results: str, system: str | None, tiebreak: str | None, as_json: bool) -> None:
    """Score the games in the JSON file RESULTS (- for stdin) and print the standings."""
    from judge.core.scoring import ResultsError, load_results
    from judge.mail.writing.standings_table import build_table
    chosen, chain = _choose(system, tiebreak)
    try:
        text = sys.stdin.read() if results == "-" else Path(results).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {results}: {getattr(exc, 'strerror', None) or exc}")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(f"{results} is not valid JSON: {exc}")
    try:
        games = load_results(doc)
    except ResultsError as exc:
        _fail(f"{results}: {exc}")
    title = "stdin" if results == "-" else Path(results).name
    _show(build_table(title, games, chosen, chain), as_json)


def register(main: click.Group) -> None:
    """Add ``tournament`` and ``scoring`` to the ``judge`` command group."""
    main.add_command(tournament)
    main.add_command(scoring)
