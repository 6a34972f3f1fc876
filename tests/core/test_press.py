"""The pure press rules: reading PRESS / BROADCAST lines, and who may write to whom under
NO_PRESS, PUBLIC_PRESS, the grey and observer settings, elimination and Formal Diplomacy wars."""

from __future__ import annotations

import pytest

from judge.core import load_map
from judge.core.formal.state import make_formal_state
from judge.core.press import (MASTER, OBSERVER, Addressing, PressError, PressGame,
                              parse_addressing, refusal)

M = load_map("standard")
ALL = frozenset(M.powers)


def read(text: str, broadcast: bool = False) -> Addressing:
    found = parse_addressing(M, text, broadcast)
    assert isinstance(found, Addressing), found
    return found


def error(text: str, broadcast: bool = False) -> str:
    found = parse_addressing(M, text, broadcast)
    assert isinstance(found, PressError), found
    return found.message


@pytest.mark.parametrize("text", ["TO EF", "to e f", "TO England, France", "TO French English",
                                  "TO E,F", "TO France EF england"])
def test_powers_by_name_adjective_or_initials_in_map_order(text: str) -> None:
    assert read(text) == Addressing(("ENGLAND", "FRANCE"))


def test_the_master_by_m_or_master_alone_or_with_powers() -> None:
    assert read("TO M") == Addressing(to_master=True)
    assert read("TO master").master_only
    assert read("TO EM") == Addressing(("ENGLAND",), to_master=True)
    assert not read("TO E Master").master_only


def test_grey_anywhere_and_broadcasts() -> None:
    assert read("TO E GREY") == Addressing(("ENGLAND",), grey=True)
    assert read("GREY TO E").grey and read("TO E gray").grey
    assert read("") == Addressing(broadcast=True)
    assert read("GREY") == Addressing(broadcast=True, grey=True)
    assert read("", broadcast=True) == Addressing(broadcast=True)
    assert read("grey", broadcast=True) == Addressing(broadcast=True, grey=True)


def test_unreadable_addressing() -> None:
    assert '"XQ" is not a power' in error("TO XQ")
    assert "initial (A E F G I R T)" in error("TO Prussia")
    assert "PRESS TO needs the powers" in error("TO")
    assert "PRESS is followed by TO" in error("England")
    assert "BROADCAST takes no powers" in error("TO E", broadcast=True)


def game(rules: tuple[str, ...] = (), *, grey: bool = True, observers: bool = False,
         survivors: frozenset[str] = ALL, played: frozenset[str] = ALL,
         wars: tuple[tuple[str, str], ...] = ()) -> PressGame:
    formal = make_formal_state(M, wars=wars) if wars else None
    return PressGame("war1901", frozenset(rules), grey, observers, survivors, played, formal)


PRIVATE = Addressing(("ENGLAND",))
TO_MASTER = Addressing(to_master=True)
EVERYONE = Addressing(broadcast=True)


def why(sender: str, addressing: Addressing, g: PressGame) -> str | None:
    found = refusal(sender, addressing, g)
    return None if found is None else found.message


def test_an_ordinary_game_allows_private_press_broadcasts_and_the_master() -> None:
    for addressing in (PRIVATE, TO_MASTER, EVERYONE, Addressing(("ENGLAND",), True)):
        assert why("FRANCE", addressing, game()) is None


@pytest.mark.parametrize("addressing", [PRIVATE, EVERYONE, Addressing(("ENGLAND",), True)])
def test_no_press_allows_only_the_master(addressing: Addressing) -> None:
    assert why("FRANCE", addressing, game(("NO_PRESS",))) == (
        "war1901 is a NO_PRESS game: press may only go to the master (PRESS TO M).")
    assert why("FRANCE", TO_MASTER, game(("NO_PRESS",))) is None
    assert why(MASTER, PRIVATE, game(("NO_PRESS",))) is None
    assert why(MASTER, EVERYONE, game(("NO_PRESS",))) is None


def test_public_press_allows_broadcasts_and_the_master_only() -> None:
    g = game(("PUBLIC_PRESS",))
    assert why("FRANCE", EVERYONE, g) is None and why("FRANCE", TO_MASTER, g) is None
    assert "PUBLIC_PRESS game: no private press" in why("FRANCE", PRIVATE, g)
    assert "PUBLIC_PRESS" in why("FRANCE", Addressing(("ENGLAND",), True), g)
    assert why(MASTER, PRIVATE, g) is None


def test_observers_write_to_the_master_and_broadcast_only_where_allowed() -> None:
    assert why(OBSERVER, TO_MASTER, game(("NO_PRESS",))) is None
    assert "observers may not broadcast in war1901" in why(OBSERVER, EVERYONE, game())
    assert why(OBSERVER, EVERYONE, game(observers=True)) is None
    assert why(OBSERVER, EVERYONE, game(("PUBLIC_PRESS",), observers=True)) is None
    assert "NO_PRESS" in why(OBSERVER, EVERYONE, game(("NO_PRESS",), observers=True))
    assert "observers may write only to the master" in why(OBSERVER, PRIVATE,
                                                           game(observers=True))


def test_grey_needs_the_setting_even_for_the_master() -> None:
    grey = Addressing(("ENGLAND",), grey=True)
    assert why("FRANCE", grey, game()) is None
    for sender in ("FRANCE", MASTER):
        assert why(sender, grey, game(grey=False)) == (
            "war1901 does not allow grey press: send it without GREY.")


def test_nobody_writes_to_themselves() -> None:
    assert "you cannot send press to yourself" in why("FRANCE", Addressing(("FRANCE",)), game())
    assert "press to yourself" in why(MASTER, TO_MASTER, game())


def test_eliminated_or_unplayed_recipients_and_eliminated_senders() -> None:
    alive = ALL - {"ITALY"}
    assert why("FRANCE", Addressing(("ITALY",)), game(survivors=alive)) == (
        "Italy has been eliminated: no press goes to it.")
    assert why(MASTER, Addressing(("ITALY",)), game(survivors=alive)) is not None
    assert "nobody plays Turkey" in why("FRANCE", Addressing(("TURKEY",)),
                                        game(played=ALL - {"TURKEY"}))
    # the player of an eliminated power may still write to the master, and only to it
    assert why("ITALY", TO_MASTER, game(survivors=alive)) is None
    assert "Italy has been eliminated: its player may still write to the master" in why(
        "ITALY", EVERYONE, game(survivors=alive))


def test_powers_at_war_may_not_write_to_each_other_privately() -> None:
    g = game(wars=(("FRANCE", "GERMANY"),))
    assert why("FRANCE", Addressing(("ENGLAND", "GERMANY")), g) == (
        "France is at war with Germany: powers at war may not send each other private press "
        "(a BROADCAST is allowed).")
    assert why("GERMANY", Addressing(("FRANCE",)), g) is not None
    assert why("FRANCE", Addressing(("ENGLAND",)), g) is None
    assert why("FRANCE", EVERYONE, g) is None and why("FRANCE", TO_MASTER, g) is None
    assert why(MASTER, Addressing(("FRANCE", "GERMANY")), g) is None
