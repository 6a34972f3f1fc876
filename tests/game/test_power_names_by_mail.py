"""Every command that names a power reads it the same way, by mail: the initial (G), the name
(Germany) or the adjective (German), in any case, and where one power is asked for an
unambiguous beginning (Germ); lists run initials together.  The same word is refused the same
way everywhere."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from gamekit import Judge, signon, start_full_game
from judge.store.models import DrawVote, Seat

MASTER = "master@example.org"
G = "war1901"
M = f"SIGNON M{G} mpw"


def send(j: Judge, assigned: dict[str, str], power: str, *lines: str) -> str:
    return j.mail(assigned[power], "\n".join([signon(j, power), *lines])).body


def stored(j: Judge, power: str) -> dict[str, str]:
    with j.store.transaction() as s:
        seat = s.scalars(select(Seat).where(Seat.power == power, Seat.status == "active")).one()
        return json.loads(seat.orders)


@pytest.mark.parametrize("word", ["G", "g", "Germany", "GERMAN", "german", "Germ"])
def test_dwo_takes_every_spelling_of_a_power(judge_in_process: Judge, word: str) -> None:
    j = judge_in_process
    a = start_full_game(j, G, "VARIANT formal")
    reply = send(j, a, "FRANCE", f"DWO {word}")
    assert "Accepted: DWO GERMANY" in reply, reply
    assert stored(j, "FRANCE") == {"DWO:GERMANY": "DWO GERMANY"}


def test_the_same_spellings_in_votes_press_and_the_masters_commands(judge_in_process: Judge
                                                                     ) -> None:
    j = judge_in_process
    a = start_full_game(j, G)
    # a concession by adjective and by beginning, a NoDIAS draw list by adjectives
    assert "France concedes the game to Germany." in send(j, a, "FRANCE", "SET CONCEDE german")
    assert "Austria concedes the game to Germany." in send(j, a, "AUSTRIA", "SET CONCEDE Germ")
    j.mail(MASTER, f"{M}\nSET NODIAS")
    reply = send(j, a, "ENGLAND", "SET DRAW English, French German")
    assert "England votes SET DRAW England, France, Germany" in reply, reply
    with j.store.transaction() as s:
        assert {v.power: v.value for v in s.scalars(select(DrawVote))} == {
            "ENGLAND": "ENGLAND FRANCE GERMANY"}
    # press by initial and by adjective
    reply = send(j, a, "FRANCE", "PRESS TO g", "hello", "ENDPRESS",
                 "PRESS TO English", "hi", "ENDPRESS")
    assert "Press of 1 line sent to Germany." in reply
    assert "Press of 1 line sent to England." in reply
    # the master: BECOME and DUMMY by initial, REPLACE by adjective, EJECT by beginning
    reply = j.mail(MASTER, f"{M}\nBECOME t\nA Con-Bul").body
    assert "You now act as Turkey" in reply and "Accepted: A CON - BUL" in reply
    reply = j.mail(MASTER, f"{M}\nDUMMY i").body
    assert "Italy is now a dummy" in reply
    reply = j.mail(MASTER, f"{M}\nREPLACE Russian new@example.org npw").body
    assert "Russia is now played by new@example.org" in reply
    reply = j.mail(MASTER, f"{M}\nEJECT Aus").body
    assert "Ejected AUSTRIA" in reply
    # the board: POSITION by initial and adjective
    reply = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION S1905M\nF: A Par; centers Par Bre Mar\n"
                           "German: A Mun; centers Mun Ber Kie\nENDPOSITION").body
    assert "The board of war1901 is set at S1905M." in reply, reply


def test_a_word_that_names_no_power_or_two_is_refused_everywhere_alike(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = start_full_game(j, G)
    reply = j.mail(MASTER, f"{M}\nDUMMY Narnia\nBECOME X\nEJECT Nar").body
    assert reply.count('"Narnia" is not a power: name a power by its initial '
                       "(A E F G I R T), its name (e.g. Austria) or its adjective") == 1
    assert '"X" is not a power: name a power by its initial' in reply
    assert '"Nar" is not a power' in reply
    reply = send(j, a, "FRANCE", "SET CONCEDE Narnia")
    assert '"Narnia" is not a power: name a power by its initial' in reply
    # two letters are not one power's beginning (and Ru… could be only Russia)
    reply = send(j, a, "FRANCE", "SET CONCEDE AE")
    assert '"AE" is not a power' in reply
