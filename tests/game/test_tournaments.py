"""Tournaments through the real pipeline and store (no SMTP): CREATE … TOURNAMENT, adding
games only with the tournament's password, STANDINGS and its refusals, and how a game result record
becomes a scored result
(players by address, elimination years, powers the master's POSITION removed)."""

from __future__ import annotations

from fractions import Fraction

from sqlalchemy import select

from gamekit import Judge, signon, start_full_game
from judge.core.scoring import ResultType, get_system, load_results, standings
from judge.service.tournament_results import results_document, tournament_results
from judge.service.tournaments import find_tournament
from judge.store.models import Game, Tournament

MASTER = "master@example.org"
M = "SIGNON Mwar1901 mpw"
THREE = ("Austria: A Vie; centers Vie Bud Tri\n"
         "England: F Lon; centers Lon Edi Lvp\n"
         "France: A Par; centers Par Bre Mar\n")


def results(j: Judge, name: str = "cup") -> tuple[list, list[str]]:
    with j.store.transaction() as s:
        done, open_games = tournament_results(s, find_tournament(s, name))
        return done, [g.name for g in open_games]


def test_create_in_a_tournament_creates_it_and_makes_the_creator_director(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    reply = j.mail(MASTER, "CREATE war1901 mpw RULES NO_PRESS TOURNAMENT Cup tpw")
    assert "Game war1901 (Standard with rules NO_PRESS) created in tournament Cup;" in reply.body
    reply = j.mail(MASTER, "CREATE war1902 mpw TOURNAMENT cup tpw")
    assert "created in tournament Cup;" in reply.body
    with j.store.transaction() as s:
        t = s.scalars(select(Tournament)).one()
        assert (t.name, t.director) == ("Cup", MASTER)
        assert sorted(g.name for g in s.scalars(select(Game)) if g.tournament_id == t.id) == [
            "war1901", "war1902"]


def test_only_the_password_adds_games_and_a_refusal_creates_nothing(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE war1901 mpw TOURNAMENT cup tpw")
    reply = j.mail("intruder@example.org", "CREATE war1902 mpw TOURNAMENT cup guess")
    assert "Error: wrong password for tournament cup." in reply.body
    assert "> CREATE war1902 **** TOURNAMENT cup ****" in reply.body  # no password quoted
    # the address gives no authority; the password does
    reply = j.mail("helper@example.org", "CREATE war1904 mpw TOURNAMENT cup tpw")
    assert "created in tournament cup;" in reply.body
    reply = j.mail("intruder@example.org", "CREATE war1903 mpw TOURNAMENT 9bad x")
    assert 'Error: "9bad" cannot be a tournament name' in reply.body
    with j.store.transaction() as s:
        assert sorted(g.name for g in s.scalars(select(Game))) == ["war1901", "war1904"]
        assert [t.name for t in s.scalars(select(Tournament))] == ["cup"]


def test_standings_refusals(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE war1901 mpw TOURNAMENT cup tpw")
    body = j.mail("anyone@example.org", "STANDINGS\nSTANDINGS nope\nSTANDINGS cup SYSTEM foo\n"
                  "STANDINGS cup TIEBREAK years\nSTANDINGS cup FOO bar\n").body
    assert "Error: STANDINGS needs a tournament name" in body
    assert 'Error: no tournament named "nope" on this judge.' in body
    assert "Error: unknown scoring system 'foo'; known: c-diplo, carnage," in body
    assert "Error: years needs its offset X, e.g. years:14." in body
    assert '"FOO" is not understood here: STANDINGS <tournament>' in body


def test_standings_of_a_tournament_with_no_finished_game(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE war1901 mpw TOURNAMENT cup tpw")
    body = j.mail("anyone@example.org", "STANDINGS cup SYSTEM sos TIEBREAK none").body
    assert "Standings: cup\nScoring system: sum-of-squares; tie-breaks: none." in body
    assert "Games scored: none yet.\nStill being played: war1901." in body


def test_a_draw_becomes_a_scored_result_with_elimination_years(judge_in_process: Judge
                                                                ) -> None:
    j = judge_in_process
    assigned = start_full_game(j, "war1901", "TOURNAMENT cup tpw")
    # Italy keeps only Venice, which Austria takes in F1904M: eliminated by play in 1904.
    # Germany, Russia and Turkey are taken off by the master's POSITION.
    reply = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION F1904M\n"
                   "Austria: A Vie, A Tri; centers Vie Bud Tri\n"
                   "England: F Lon; centers Lon Edi Lvp\n"
                   "France: A Par; centers Par Bre Mar\n"
                   "Italy: ; centers Ven\n"
                   "ENDPOSITION\nRESUME\n")
    assert "running again" in reply.body, reply.body
    j.mail(assigned["AUSTRIA"], f"{signon(j, 'AUSTRIA')}\nA Tri-Ven")
    for _ in range(2):  # F1904M, then W1904A (unordered builds are waived)
        assert "has been processed;" in j.mail(MASTER, f"{M}\nPROCESS").body
    done, open_games = results(j)
    assert done == [] and open_games == ["war1901"]
    for power in ("AUSTRIA", "ENGLAND", "FRANCE"):
        reply = j.mail(assigned[power], f"{signon(j, power)}\nSET DRAW")
    assert "The vote has passed" in reply.body, reply.body
    done, open_games = results(j)
    assert open_games == [] and len(done) == 1
    r = done[0]
    assert r.type is ResultType.DRAW and r.game == "war1901" and r.round == 1
    assert (r.year, r.members) == (1905, frozenset({"AUSTRIA", "ENGLAND", "FRANCE"}))
    assert r.players == frozenset(assigned.values())
    for p in r.powers:
        assert p.player == assigned[p.power]
    assert r.power("AUSTRIA").centers == 4 and r.power("AUSTRIA").survived
    assert r.power("ITALY").eliminated == 1904
    # POSITION removed them before F1904M, the first phase played without them
    for power in ("GERMANY", "RUSSIA", "TURKEY"):
        assert (r.power(power).centers, r.power(power).eliminated) == (0, 1904)
    # The document round-trips through the JSON loader and scores the same.
    again = load_results(results_document(done))
    dias = get_system("dias")
    assert standings(again, dias) == standings(done, dias)
    totals = {s.player: s.total for s in standings(done, dias)}
    assert totals[assigned["AUSTRIA"]] == Fraction(1, 3) and totals[assigned["ITALY"]] == 0


def test_a_power_removed_with_no_phase_played_after_goes_out_in_the_result_year(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j, "war1901", "TOURNAMENT cup tpw")
    reply = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION S1907M\n{THREE}ENDPOSITION\nRESUME\n")
    assert "running again" in reply.body, reply.body
    for power in ("AUSTRIA", "ENGLAND", "FRANCE"):
        j.mail(assigned[power], f"{signon(j, power)}\nSET DRAW")
    (r,), _ = results(j)
    assert r.year == 1907 and r.power("ITALY").eliminated == 1907


def test_a_vacated_power_is_credited_to_its_last_player(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j, "war1901", "TOURNAMENT cup tpw")
    reply = j.mail(MASTER, f"{M}\nEJECT Italy\nTERMINATE")
    assert "terminated" in reply.body, reply.body
    (r,), _ = results(j)
    assert r.type is ResultType.ENDED and r.power("ITALY").player == assigned["ITALY"]
