"""Formal Diplomacy details by mail: claims read the same in the per-unit lines and in the
Formal section; the results of the last turn announce no builds (nor those of a solo victory
in a standard game); a tie at the top is a shared victory everywhere, never a draw; the master
repairs wars, spheres and points directly, and everybody is told."""

from __future__ import annotations

import json

from sqlalchemy import select

from gamekit import Judge, signon, start_full_game
from judge.store.models import Game

MASTER = "master@example.org"
G = "war1901"
M = f"SIGNON M{G} mpw"


def send(j: Judge, assigned: dict[str, str], power: str, *lines: str) -> str:
    return j.mail(assigned[power], "\n".join([signon(j, power), *lines])).body


def master(j: Judge, *lines: str) -> str:
    return j.mail(MASTER, "\n".join([M, *lines])).body


def results(j: Judge) -> str:
    (mail,) = [m for m in j.last_broadcasts if m.subject.endswith(" Results")]
    return mail.body


def formal(j: Judge) -> dict:
    with j.store.transaction() as s:
        return json.loads(s.scalars(select(Game)).one().variant_state)["formal"]


def test_claims_are_written_in_words_alike_in_both_places(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = start_full_game(j, G, "VARIANT formal")
    send(j, a, "FRANCE", "A Par SOI Bur", "A Mar S A Par SOI Bur")
    send(j, a, "GERMANY", "A Mun SOI Bur")
    master(j, "PROCESS")
    body = results(j)
    lines = body.splitlines()
    for line in ("France: Army Paris claims Burgundy (strength 2): established.",
                 "France: Army Marseilles supports the claim of Army Paris to Burgundy: given.",
                 "Germany: Army Munich claims Burgundy (strength 1): beaten."):
        assert line in lines, (line, body)  # the per-unit line
    assert "  Germany: Army Munich claims Burgundy (strength 1): beaten." in lines
    assert "  France: Army Paris claims Burgundy (strength 2): established." in lines
    # no raw order text and no standard mark for a claim anywhere
    assert "SOI" not in body and "(*bounce*)" not in body


def test_the_last_turn_announces_no_builds(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = start_full_game(j, G, "VARIANT formal TURNS 1")
    send(j, a, "FRANCE", "F Bre-Mao")
    master(j, "PROCESS")
    send(j, a, "FRANCE", "F Mao-Por")
    master(j, "PROCESS")
    body = results(j)
    assert "The game is over: France wins." in body
    assert "Ownership of supply centers:" in body
    assert "Builds" not in body and "Removes" not in body and "Supply centers," not in body


def test_a_solo_victory_announces_no_builds(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = start_full_game(j, G)
    master(j, "PAUSE", "POSITION F1903M",
           "France: A Tyr, A Par; centers Par Bre Mar Spa Por Bel Hol Mun Ber Kie Den Lon "
           "Edi Lvp Ven Rom Nap",
           "Austria: ; centers Vie", "Russia: A Mos; centers Mos War Sev Stp",
           "ENDPOSITION", "RESUME")
    send(j, a, "FRANCE", "A Tyr-Vie", "A Par H")
    master(j, "PROCESS")
    body = results(j)
    assert "The game is over: France has won." in body
    assert "Builds" not in body and "Supply centers," not in body


def test_a_tie_at_the_top_is_a_shared_victory_in_every_mail(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = start_full_game(j, G, "VARIANT formal TURNS 1")
    send(j, a, "FRANCE", "F Bre-Mao")
    send(j, a, "GERMANY", "F Kie-Hol")
    master(j, "PROCESS")
    send(j, a, "FRANCE", "F Mao-Por")
    send(j, a, "GERMANY", "A Mun-Ruh")
    master(j, "PROCESS")
    (ended,) = [m for m in j.last_broadcasts if "Results" not in m.subject]
    assert ended.subject == "JUDGE:war1901 - F1901M Victory: FG"
    assert "share the victory" in ended.body and "draw" not in ended.body.lower()
    assert "The game is over: France and Germany share the victory." in results(j)
    assert "Summary of war1901 (finished, won by France and Germany)" in \
        j.mail("fan@example.org", f"SUMMARY {G}").body
    assert "Won on victory points by France and Germany." in \
        j.mail("fan@example.org", f"LIST {G}").body
    formal_help = " ".join(j.mail("fan@example.org", "GET FORMAL").body.split())
    assert '"Victory: FG" for a victory shared by France and Germany: a shared victory, never ' \
           'a draw' in formal_help


def test_the_master_repairs_wars_spheres_and_points(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = start_full_game(j, G, "VARIANT formal")
    j.new()
    reply = master(j, "SET WAR F G")
    assert "France and Germany are now at war. Everybody in the game has been told." in reply
    (told,) = j.last_broadcasts
    assert told.subject == "JUDGE:war1901 - S1901M War set by the master"
    assert set(told.to) == {MASTER, *a.values()}
    assert "The master of war1901 has put France and Germany at war with each other." in \
        told.body
    assert "  France     .   .   -   X   .   .   .\n" in told.body
    reply = master(j, "SET SPHERE French Bel", "SET POINTS F 12", "SET WAR France Germany")
    assert "Belgium is now a sphere of influence of France." in reply
    assert "France now has 12 victory points." in reply
    assert "Error: France and Germany are already at war; nothing changed." in reply
    doc = formal(j)
    assert doc["wars"] == [["FRANCE", "GERMANY"]] and doc["spheres"] == {"BEL": "FRANCE"}
    assert doc["vp"]["FRANCE"] == 12 and doc["vp"]["GERMANY"] == 0  # repairs cost nothing
    assert "  Belgium (BEL): France" in j.mail("fan@example.org", f"LIST {G}").body
    reply = master(j, "SET PEACE G F", "SET NOSPHERE Belgium", "SET POINTS F -1")
    assert "0 errors" in reply, reply
    doc = formal(j)
    assert doc["wars"] == [] and doc["spheres"] == {} and doc["vp"]["FRANCE"] == -1
    # only the master, only in Formal games, and the words are checked
    assert "Error: SET WAR is not for France" in send(j, a, "FRANCE", "SET WAR F G")
    reply = master(j, "SET WAR F", "SET SPHERE F Xyz", "SET POINTS F many", "SET WAR F F")
    assert "4 errors" in reply, reply
    j.mail(MASTER, "CREATE plain mpw")
    assert "plain is a Standard game: wars, spheres and points belong to Formal" in \
        j.mail(MASTER, "SIGNON Mplain mpw\nSET WAR F G").body


def test_position_help_says_what_survives_and_how_to_repair_it(judge_in_process: Judge
                                                                ) -> None:
    j = judge_in_process
    commands = " ".join(j.mail("fan@example.org", "GET COMMANDS").body.split())
    assert ("In Formal Diplomacy games POSITION leaves the wars, spheres and victory points as "
            "they were; repair them with:") in commands
    for words in ("SET WAR <power> <power>", "SET PEACE <power> <power>",
                  "SET SPHERE <power> <province>", "SET NOSPHERE <province>",
                  "SET POINTS <power> <points>"):
        assert words in commands, words
    formal_help = " ".join(j.mail("fan@example.org", "GET FORMAL").body.split())
    assert "POSITION (GET COMMANDS) changes only the board: the wars, the spheres of influence "\
           "and the victory points stay as they were" in formal_help
