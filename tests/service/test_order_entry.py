"""Order entry in the service layer, over a real store (judge.service.orders, and
judge.service.formal.orders.enter_order_line as the mail layer calls it for a standard game).

It proves that an accepted line is stored under its unit in canonical form and replaces the
unit's earlier order (``Entry.replaced``); that a refused line (another power's unit, an order
of another phase, an impossible move, a formal order in a standard game) is refused by code
and leaves every stored order as it was, seen from a fresh transaction; that retreat and
adjustment phases, reached through judge.service.processing, take only their own orders, keyed as
the module says; that what is stored is what the adjudicator plays; and that the NO_CHECK and
CIVIL_DISORDER rules change entry as their docstrings say.

(Named test_order_entry.py, not test_orders.py: tests/core/test_orders.py already has that
basename, and the suite's test directories are not packages.)
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import select

from judge.service import game_rules, games, orders
from judge.service import processing as phases
from judge.service.errors import GameError
from judge.service.formal.orders import enter_order_line
from judge.store.models import PhaseSnapshot, Seat
from servicekit import NOW, full_game, power_seat



def _enter(session, power: str, line: str, name: str = "g1", **options) -> orders.Entry:
    """One order line for ``power``, as the mail layer enters it."""
    game = games.find_game(session, name)
    return enter_order_line(power_seat(session, power, name), game, phases.position_of(game), line,
                            **options)


def _stored(session, name: str = "g1") -> dict[str, dict[str, str]]:
    """Every power's stored orders, read from the seats' rows."""
    game = games.find_game(session, name)
    return {s.power: json.loads(s.orders) for s in session.scalars(
        select(Seat).where(Seat.game_id == game.id, Seat.kind == "power")) if s.power}


def _set_board(session, phase: str, lines: list[str], name: str = "g1") -> None:
    """The master's POSITION: pause, set the board, resume."""
    game = games.find_game(session, name)
    games.pause_game(session, game)
    phases.set_position(session, game, phase, lines, NOW)
    phases.resume_game(session, game, NOW)


def test_an_order_is_stored_in_canonical_form_under_its_unit(store) -> None:
    with store.transaction() as session:
        full_game(session)
        first = _enter(session, "FRANCE", "a par-bur")
        # the fleet's destination is written the map's way
        second = _enter(session, "FRANCE", "F Bre-Mid")
        assert (first.text, first.replaced) == ("A PAR - BUR", ())
        assert (second.text, second.replaced) == ("F BRE - MAO", ())
    with store.transaction() as session:
        stored = _stored(session)
        assert stored["FRANCE"] == {"PAR": "A PAR - BUR", "BRE": "F BRE - MAO"}
        assert all(given == {} for power, given in stored.items() if power != "FRANCE")
        game = games.find_game(session, "g1")
        owed = orders.order_set(phases.position_of(game), "FRANCE",
                                orders.stored_orders(power_seat(session, "FRANCE")))
        assert owed.orders == ("F BRE - MAO", "A PAR - BUR")
        assert owed.missing == ("Army Marseilles",) and not owed.complete
        assert "FRANCE" in phases.waiting_powers(session, game)


def test_a_new_order_for_a_unit_replaces_its_earlier_one(store) -> None:
    with store.transaction() as session:
        full_game(session)
        _enter(session, "FRANCE", "A Par-Bur")
    with store.transaction() as session:  # a later mail
        again = _enter(session, "FRANCE", "A Par H")
        assert (again.text, again.replaced) == ("A PAR H", ("A PAR - BUR",))
        # the same order once more replaces nothing worth telling
        assert _enter(session, "FRANCE", "A Paris Hold").replaced == ()
    with store.transaction() as session:
        assert _stored(session)["FRANCE"] == {"PAR": "A PAR H"}


@pytest.mark.parametrize("line, code, facts", [
    ("A Mun-Ruh", "not_your_unit", {"unit": "Army Munich", "owner": "GERMANY",
                                    "power": "FRANCE"}),
    ("F Bre B", "wrong_phase_order", {"order_type": "A", "phase_type": "M"}),
    ("A Pic H", "no_unit", {"place": "Picardy"}),
    ("DWO Germany", "formal_order_not_formal", {"line": "DWO Germany", "game": "g1",
                                                "variant": "Standard"}),
])
def test_a_refused_line_changes_no_stored_order(store, line: str, code: str,
                                                facts: dict) -> None:
    with store.transaction() as session:
        full_game(session)
        _enter(session, "FRANCE", "A Par-Bur")
        _enter(session, "GERMANY", "A Mun-Ruh")
        before = _stored(session)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        _enter(session, "FRANCE", line)
    assert (refused.value.code, refused.value.facts) == (code, facts)
    with store.transaction() as session:
        assert _stored(session) == before


