"""What the game's own mails tell a player: the "You are" mail names the power's units, home
centres and deadline; the draw and victory mails give every power's final centre count;
SUMMARY lists each power once, in the variant's order, whoever joined first."""

from __future__ import annotations

from datetime import datetime

from gamekit import Judge, POWERS, player, signon, start_full_game
from test_votes_by_mail import M, MASTER, three_survivors

AUSTRIA_START = ("Your units:\n  Army Budapest\n  Fleet Trieste\n  Army Vienna\n"
                 "Your home centres: Budapest, Trieste, Vienna\n")


def test_the_you_are_mail_names_units_home_centres_and_deadline(judge_in_process: Judge
                                                                ) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    (mail,) = [m for m in j.last_broadcasts if m.subject == "JUDGE:war1901 - S1901M You are"
               " Austria"]
    assert mail.to == [assigned["AUSTRIA"]]
    assert AUSTRIA_START in mail.body
    assert "Centres you own" not in mail.body  # the same as the home centres
    # the deadline as the header gives it (Thu Nov 26 2026 03:15:00 +0000), written out
    header = mail.body.split(":: Deadline: S1901M ")[1].split("\n")[0]
    when = datetime.strptime(header, "%a %b %d %Y %H:%M:%S %z")
    assert f"\nDeadline for S1901M: {when:%A} {when.day} {when:%B %Y, %H:%M} UTC\n" in mail.body
    (russia,) = [m for m in j.last_broadcasts if m.subject.endswith("You are Russia")]
    assert ("Your units:\n  Army Moscow\n  Fleet Sevastopol\n  Fleet St Petersburg (south coast)\n"
            "  Army Warsaw\nYour home centres: Moscow, Sevastopol, St Petersburg, Warsaw\n"
            ) in russia.body


def test_a_replacement_hears_of_the_units_and_centres_it_takes_over(judge_in_process: Judge
                                                                     ) -> None:
    j = judge_in_process
    three_survivors(j)
    j.mail(MASTER, f"{M}\nREPLACE Austria heir@example.org heirpw")
    (mail,) = [m for m in j.last_broadcasts if m.to == ["heir@example.org"]]
    assert mail.subject == "JUDGE:war1901 - S1905M You are Austria"
    assert ("Your units:\n  Army Vienna\nYour home centres: Budapest, Trieste, Vienna\n"
            "Deadline for S1905M: ") in mail.body
    assert "Centres you own" not in mail.body
    j.mail(MASTER, f"{M}\nREPLACE Germany heir2@example.org heirpw")
    (mail,) = [m for m in j.last_broadcasts if m.to == ["heir2@example.org"]]
    assert ("Your units: none\nYour home centres: Berlin, Kiel, Munich\n"
            "Centres you own: none\n") in mail.body


def test_the_draw_mail_gives_the_final_centre_counts(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j)
    for power in ("AUSTRIA", "ENGLAND", "FRANCE"):
        j.mail(a[power], f"{signon(j, power)}\nSET DRAW")
    (mail,) = {m.body for m in j.last_broadcasts if "Draw Declared" in m.subject}
    assert ("Supply centres at the end:\n  Austria     3\n  England     3\n  France      3\n"
            "  Germany     0\n  Italy       0\n  Russia      0\n  Turkey      0\n") in mail


SOLO = ("Austria: A Vie, A Bud, F Tri; centers Vie Bud Tri Ser Gre Rum Bul Con Ank Smy Ven Rom "
        "Nap Mun Ber Kie War Mos\n"
        "Turkey: A Sev; centers Sev\n")


def test_the_victory_mail_gives_the_final_centre_counts(judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j)
    reply = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION F1905M\n{SOLO}ENDPOSITION\nRESUME\nPROCESS")
    assert "has been processed;" in reply.body, reply.body
    (mail,) = {m.body for m in j.last_broadcasts if "Victory" in m.subject}
    assert "Austria has won a solo victory" in mail
    assert ("Supply centres at the end:\n  Austria    18\n  England     0\n  France      0\n"
            "  Germany     0\n  Italy       0\n  Russia      0\n  Turkey      1\n") in mail


def test_summary_lists_each_power_once_in_the_variants_order(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE war1901 mpw RULES POWER_CHOICE")
    for i, power in enumerate(reversed(POWERS)):  # Turkey joins first, Austria last
        j.mail(player(i), f"JOIN war1901 pw{i} {power}")
    j.passwords = {power: f"pw{i}" for i, power in enumerate(reversed(POWERS))}
    for line in ("REPLACE Austria heir@example.org heirpw", "DUMMY Austria",
                 "REPLACE Austria heir2@example.org heirpw", "DUMMY Italy"):
        assert "Error" not in j.mail(MASTER, f"{M}\n{line}").body
    j.mail(player(5), f"{signon(j, 'ENGLAND')}\nRESIGN")
    body = j.mail("fan@example.org", "SUMMARY war1901").body
    assert ("Players:\n"
            "  Austria    active (3 players before)\n"
            "  England    resigned\n"
            "  France     active\n"
            "  Germany    active\n"
            "  Italy      dummy (1 player before)\n"
            "  Russia     active\n"
            "  Turkey     active\n\n") in body
