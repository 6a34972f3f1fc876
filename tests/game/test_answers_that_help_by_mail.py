"""Answers that help a newcomer, by mail through the real pipeline: a repeated order is
accepted as unchanged, a SIGNON without the power's initial names the game it found, orders
sent before any SIGNON are told to sign on, a misspelt province gets the nearest names, ``into``
is a move, and the closings and signatures of ordinary mail end the reading instead of being
answered as unknown commands."""

from __future__ import annotations

from datetime import timedelta

from gamekit import Judge, force_due, signon, start_full_game
from judge.basics.utc import utcnow

MASTER = "master@example.org"
WINTER = ("Austria: A Vie; centers Vie Bud Tri\n"
          "England: F Lon; centers Lon Edi Lvp\n"
          "France: A Par, A Bre, A Mar, A Pic; centers Par Bre\n")


def orders(j: Judge, players: dict[str, str], power: str, lines: str) -> tuple[str, str]:
    reply = j.mail(players[power], f"{signon(j, power)}\n{lines}")
    return reply.subject, reply.body


# --------------------------------------------------------------------------- repeated orders

def test_a_repeated_order_is_accepted_as_unchanged(judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j)
    orders(j, players, "FRANCE", "A Par-Bur\nF Bre-Mao")
    subject, body = orders(j, players, "FRANCE", "A Par-Bur\nA Par - Burgundy\nF Bre-Eng")
    assert "> A Par-Bur\nAccepted: A PAR - BUR (unchanged: your order already)\n" in body
    assert "> A Par - Burgundy\nAccepted: A PAR - BUR (unchanged: your order already)\n" in body
    assert "> F Bre-Eng\nAccepted: F BRE - ENG (replaces F BRE - MAO)\n" in body
    assert not subject.startswith("[Error Flag]")


def test_a_repeated_waive_or_build_is_no_error_once_the_builds_are_given(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j)
    reply = j.mail(MASTER, f"SIGNON Mwar1901 mpw\nPAUSE\nPOSITION W1905A\n{WINTER}ENDPOSITION\n"
                   "RESUME\n")
    assert "war1901 is running again, at W1905A." in reply.body, reply.body
    orders(j, players, "AUSTRIA", "Build A Bud\nWaive")
    subject, body = orders(j, players, "AUSTRIA", "Waive\nBuild A Bud")
    assert "> Waive\nAccepted: WAIVE (unchanged: your order already)\n" in body
    assert "> Build A Bud\nAccepted: A BUD B (unchanged: your order already)\n" in body
    assert "  A BUD B\n  WAIVE\nBuilds complete: 2 of 2 ordered." in body
    assert not subject.startswith("[Error Flag]")
    # a build that is not one of them is still one too many
    subject, body = orders(j, players, "AUSTRIA", "Build A Tri")
    assert "Error: Austria has only 2 build(s); CLEAR to start over." in body


def test_a_repeated_order_after_the_deadline_under_civil_disorder_is_no_change(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j, extra="RULES CIVIL_DISORDER GRACE 2h")
    orders(j, players, "FRANCE", "A Par-Bur")
    force_due(j, "war1901", utcnow() - timedelta(minutes=5))
    subject, body = orders(j, players, "FRANCE", "A Par-Bur")
    assert "> A Par-Bur\nAccepted: A PAR - BUR (unchanged: your order already)\n" in body
    assert not subject.startswith("[Error Flag]")
    subject, body = orders(j, players, "FRANCE", "A Par-Pic")
    assert "under CIVIL_DISORDER an order given before it cannot be changed" in body


# --------------------------------------------------------------------------- signing on

def test_a_signon_without_the_power_initial_says_so_and_names_the_game(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j, "newb1")
    reply = j.mail("player2@example.org", "SIGNON newb1 pw2\nA Par-Bur")
    assert ('> SIGNON newb1 ****\nError: the power initial is missing: "newb1" is the name of a'
            " game on this judge, and SIGNON takes your power's initial (A E F G I R T),"
            " M (master) or O (observer) written before it: SIGNON Fnewb1 <password> for"
            " France. The rest of this mail was not executed.") in reply.body
    assert 'no game named "ewb1"' not in reply.body
    # the example of docs/commands.md, a game still forming
    assert "created" in j.mail("other@example.org", "CREATE war1901 mpw").body
    reply = j.mail("player2@example.org", "SIGNON war1901 secret")
    assert 'Error: the power initial is missing: "war1901" is the name of a game' in reply.body
    # a game truly unknown is still named as written
    reply = j.mail("player2@example.org", "SIGNON Fnosuch pw2")
    assert 'Error: no game named "nosuch" on this judge.' in reply.body