def test_an_impossible_move_is_refused_with_the_cores_reason_and_the_unit_keeps_its_order(
        store) -> None:
    with store.transaction() as session:
        full_game(session)
        _enter(session, "FRANCE", "A Par-Bur")
    for line in ("A Par-Mun", "A Mar-Mun", "A Bre-Par"):  # not adjacent; a fleet inland
        with pytest.raises(GameError) as refused, store.transaction() as session:
            _enter(session, "FRANCE", line)
        assert refused.value.code == "order_refused"
        assert set(refused.value.facts) == {"reason"} and refused.value.facts["reason"]
    with store.transaction() as session:
        assert _stored(session)["FRANCE"] == {"PAR": "A PAR - BUR"}


def _to_retreats(store) -> None:
    """A game in S1901R: Germany's army in Burgundy dislodged by a supported French attack."""
    with store.transaction() as session:
        full_game(session)
        _set_board(session, "S1901M", ["France: A Par, A Mar; centers Par Mar Bre",
                                       "Germany: A Bur, A Mun; centers Mun Ber Kie"])
        _enter(session, "FRANCE", "A Par-Bur")
        _enter(session, "FRANCE", "A Mar S A Par-Bur")
        _enter(session, "GERMANY", "A Bur H")
        _enter(session, "GERMANY", "A Mun H")
        game = games.find_game(session, "g1")
        [processed] = phases.process_phase(session, game, NOW, "master")
        assert processed.next_phase == "S1901R"
        assert processed.facts["retreats"] == [
            ["German", "A", "Burgundy", ["Belgium", "Gascony", "Picardy", "Ruhr"]]]


@pytest.mark.parametrize("power, line, code, facts", [
    ("FRANCE", "A Bur H", "no_orders_owed", {"power": "FRANCE", "phase": "S1901R"}),
    ("GERMANY", "A Mun-Ruh", "no_dislodged_unit", {"place": "Munich"}),
    ("GERMANY", "A Bur H", "wrong_phase_order", {"order_type": "M", "phase_type": "R"}),
])
def test_a_retreat_phase_takes_only_retreats_of_dislodged_units(
        store, power: str, line: str, code: str, facts: dict) -> None:
    _to_retreats(store)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        _enter(session, power, line)
    assert (refused.value.code, refused.value.facts) == (code, facts)
    with store.transaction() as session:
        assert all(given == {} for given in _stored(session).values())


def test_a_retreat_is_stored_replaced_and_played(store) -> None:
    _to_retreats(store)
    with store.transaction() as session:
        with pytest.raises(GameError) as refused:  # where the attack came from
            _enter(session, "GERMANY", "A Bur-Par")
        assert refused.value.code == "order_refused"
        assert _enter(session, "GERMANY", "A Bur-Ruh").text == "A BUR R RUH"
        disband = _enter(session, "GERMANY", "A Bur D")
        assert (disband.text, disband.replaced) == ("A BUR D", ("A BUR R RUH",))
        assert _enter(session, "GERMANY", "A Bur-Ruh").replaced == ("A BUR D",)
        assert phases.is_ready(session, games.find_game(session, "g1"))
    with store.transaction() as session:
        assert _stored(session)["GERMANY"] == {"BUR": "A BUR R RUH"}
        game = games.find_game(session, "g1")
        phases.process_phase(session, game, NOW, "orders complete")
        assert game.phase == "F1901M"
        german = phases.position_of(game).units_of("GERMANY")
        assert sorted(u.province for u in german) == ["MUN", "RUH"]
        snap = session.scalars(select(PhaseSnapshot).where(PhaseSnapshot.phase == "S1901R")).one()
        assert json.loads(snap.orders)["GERMANY"] == {"BUR": "A BUR R RUH"}


