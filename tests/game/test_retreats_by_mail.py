"""Retreats by mail: a game goes on after an army is dislodged next to a province with coasts,
and no retreat phase opens for a unit that has nowhere to go."""

from __future__ import annotations

from gamekit import Judge, signon, start_full_game
from sqlalchemy import select

from judge.store.models import Game, InboundMessage

G = "war1901"


def master(j: Judge, *lines: str) -> str:
    return j.mail("master@example.org", "\n".join([f"SIGNON M{G} mpw", *lines])).body


def setup_board(j: Judge, *rows: str) -> dict[str, str]:
    """Start a game and set its board; returns power → player address."""
    players = start_full_game(j, G)
    body = master(j, "PAUSE", "POSITION S1901M", *rows, "ENDPOSITION", "RESUME")
    assert "Error" not in body, body
    return players


def phase_of(j: Judge) -> str:
    with j.store.transaction() as s:
        return s.scalars(select(Game.phase).where(Game.name_key == G)).one()


def nothing_set_aside(j: Judge) -> None:
    with j.store.transaction() as s:
        states = s.scalars(select(InboundMessage.status)).all()
    assert set(states) <= {"done", "ignored"}, states


def test_an_army_retreats_to_bulgaria_and_the_game_goes_on(judge_in_process: Judge) -> None:
    j = judge_in_process
    at = setup_board(j, "Austria: A Gal, A Bud; centers Vie Bud Tri",
                "Russia: A Rum, A Mos; centers Mos Rum", "Turkey: A Con; centers Con Ank Smy")
    j.mail(at["AUSTRIA"], f"{signon(j, 'AUSTRIA')}\nA Gal-Rum\nA Bud S A Gal-Rum")
    j.mail(at["RUSSIA"], f"{signon(j, 'RUSSIA')}\nA Rum H\nA Mos H")
    reply = j.mail(at["TURKEY"], f"{signon(j, 'TURKEY')}\nA Con H")
    results = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert results, [m.subject for m in j.last_broadcasts]
    assert "Bulgaria" in results[0].body and phase_of(j) == "S1901R"
    # the stored board loads again: LIST, the retreat order and processing all work
    assert "S1901R" in j.mail("someone@example.org", f"LIST {G}").body
    reply = j.mail(at["RUSSIA"], f"{signon(j, 'RUSSIA')}\nA Rum-Bul")
    assert "Error" not in reply.body, reply.body
    assert phase_of(j) == "F1901M"
    listing = j.mail("someone@example.org", f"LIST {G}").body
    assert "F1901M" in listing
    nothing_set_aside(j)


def test_a_unit_with_nowhere_to_go_gets_no_retreat_phase(judge_in_process: Judge) -> None:
    j = judge_in_process
    at = setup_board(j, "France: A Bur, A Ruh; centers Par Bre Mar",
                "Germany: A Mun; centers Mun Ber Kie",
                "Austria: A Boh, A Tyr; centers Vie Bud Tri", "Russia: A Sil; centers Mos War",
                "Italy: A Kie, A Ber; centers Rom Ven Nap")
    for power, orders in (("FRANCE", "A Bur-Mun\nA Ruh S A Bur-Mun"), ("GERMANY", "A Mun H"),
                          ("AUSTRIA", "A Boh H\nA Tyr H"), ("RUSSIA", "A Sil H"),
                          ("ITALY", "A Kie H\nA Ber H")):
        j.mail(at[power], f"{signon(j, power)}\n{orders}")
    results = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert results and "destroyed" in results[0].body
    # straight on to the Fall: nobody had a choice in a retreat phase
    assert phase_of(j) == "F1901M"
    nothing_set_aside(j)