def test_orders_before_any_signon_are_told_to_sign_on_first(judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j)
    told = ("Error: this looks like an order: sign on first with SIGNON <initial><game>"
            " <password>\n(SIGNON Fwar1901 secret for France in war1901) on a line above your"
            " orders.\n")
    for mail in ("A Par-Bur\nF Bre-Mao", "SIGNOM Fwar1901 pw2\nA Par-Bur\nF Bre-Mao"):
        body = j.mail(players["FRANCE"], mail).body
        assert f"> A Par-Bur\n{told}" in body and f"> F Bre-Mao\n{told}" in body
        assert 'unknown command "A"' not in body and 'unknown command "F"' not in body
    # a line that is no order is still an unknown command, with the nearest one
    body = j.mail(players["FRANCE"], "LSIT").body
    assert 'Error: unknown command "LSIT".\nDid you mean LIST?' in body


# --------------------------------------------------------------------------- provinces

def test_a_misspelt_province_gets_the_nearest_names(judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j)
    subject, body = orders(j, players, "AUSTRIA", "A Vie-Bohmia\nA Bud-Galicai\nA Gal-Ukriane")
    assert "> A Vie-Bohmia\nError: unknown province 'bohmia'. Did you mean Bohemia or Gulf of" \
           " Bothnia?\n" in body
    assert "> A Bud-Galicai\nError: unknown province 'galicai'. Did you mean Galicia?\n" in body
    assert "> A Gal-Ukriane\nError: unknown province 'ukriane'. Did you mean Ukraine?\n" in body
    # nothing near: the plain refusal
    subject, body = orders(j, players, "AUSTRIA", "A Vie-Xyzzy")
    assert "> A Vie-Xyzzy\nError: unknown province 'xyzzy'.\n" in body


def test_into_is_a_move(judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j)
    subject, body = orders(j, players, "ITALY", "Ven into Tyrolia\nArmy Rome into Apulia\n"
                                                "F Nap moves into Ionian Sea")
    assert "> Ven into Tyrolia\nAccepted: A VEN - TYR\n" in body
    assert "> Army Rome into Apulia\nAccepted: A ROM - APU\n" in body
    assert "> F Nap moves into Ionian Sea\nAccepted: F NAP - ION\n" in body


# --------------------------------------------------------------------------- sign-offs

def test_closings_and_signatures_end_the_reading(judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j)
    for ending in ("Thanks!", "Regards, Frank", "Sent from my iPhone", "Frank", "Désiré",
                   "Cheers,\nFrank\nParis, France", "Viele Grüße\nFrank",
                   "Merci !\n\nEnvoyé de mon iPhone", "Thanks!\nDésiré"):
        subject, body = orders(j, players, "FRANCE", f"A Par-Bur\n\n{ending}")
        assert not subject.startswith("[Error Flag]"), (ending, body)
        assert "> A Par-Bur\nAccepted: A PAR - BUR" in body and "2 lines read, 0 errors." in body
    # a closing above a SIGNON loses nothing: reading goes on
    body = j.mail(players["FRANCE"], f"Thanks!\n{signon(j, 'FRANCE')}\nA Par-Pic").body
    assert "> A Par-Pic\nAccepted: A PAR - PIC" in body and "2 lines read, 0 errors." in body


def test_the_last_line_is_read_when_it_is_an_order_or_a_command(judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j)
    subject, body = orders(j, players, "FRANCE", "A Par-Bur\nMar-Pie")
    assert "> Mar-Pie\nAccepted: A MAR - PIE" in body
    subject, body = orders(j, players, "FRANCE", "A Par-Bur\nBrest")
    assert "> Brest\nAccepted: F BRE H" in body
    subject, body = orders(j, players, "FRANCE", "A Par-Bur\nLsit")
    assert '> Lsit\nError: unknown command "Lsit".\nDid you mean LIST?' in body
    # a name in the middle is no order either: it is answered as an unknown command
    subject, body = orders(j, players, "FRANCE", "Désiré\nA Par-Bur")
    assert '> Désiré\nError: unknown command "Désiré".' in body
