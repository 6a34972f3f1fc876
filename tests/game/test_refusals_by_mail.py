"""Refusals as players and the keeper read them, word for word, whichever way they reach them:
a refused command, a refused order line, a SIGNON that stops the mail (raised, or returned so
that the failure counted is kept), a wrong tournament password on CREATE, a vote refused with
the core's own reason, and the CLI's one line.  The words come from templates/refusals.txt
(tests/test_refusals.py checks the template against the source)."""

from __future__ import annotations

import os

from conftest import run_cli
from gamekit import Judge, signon, start_full_game

MASTER = "master@example.org"


def answer_to(body: str, line: str) -> str:
    """The line of the reply that answers ``line`` of the mail."""
    lines = body.splitlines()
    return lines[lines.index(f"> {line}") + 1]


def test_refused_commands_and_orders_read_as_before(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    reply = j.mail(MASTER, "SIGNON Mwar1901 mpw\nSET ADDRESSES PRIVATE\nROLLBACK\nROLLFORWARD\n")
    assert answer_to(reply.body, "SET ADDRESSES PRIVATE") == \
        "Error: the addresses of war1901 are already private; nothing changed."
    assert answer_to(reply.body, "ROLLBACK") == \
        "Error: war1901 has no processed phase to roll back."
    assert answer_to(reply.body, "ROLLFORWARD") == \
        "Error: war1901 has no rolled-back phase to redo."
    orders = ["A Mun-Ruh", "A Bur-Par", "F Bre-Xyz", "A Par B", "A Par-Bur"]
    reply = j.mail(assigned["FRANCE"], "\n".join([signon(j, "FRANCE"), *orders]))
    assert [answer_to(reply.body, o) for o in orders] == [
        "Error: the Army Munich is Germany's, not France's.",
        "Error: there is no unit in Burgundy.",
        "Error: unknown province 'xyz'.",  # the core's words
        "Error: that is an adjustment order, but this is a movement phase.",
        "Accepted: A PAR - BUR",
    ]
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nSET CONCEDE Xyz\n")
    assert answer_to(reply.body, "SET CONCEDE Xyz") == (  # the core's words, then the judge's
        'Error: "Xyz" is not a power: name a power by its initial (A E F G I R T), its name'
        " (e.g. Austria) or its adjective; your previous vote stands.")


def test_refused_sign_ons_stop_the_mail_with_the_same_words(judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j)
    reply = j.mail("someone@example.org", "SIGNON Fnosuch pw\nLIST\n")
    assert answer_to(reply.body, "SIGNON Fnosuch ****") == (
        'Error: no game named "nosuch" on this judge. The rest of this mail was not executed.')
    reply = j.mail("someone@example.org", "SIGNON Fwar1901 nope\nLIST\n")
    assert answer_to(reply.body, "SIGNON Fwar1901 ****") == (
        "Error: wrong password for Fwar1901. The rest of this mail was not executed.")


def test_tournament_refusals_by_mail_and_by_cli(judge_in_process: Judge) -> None:
    j = judge_in_process
    reply = j.mail(MASTER, "CREATE cup1 mpw TOURNAMENT cup tpw")
    assert "created in tournament cup" in reply.body, reply.body
    reply = j.mail(MASTER, "CREATE cup2 mpw TOURNAMENT cup guess")
    assert answer_to(reply.body, "CREATE cup2 **** TOURNAMENT cup ****") == \
        "Error: wrong password for tournament cup."
    env = {**os.environ, "JUDGE_DATABASE_URL": j.store.url}
    refused = run_cli(["tournament", "create", "cup", "--password", "x"], env=env)
    assert (refused.returncode, refused.stderr) == (
        2, 'judge: there is already a tournament named "cup".\n')