def test_an_adjustment_phase_keys_builds_and_removals_and_counts_them(store) -> None:
    with store.transaction() as session:
        full_game(session)
        # France: three centres, one unit (two builds); Germany: two centres, three units
        _set_board(session, "W1901A", ["France: A Par; centers Par Mar Bre",
                                       "Germany: A Bur, A Mun, A Ruh; centers Mun Ber"])
        assert _enter(session, "FRANCE", "Build A Mar").text == "A MAR B"
        assert _enter(session, "FRANCE", "Build F Bre").text == "F BRE B"
        assert _enter(session, "GERMANY", "Remove A Bur").text == "A BUR D"
    refusals = [
        ("FRANCE", "Build A Par", "builds_given", {"power": "FRANCE", "builds": 2}),
        ("FRANCE", "Remove A Par", "no_removals", {"power": "FRANCE"}),
        ("FRANCE", "A Par-Bur", "wrong_phase_order", {"order_type": "M", "phase_type": "A"}),
        ("GERMANY", "Build A Ber", "no_builds", {"power": "GERMANY"}),
        ("GERMANY", "Remove A Ruh", "removals_given", {"power": "GERMANY", "removals": 1}),
        ("GERMANY", "Remove A Par", "no_unit_to_remove", {"power": "GERMANY", "place": "Paris"}),
    ]
    for power, line, code, facts in refusals:
        with pytest.raises(GameError) as refused, store.transaction() as session:
            _enter(session, power, line)
        assert (refused.value.code, refused.value.facts) == (code, facts), line
    with store.transaction() as session:
        stored = _stored(session)
        assert stored["FRANCE"] == {"B:MAR": "A MAR B", "B:BRE": "F BRE B"}
        assert stored["GERMANY"] == {"R:BUR": "A BUR D"}
        game = games.find_game(session, "g1")
        french = orders.order_set(phases.position_of(game), "FRANCE", stored["FRANCE"])
        assert (french.adjustment, french.owed, french.given, french.missing) == \
            ("build", 2, 2, ())
        phases.process_phase(session, game, NOW, "master")
        pos = phases.position_of(game)
        assert game.phase == "S1902M"
        assert sorted(u.code for u in pos.units_of("FRANCE")) == ["A MAR", "A PAR", "F BRE"]
        assert sorted(u.code for u in pos.units_of("GERMANY")) == ["A MUN", "A RUH"]


def test_no_check_keeps_a_units_different_orders_of_one_mail_until_a_later_mail(store) -> None:
    with store.transaction() as session:
        game = full_game(session, rules=["NO_CHECK"])
        options = game_rules.order_options(game, NOW)
        assert options["check_legality"] is False
        mail: set[str] = set()
        # not adjacent, but NO_CHECK leaves that to the results
        assert _enter(session, "FRANCE", "A Par-Mun", this_mail=mail, **options).text \
            == "A PAR - MUN"
        second = _enter(session, "FRANCE", "A Par-Bur", this_mail=mail, **options)
        assert (second.alongside, second.replaced) == (("A PAR - MUN",), ())
        assert _enter(session, "FRANCE", "A Par-Bur", this_mail=mail, **options).alongside \
            == ()  # the same order twice is one order
    with store.transaction() as session:
        stored = _stored(session)["FRANCE"]
        assert stored == {"PAR": "A PAR - MUN", "PAR#2": "A PAR - BUR"}
        game = games.find_game(session, "g1")
        assert orders.order_set(phases.position_of(game), "FRANCE",
                                stored).repeated == ("Army Paris",)
        later = _enter(session, "FRANCE", "A Par-Gas", this_mail=set(),
                       **game_rules.order_options(game, NOW))
        assert later.replaced == ("A PAR - MUN", "A PAR - BUR")
    with store.transaction() as session:
        assert _stored(session)["FRANCE"] == {"PAR": "A PAR - GAS"}


def test_civil_disorder_takes_no_late_change_but_takes_a_late_first_order(store) -> None:
    with store.transaction() as session:
        game = full_game(session, rules=["CIVIL_DISORDER"])
        _enter(session, "FRANCE", "A Par-Bur", **game_rules.order_options(game, NOW))
        deadline = game.deadline
    assert deadline is not None
    late = deadline + timedelta(minutes=1)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        game = games.find_game(session, "g1")
        options = game_rules.order_options(game, late)
        assert options["only_new"] is True
        _enter(session, "FRANCE", "A Par H", **options)
    assert (refused.value.code, refused.value.facts) == ("civil_disorder_late", {})
    with store.transaction() as session:
        game = games.find_game(session, "g1")
        _enter(session, "FRANCE", "A Mar H", **game_rules.order_options(game, late))
    with store.transaction() as session:
        assert _stored(session)["FRANCE"] == {"PAR": "A PAR - BUR", "MAR": "A MAR H"}
