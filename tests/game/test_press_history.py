"""HISTORY shows the archived press of each phase to those who may see it: the master all of
it, with every sender named; a power's player its own power's private press and every
broadcast; an observer broadcasts and its own press; anybody else broadcasts only.  Grey press
names its sender only to the master and to the sender."""

from __future__ import annotations

import pytest

from gamekit import Judge, observe, signon, start_full_game

MASTER = "master@example.org"
OBSERVER = "watcher@example.org"
STRANGER = "someone@example.net"
G = "war1901"
M = f"SIGNON M{G} mpw"
O = f"SIGNON O{G} opw"

# (title as the master reads it, first line of the text)
FRANCE_TO_ENGLAND = ("Press from France to England", "The Channel stays empty.")
GREY_TO_ENGLAND = ("Grey press from Germany to England", "Watch Paris.")
FRANCE_BROADCAST = ("Broadcast from France to everyone in war1901", "Peace for all.")
ENGLAND_TO_MASTER = ("Press from England to the master", "Extension please.")
OBSERVER_TO_MASTER = ("Press from an observer to the master", "A fine opening.")
MASTER_TO_ITALY = ("Press from the master to Italy", "Your orders are late.")
GREY_BROADCAST = ("Grey broadcast from Austria to everyone in war1901", "Autumn is coming.")
ALL = [FRANCE_TO_ENGLAND, GREY_TO_ENGLAND, FRANCE_BROADCAST, ENGLAND_TO_MASTER,
       OBSERVER_TO_MASTER, MASTER_TO_ITALY, GREY_BROADCAST]


def played_with_press(j: Judge) -> dict[str, str]:
    """Press of every kind in S1901M, the phase processed, then a grey broadcast in F1901M."""
    a = start_full_game(j)
    observe(j, OBSERVER, G)

    def press(address: str, sign: str, first: str, text: str) -> None:
        reply = j.mail(address, f"{sign}\n{first}\n{text}\nENDPRESS")
        assert "sent to" in reply.body, reply.body

    press(a["FRANCE"], signon(j, "FRANCE"), "PRESS TO E", FRANCE_TO_ENGLAND[1])
    press(a["GERMANY"], signon(j, "GERMANY"), "PRESS TO England GREY", GREY_TO_ENGLAND[1])
    press(a["FRANCE"], signon(j, "FRANCE"), "BROADCAST", FRANCE_BROADCAST[1])
    press(a["ENGLAND"], signon(j, "ENGLAND"), "PRESS TO M", ENGLAND_TO_MASTER[1])
    press(OBSERVER, O, "PRESS TO M", OBSERVER_TO_MASTER[1])
    press(MASTER, M, "PRESS TO I", MASTER_TO_ITALY[1])
    assert "now at F1901M" in j.mail(MASTER, f"{M}\nPROCESS").body
    press(a["AUSTRIA"], signon(j, "AUSTRIA"), "BROADCAST GREY", GREY_BROADCAST[1])
    return a


def history(j: Judge, address: str, sign: str = "", phase: str = "") -> str:
    body = j.mail(address, f"{sign}\nHISTORY {G} {phase}".strip()).body
    return body.split(f"> HISTORY {G}", 1)[1]


def seen(text: str) -> list[tuple[str, str]]:
    """The (title, first line) of each press HISTORY shows, in order."""
    lines = text.splitlines()
    return [(line.strip().split(" (")[0], lines[i + 1].strip().removeprefix("| "))
            for i, line in enumerate(lines)
            if line.startswith("  ") and (" from " in line) and line.rstrip().endswith("):")]


def as_read(entry: tuple[str, str], hidden: bool) -> tuple[str, str]:
    """How a reader who is not told the sender of grey press sees an entry."""
    title, text = entry
    if hidden and title.startswith("Grey "):
        kind, rest = title.removeprefix("Grey ").split(" from ", 1)
        title = f"{kind.capitalize()} from someone to {rest.split(' to ', 1)[1]}"
    return title, text


def test_the_master_sees_all_press_with_every_sender(judge_in_process: Judge) -> None:
    j = judge_in_process
    played_with_press(j)
    text = history(j, MASTER, M)
    assert seen(text) == ALL
    # each phase's press comes before its results; the current phase's after them all
    assert (text.index("Press during S1901M:") < text.index("results for S1901M:")
            < text.index("Press during F1901M:"))
    assert "    | The Channel stays empty.\n" in text  # the text, marked, under its title


@pytest.mark.parametrize("power,expected", [
    ("ENGLAND", [FRANCE_TO_ENGLAND, as_read(GREY_TO_ENGLAND, True), FRANCE_BROADCAST,
                 ENGLAND_TO_MASTER, as_read(GREY_BROADCAST, True)]),
    ("GERMANY", [GREY_TO_ENGLAND, FRANCE_BROADCAST, as_read(GREY_BROADCAST, True)]),
    ("ITALY", [FRANCE_BROADCAST, MASTER_TO_ITALY, as_read(GREY_BROADCAST, True)]),
    ("AUSTRIA", [FRANCE_BROADCAST, GREY_BROADCAST]),
])
def test_a_power_sees_its_own_private_press_and_the_broadcasts(
        judge_in_process: Judge, power: str, expected: list[tuple[str, str]]) -> None:
    j = judge_in_process
    a = played_with_press(j)
    assert seen(history(j, a[power], signon(j, power))) == expected


def test_observers_and_strangers_see_broadcasts_and_grey_stays_grey(judge_in_process: Judge
                                                                     ) -> None:
    j = judge_in_process
    a = played_with_press(j)
    broadcasts = [FRANCE_BROADCAST, as_read(GREY_BROADCAST, True)]
    assert seen(history(j, OBSERVER, O)) == [FRANCE_BROADCAST, OBSERVER_TO_MASTER,
                                             broadcasts[1]]
    assert seen(history(j, STRANGER)) == broadcasts
    # a player who has not signed on reads HISTORY like anybody else
    text = history(j, a["ENGLAND"])
    assert seen(text) == broadcasts and "Watch Paris." not in text


def test_history_of_one_phase_shows_its_press(judge_in_process: Judge) -> None:
    j = judge_in_process
    played_with_press(j)
    text = history(j, MASTER, M, "S1901M")
    assert seen(text) == ALL[:-1] and "results for S1901M" in text
    # the current phase has press but no results yet
    text = history(j, MASTER, M, "F1901M")
    assert seen(text) == [GREY_BROADCAST] and "results" not in text
    assert "No phase" not in text
    assert "Error: S1902M has not been played in war1901." in history(j, MASTER, M, "S1902M")


def test_history_before_any_phase_is_processed_shows_the_press_so_far(judge_in_process: Judge
                                                                       ) -> None:
    j = judge_in_process
    a = start_full_game(j)
    j.mail(a["FRANCE"], f"{signon(j, 'FRANCE')}\nBROADCAST\nHello.\nENDPRESS")
    text = history(j, STRANGER)
    assert "No phase of war1901 has been processed yet.\n\nPress during S1901M:\n" in text
    assert seen(text) == [("Broadcast from France to everyone in war1901", "Hello.")]
