"""A small tournament played by SMTP against a running ``judge serve``: the same seven players
play three games of tournament "cup"; the master ends one in a DIAS draw of three (POSITION,
then SET DRAW votes), one in a French solo (POSITION, then one processed phase), and leaves
the third running.  STANDINGS by mail (to the director, who sees every address) and ``judge
tournament standings`` (a subprocess on the same database) give the same table; ``judge
tournament results`` exports the games and ``judge scoring`` scores that file exactly as the
core does; errors are one line on stderr."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from conftest import RunningJudge, polls
from smtpkit import exchange, wait_broadcast
from judge.core.scoring import get_system, get_tiebreaks, load_results, standings

MASTER = "gm@example.org"
PLAYERS = [f"p{i}@example.org" for i in range(7)]


def start_game(judge: RunningJudge, game: str) -> dict[str, tuple[str, str]]:
    """CREATE in the tournament and seven JOINs; power → (address, password)."""
    reply = exchange(judge, MASTER, f"CREATE {game} mpw TOURNAMENT cup tpw")
    assert f"Game {game} (Standard) created in tournament cup;" in reply, reply
    for i, address in enumerate(PLAYERS):
        assert "You have joined" in exchange(judge, address, f"JOIN {game} pw{i}")
    wait_broadcast(judge, f"JUDGE:{game} - S1901M Game Starting")
    who: dict[str, tuple[str, str]] = {}
    for _ in polls(20):
        for m in judge.replies():
            subject = str(m["Subject"])
            if subject.startswith(f"JUDGE:{game} ") and " You are " in subject:
                address = str(m["To"])
                who[subject.rsplit(" ", 1)[1].upper()] = (address, f"pw{PLAYERS.index(address)}")
        if len(who) == 7:
            break
    assert len(who) == 7
    return who


def as_power(judge: RunningJudge, game: str, who: dict[str, tuple[str, str]], power: str,
             line: str) -> str:
    address, pw = who[power]
    reply = exchange(judge, address, f"SIGNON {power[0]}{game} {pw}\n{line}")
    assert "Error" not in reply, reply
    return reply


def test_standings_by_mail_and_by_cli_agree(judge: RunningJudge, tmp_path: Path) -> None:
    # Game 1: a DIAS draw of Austria, England and France in S1905M.
    draw = start_game(judge, "cup1")
    reply = exchange(judge, MASTER, "SIGNON Mcup1 mpw\nPAUSE\nPOSITION S1905M\n"
                     "Austria: A Vie; centers Vie Bud Tri\n"
                     "England: F Lon; centers Lon Edi Lvp\n"
                     "France: A Par; centers Par Bre Mar\n"
                     "ENDPOSITION\nRESUME\n")
    assert "cup1 is running again, at S1905M." in reply, reply
    for power in ("AUSTRIA", "ENGLAND", "FRANCE"):
        reply = as_power(judge, "cup1", draw, power, "SET DRAW")
    assert "The vote has passed" in reply, reply
    wait_broadcast(judge, "JUDGE:cup1 - S1905M Draw Declared: AEF")

    # Game 2: France takes Vienna, its eighteenth centre, in F1903M; Austria goes out.
    solo = start_game(judge, "cup2")
    reply = exchange(judge, MASTER, "SIGNON Mcup2 mpw\nPAUSE\nPOSITION F1903M\n"
                     "France: A Tyr, A Par; centers Par Bre Mar Spa Por Bel Hol Mun Ber Kie "
                     "Den Lon Edi Lvp Ven Rom Nap\n"
                     "Austria: ; centers Vie\n"
                     "Russia: A Mos; centers Mos War Sev Stp\n"
                     "ENDPOSITION\nRESUME\n")
    assert "cup2 is running again" in reply, reply
    as_power(judge, "cup2", solo, "FRANCE", "A Tyr-Vie\nA Par H")
    exchange(judge, MASTER, "SIGNON Mcup2 mpw\nPROCESS")
    wait_broadcast(judge, "JUDGE:cup2 - F1903M Victory: F")

    # Game 3 is still being played.
    start_game(judge, "cup3")

    # the tournament's director (MASTER created it) sees every address, as the keeper does
    by_mail = exchange(judge, MASTER, "STANDINGS cup")
    cli = judge.cli("tournament", "standings", "cup")
    assert cli.returncode == 0, cli.stderr
    table = cli.stdout.rstrip("\n")
    assert f"> STANDINGS cup\n{table}\n\n1 line read, 0 errors." in by_mail, (by_mail, table)
    assert table.startswith("Standings: cup\nScoring system: draw-size; tie-breaks: "
                            "head-to-head, common-denominator.\nGames scored: cup1, cup2.\n"
                            "Still being played: cup3.\n")

    # The figures: the soloist's player leads with 1 (+ 1/3 if they drew in cup1 too).
    winner = solo["FRANCE"][0]
    in_draw = {draw[p][0] for p in ("AUSTRIA", "ENGLAND", "FRANCE")}
    expected = {a: Fraction(0) for a in PLAYERS}
    expected[winner] += 1
    for a in in_draw:
        expected[a] += Fraction(1, 3)
    js = judge.cli("tournament", "standings", "cup", "--json")
    assert js.returncode == 0, js.stderr
    doc = json.loads(js.stdout)
    assert {s["player"]: Fraction(s["total"]) for s in doc["standings"]} == expected
    assert doc["standings"][0]["player"] == winner and doc["standings"][0]["rank"] == 1

    # Another system and tie-break, by mail and by CLI: still the same table.
    by_mail = exchange(judge, MASTER, "STANDINGS cup SYSTEM sum-of-squares TIEBREAK years:14")
    cli = judge.cli("tournament", "standings", "cup", "--system", "sum-of-squares",
                    "--tiebreak", "years:14")
    assert cli.returncode == 0, cli.stderr
    assert f"\n{cli.stdout.rstrip()}\n\n1 line read, 0 errors." in by_mail

    # Export, then score the file anywhere: the same as the core on the same file.
    exported = judge.cli("tournament", "results", "cup")
    assert exported.returncode == 0, exported.stderr
    path = tmp_path / "cup.json"
    path.write_text(exported.stdout)
    scored = judge.cli("scoring", str(path), "--json")
    assert scored.returncode == 0, scored.stderr
    core = standings(load_results(json.loads(exported.stdout)), get_system("draw-size"),
                     get_tiebreaks("head-to-head,common-denominator"))
    assert [(s["rank"], s["player"], Fraction(s["total"]), s["shared"])
            for s in json.loads(scored.stdout)["standings"]] == [
        (s.rank, s.player, s.total, s.shared) for s in core]
    text = judge.cli("scoring", str(path))
    assert text.returncode == 0 and "Games scored: cup1, cup2." in text.stdout


def one_line_error(result, *needles: str) -> None:  # type: ignore[no-untyped-def]
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


def test_cli_errors_are_one_line(judge: RunningJudge, tmp_path: Path) -> None:
    one_line_error(judge.cli("tournament", "standings", "nope"), 'no tournament named "nope"')
    one_line_error(judge.cli("tournament", "add", "nope", "war1901"), "no tournament")
    # the password is asked for (twice) when not given
    created = judge.cli("tournament", "create", "cup", input=b"tpw\ntpw\n")
    assert created.returncode == 0 and "tournament cup created" in created.stdout
    one_line_error(judge.cli("tournament", "create", "cup", "--password", "x"),
                   "already a tournament")
    one_line_error(judge.cli("tournament", "add", "cup", "war1901"), 'no game named "war1901"')
    one_line_error(judge.cli("tournament", "standings", "cup", "--system", "elo"),
                   "unknown scoring system 'elo'")
    one_line_error(judge.cli("tournament", "standings", "cup", "--tiebreak", "coin"),
                   "unknown tie-break 'coin'")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    one_line_error(judge.cli("scoring", str(bad)), "bad.json is not valid JSON")
    bad.write_text('{"games": [{"game": "g", "round": 0}]}')
    one_line_error(judge.cli("scoring", str(bad)), "games[0].round: must be a whole number")
    one_line_error(judge.cli("scoring", str(tmp_path / "missing.json")), "cannot read")
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"games": [{"game": "g", "round": 1, "result": "solo",
                                           "members": ["FRANCE"], "year": 1910, "powers": {
        "FRANCE": {"player": "ann", "centers": 18},
        "ENGLAND": {"player": "bob", "centers": 16}}}]}))
    one_line_error(judge.cli("scoring", str(good), "--system", "elo"), "unknown scoring system")
    ok = judge.cli("scoring", str(good), "--system", "c-diplo")
    assert ok.returncode == 0, ok.stderr
    assert "1       100.000  ann\n2         0.000  bob\n" in ok.stdout


def test_tournament_add_by_cli_then_create_by_mail(judge: RunningJudge) -> None:
    assert "created" in exchange(judge, MASTER, "CREATE war1901 mpw")
    assert judge.cli("tournament", "create", "cup", "--director", MASTER,
                     "--password", "tpw").returncode == 0
    added = judge.cli("tournament", "add", "cup", "war1901")
    assert added.returncode == 0 and "war1901 is in tournament cup" in added.stdout
    reply = exchange(judge, MASTER, "CREATE war1902 mpw TOURNAMENT cup tpw")
    assert "created in tournament cup;" in reply
    reply = exchange(judge, "fan@example.org", "STANDINGS CUP")
    assert "Games scored: none yet.\nStill being played: war1901, war1902." in reply
