"""The reply says what the judge understood, and why it refused: an army move between
provinces that are not neighbours is "not adjacent" unless a convoy could carry it; the
abbreviations the help promises to refuse are refused, the one it promises to read is read;
the echo of an order shows the coast the judge filled in; the winter summary counts builds
and removals, and says nothing is missing once the game is over."""

from __future__ import annotations

import re

from gamekit import Judge, signon, start_full_game
from test_order_checks import process


def orders(j: Judge, assigned: dict[str, str], power: str, *lines: str) -> str:
    return j.mail(assigned[power], f"{signon(j, power)}\n" + "\n".join(lines)).body


# --------------------------------------------------------------------------- not adjacent

def test_an_inland_move_that_is_not_adjacent_says_so(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    body = orders(j, assigned, "GERMANY", "A Mun-Par", "A Mun-Bur VIA", "A Ber-Lon")
    assert "> A Mun-Par\nError: an army in Munich cannot reach Paris: they are not adjacent.\n" \
        in body
    # an adjacent move asked to go by sea, to a province without a coast
    assert ("> A Mun-Bur VIA\nError: Munich and Burgundy have no coast, so no convoy can go"
            " from Munich to Burgundy.\n") in body
    # both ends on a coast: a convoy could run if fleets stood there, so convoys are named
    assert "> A Ber-Lon\nError: no convoy could take Berlin to London.\n" in body
    assert "Accepted" not in body


# --------------------------------------------------------------------------- abbreviations

# Every word GET ORDERS quotes under ABBREVIATIONS, and what an order naming it is answered
# (England's fleets in the North Sea and the Norwegian Sea, its army in Yorkshire).
ABBREVIATIONS = {
    "Nor": ("F Nwg-Nor", "Accepted: F NWG - NWY"),
    "Nos": ("F Nwg-Nos", "Accepted: F NWG - NTH"),
    "Nws": ("F Nth-Nws", "Accepted: F NTH - NWG"),
    "Nat": ("F Nwg-Nat", "Accepted: F NWG - NAO"),
    "North": ("F Nwg-North", "Error: ambiguous province 'north': could be North Africa (NAF),"
              " North Atlantic Ocean (NAO), North Sea (NTH)."),
    "Sw": ("A Yor-Sw", "Error: ambiguous province 'sw': could be Sweden (SWE),"
           " Switzerland (SWI)."),
    "Urk": ("A Yor-Urk", "Error: unknown province 'urk'."),
}


def test_every_abbreviation_the_help_quotes_is_read_as_it_says(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    help_text = j.mail("reader@example.org", "GET ORDERS").body
    section = help_text.split("ABBREVIATIONS")[1].split("The codes of")[0]
    quoted = set(re.findall(r'"(\w+)"', section))
    # the words the help gives as examples to write instead (Nwy, Nth …) are codes, not quoted
    assert quoted - {"Ukr"} == set(ABBREVIATIONS)
    assert '"Nor" is Norway' in " ".join(section.split())
    assert '"North" could be North Africa, the North Atlantic Ocean or the North Sea' \
        in " ".join(section.split())
    orders(j, assigned, "ENGLAND", "F Lon-Nth", "F Edi-Nwg", "A Lvp-Yor")
    process(j, "S1901M")
    for word, (line, answer) in ABBREVIATIONS.items():
        body = orders(j, assigned, "ENGLAND", line)
        assert f"> {line}\n{answer}" in body, (word, body)


# --------------------------------------------------------------------------- the echo

def test_the_echo_shows_the_unit_and_coast_the_judge_filled_in(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    body = orders(j, assigned, "RUSSIA", "F StP-Bot", "Mos-Stp", "War S Mos-Ukr",
                  "F StP/NC-Bot")
    assert "> F StP-Bot\nAccepted: F STP/SC - BOT\n" in body
    # no type written: the army standing in Moscow
    assert "> Mos-Stp\nAccepted: A MOS - STP\n" in body
    assert "> War S Mos-Ukr\nAccepted: A WAR S A MOS - UKR\n" in body
    # the wrong coast for the fleet: the judge orders the fleet that is there, and says so
    # (the same order as the first line's)
    assert "> F StP/NC-Bot\nAccepted: F STP/SC - BOT (unchanged: your order already)\n" in body
    assert "  F STP/SC - BOT\n" in body.split("Orders of Russia in war1901 for S1901M:")[1]
    # a fleet move whose coast only one can be: France's fleet in Brest to Gascony first
    orders(j, assigned, "FRANCE", "F Bre-Gas")
    process(j, "S1901M")
    body = orders(j, assigned, "FRANCE", "F Gas-Spa")
    assert "> F Gas-Spa\nAccepted: F GAS - SPA/NC\n" in body
    # what the judge stores and plays is what it echoed
    process(j, "F1901M")
    (results,) = {m.body for m in j.last_broadcasts if "Results" in m.subject}
    assert "France: Fleet Gascony -> Spain (north coast)." in results


# --------------------------------------------------------------------------- winter summary

MASTER = "master@example.org"
WINTER = ("Austria: A Vie; centers Vie Bud Tri\n"
          "England: F Lon; centers Lon Edi Lvp\n"
          "France: A Par, A Bre, A Mar, A Pic; centers Par Bre\n")


def winter(j: Judge) -> dict[str, str]:
    """A game set at W1905A: Austria and England build two each, France removes two."""
    assigned = start_full_game(j)
    reply = j.mail(MASTER, f"SIGNON Mwar1901 mpw\nPAUSE\nPOSITION W1905A\n{WINTER}ENDPOSITION\n"
                   "RESUME\n")
    assert "war1901 is running again, at W1905A." in reply.body, reply.body
    return assigned


def note(body: str, power: str) -> str:
    return body.split(f"Orders of {power} in war1901 for W1905A:\n")[1].split("\n\n")[0]


def test_the_winter_summary_counts_builds_and_removals(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = winter(j)
    body = orders(j, assigned, "AUSTRIA", "Build A Bud")
    assert note(body, "Austria") == "  A BUD B\nStill without orders: 1 build."
    body = orders(j, assigned, "AUSTRIA", "Waive")
    assert note(body, "Austria") == "  A BUD B\n  WAIVE\nBuilds complete: 2 of 2 ordered."
    assert "Every unit has an order." not in body
    body = orders(j, assigned, "FRANCE", "Remove A Pic")
    assert note(body, "France") == "  A PIC D\nStill without orders: 1 removal."
    body = orders(j, assigned, "FRANCE", "Mar D")  # no type written: the army in Marseilles
    assert "> Mar D\nAccepted: A MAR D\n" in body
    assert note(body, "France") == "  A MAR D\n  A PIC D\nRemovals complete: 2 of 2 ordered."


def test_the_vote_that_ends_the_game_leaves_no_orders_pending(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = winter(j)
    orders(j, assigned, "AUSTRIA", "SET DRAW")
    orders(j, assigned, "FRANCE", "SET DRAW")
    body = orders(j, assigned, "ENGLAND", "Build F Edi", "SET DRAW")
    assert "The vote has passed: war1901 ends in a draw of Austria, England, France." in body
    assert note(body, "England") == "  F EDI B\nwar1901 is over: no more orders are needed."
    assert "Still without orders" not in body
