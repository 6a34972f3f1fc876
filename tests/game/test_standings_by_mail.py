"""Tournament standings by mail: each split of tied players is shown once, with the value that
decided it and the group it was computed in (Steinke's tie-breaks split a group, then break
the parts again from the start of the chain); powers that no player ever held are nobody's
line in the table."""

from __future__ import annotations

from gamekit import Judge

DIRECTOR = "director@example.org"
A, B, C = "a@example.org", "b@example.org", "c@example.org"


def game(j: Judge, name: str, players: dict[str, str], board: str, phase: str) -> None:
    """A tournament game whose ``players`` (power → address) join; the master sets up
    ``board`` at ``phase`` (powers left out are gone; the others are vacant)."""
    reply = j.mail(DIRECTOR, f"CREATE {name} mpw RULES POWER_CHOICE START_MASTER "
                             f"TOURNAMENT cup cuppw").body
    assert "created" in reply, reply
    for power, address in players.items():
        assert "You have joined" in j.mail(address, f"JOIN {name} pw {power}").body
    reply = j.mail(DIRECTOR, f"SIGNON M{name} mpw\nSTART\nPAUSE\nPOSITION {phase}\n{board}\n"
                             "ENDPOSITION\nRESUME").body
    assert f"{name} is running again, at {phase}." in reply, reply


def vote(j: Judge, name: str, address: str, letter: str, line: str) -> str:
    return j.mail(address, f"SIGNON {letter}{name} pw\n{line}").body


def terminate(j: Judge, name: str) -> None:
    assert "is terminated" in j.mail(DIRECTOR, f"SIGNON M{name} mpw\nTERMINATE").body


def test_each_split_is_shown_once_with_its_group_and_vacant_powers_are_left_out(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    # a, b and c all total 1 (draw-size): a beat b (g1: b concedes in 1906); b and c drew
    # (g2, 1907); a lost in 1904 (g3); b and c each shared a game that ended with one vacant
    # power alive, b in 1910 (g4), c in 1908 (g5).
    game(j, "g1", {"FRANCE": A, "GERMANY": B},
         "France: A Par; centers Par\nGermany: A Ber; centers Ber", "S1906M")
    assert "The vote has passed" in vote(j, "g1", B, "G", "SET CONCEDE F")
    game(j, "g2", {"FRANCE": B, "GERMANY": C},
         "France: A Par; centers Par\nGermany: A Ber; centers Ber", "S1907M")
    vote(j, "g2", B, "F", "SET DRAW")
    assert "The vote has passed" in vote(j, "g2", C, "G", "SET DRAW")
    game(j, "g3", {"FRANCE": A},
         "England: F Lon; centers Lon\nItaly: A Rom; centers Rom", "S1904M")
    terminate(j, "g3")
    game(j, "g4", {"FRANCE": B},
         "France: A Par; centers Par\nEngland: F Lon; centers Lon", "S1910M")
    terminate(j, "g4")
    game(j, "g5", {"FRANCE": C},
         "France: A Par; centers Par\nEngland: F Lon; centers Lon", "S1908M")
    terminate(j, "g5")

    table = j.mail(DIRECTOR, "STANDINGS cup").body  # the director sees every address
    assert "Games scored: g1, g2, g3, g4, g5." in table, table
    # head-to-head among all three puts a first; among b and c it is level again, and the
    # common denominator puts c's sooner draw ahead of b's
    assert ("1         1.000  a@example.org\n"
            "                 split by: head-to-head 1.000 among a@example.org,\n"
            "                             b@example.org, c@example.org\n"
            "2         1.000  c@example.org\n"
            "                 split by: head-to-head 0.500 among a@example.org,\n"
            "                             b@example.org, c@example.org\n"
            "                           common-denominator 0.000 among b@example.org,\n"
            "                             c@example.org\n"
            "3         1.000  b@example.org\n"
            "                 split by: head-to-head 0.500 among a@example.org,\n"
            "                             b@example.org, c@example.org\n"
            "                           common-denominator -0.700 among b@example.org,\n"
            "                             c@example.org\n") in table, table
    # each tie-break once per split: no line names the same breaker twice
    assert table.count("head-to-head 0.500") == 2
    # the vacant powers (and those POSITION removed) are no player's line
    assert "(no player)" not in table and "AUSTRIA" not in table
    assert "the group it was computed in" in table
