"""The reply says what the judge understood, and why it refused: an army move between
provinces that are not neighbours is "not adjacent" unless a convoy could carry it; the
abbreviations the help promises to refuse are refused, the one it promises to read is read;
the echo of an order shows the coast the judge filled in; the winter summary counts builds
and removals, and says nothing is missing once the game is over."""

from __future__ import annotations

import re

from gamekit import Judge, judge_in_process, signon, start_full_game  # noqa: F401
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
