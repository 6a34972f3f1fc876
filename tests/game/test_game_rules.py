"""DPjudge's game rules, each played by mail: choosing them (CREATE … RULES, SET RULES),
and what each one does to a game.  Press rules (NO_PRESS, PUBLIC_PRESS) are proved with the
press tests, PROPOSE_DIAS and NO_DIAS with the votes (test_votes_by_mail.py)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from gamekit import (POWERS, Judge, code_for, force_due, player, signon,
                     start_full_game)
from judge.basics.utc import utcnow
from judge.store.models import Game, Seat

from test_by_mail import ALL_HOLD
from test_clock_and_repairs import tick

MASTER = "master@example.org"
M = "SIGNON Mg mpw"


def game_row(j: Judge, name: str = "g") -> Game:
    with j.store.transaction() as s:
        return s.scalars(select(Game).where(Game.name_key == name)).one()


def create(j: Judge, extra: str) -> str:
    return j.mail(MASTER, f"CREATE g mpw {extra}").body


def small_game(j: Judge, extra: str, powers: tuple[str, ...] = ("FRANCE",)) -> None:
    """A game whose listed powers have players (player0, player1…, password pw0, pw1…); the
    others are vacant.  Needs POWER_CHOICE in ``extra``; the master starts it."""
    assert "created" in create(j, f"RULES POWER_CHOICE START_MASTER {extra}")
    for i, power in enumerate(powers):
        assert "You have joined" in j.mail(player(i), f"JOIN g pw{i} {power}").body
    assert "has started" in j.mail(MASTER, f"{M}\nSTART").body
    j.passwords = {p: f"pw{i}" for i, p in enumerate(powers)}


def orders(j: Judge, i: int, power: str, lines: str, game: str = "g") -> str:
    return j.mail(player(i), f"{signon(j, power, game)}\n{lines}").body


# --------------------------------------------------------------------------- choosing rules

def test_unknown_and_conflicting_rules_are_refused_at_create(judge_in_process: Judge) -> None:
    j = judge_in_process
    body = create(j, "RULES NO_PRSS")
    assert "There is no rule NO_PRSS. Did you mean NO_PRESS?" in body
    body = create(j, "RULES REAL_TIME ALWAYS_WAIT")
    assert "ALWAYS_WAIT cannot be used with REAL_TIME: each rule forbids the other" in body
    body = create(j, "RULES PUBLIC_PRESS NO_PRESS")
    assert "NO_PRESS and PUBLIC_PRESS take each other away" in body
    # a rule brought in by another conflicts just the same, and says where it came from
    body = create(j, "RULES SOLITAIRE REAL_TIME")
    assert "ALWAYS_WAIT (brought in by SOLITAIRE) cannot be used with REAL_TIME" in body
    body = create(j, "RULES TOUCH_PRESS")
    assert "TOUCH_PRESS is a DPjudge rule that this judge does not offer" in body
    # none of these made a game
    assert 'no game named "g"' in j.mail(MASTER, "LIST g").body


def test_implied_rules_are_stored_and_explained(judge_in_process: Judge) -> None:
    j = judge_in_process
    body = create(j, "RULES civil_disorder")
    assert "with rules CD_DUMMIES CIVIL_DISORDER" in body
    assert "CD_DUMMIES: brought in by CIVIL_DISORDER" in body
    assert game_row(j).rules == "CD_DUMMIES CIVIL_DISORDER"
    assert "Rules: CD_DUMMIES CIVIL_DISORDER" in j.mail(MASTER, "LIST g").body


def test_set_rules_before_and_after_the_start(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE g mpw")
    body = j.mail(MASTER, f"{M}\nSET RULES POWER_CHOICE HOLD_WIN").body
    assert "The rules of g are now: HOLD_WIN POWER_CHOICE." in body
    body = j.mail(MASTER, f"{M}\nSET RULES REAL_TIME ALWAYS_WAIT").body
    assert "cannot be used with" in body and game_row(j).rules == "HOLD_WIN POWER_CHOICE"
    for i, power in enumerate(POWERS):
        j.mail(player(i), f"JOIN g pw{i} {power}")
    j.passwords = {p: f"pw{i}" for i, p in enumerate(POWERS)}
    assert game_row(j).state == "active"
    # once running, the terms the players joined under stay
    body = j.mail(MASTER, f"{M}\nSET RULES HOLD_WIN").body
    assert "POWER_CHOICE cannot be added or dropped once the game has started" in body
    assert game_row(j).rules == "HOLD_WIN POWER_CHOICE"
    # the others may change, and every player is told
    j.new()
    body = j.mail(MASTER, f"{M}\nSET RULES HOLD_WIN POWER_CHOICE NO_PRESS").body
    assert "now: HOLD_WIN NO_PRESS POWER_CHOICE" in body
    (told,) = [m for m in j.last_broadcasts if "Parameter Change" in m.subject]
    assert len(told.to) == 8 and "now HOLD_WIN NO_PRESS POWER_CHOICE" in " ".join(told.body.split())
    # only the master
    body = j.mail(player(0), f"{signon(j, 'AUSTRIA', 'g')}\nSET RULES NONE").body
    assert "Error" in body and game_row(j).rules == "HOLD_WIN NO_PRESS POWER_CHOICE"


# --------------------------------------------------------------------------- joining

def test_power_choice(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE plain mpw")
    body = j.mail(player(0), "JOIN plain pw0 France").body
    assert "is not a POWER_CHOICE game" in body
    create(j, "RULES POWER_CHOICE")
    assert "You have joined" in j.mail(player(0), "JOIN g pw0 France").body
    assert "France is already taken in g" in j.mail(player(1), "JOIN g pw1 french").body
    assert '"Ruritania" is not a power' in j.mail(player(1), "JOIN g pw1 Ruritania").body
    for i in range(1, 7):
        j.mail(player(i), f"JOIN g pw{i}")
    (france,) = [m for m in j.last_broadcasts if m.subject.upper().endswith("YOU ARE FRANCE")]
    assert france.to == [player(0)]


def test_multiple_powers_per_player_keep_their_own_orders_and_wait(judge_in_process: Judge
                                                                   ) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE one mpw RULES POWER_CHOICE")
    j.mail(player(0), "JOIN one pw0 France")
    assert "has already joined one" in j.mail(player(0), "JOIN one pw9 Germany").body
    create(j, "RULES POWER_CHOICE MULTIPLE_POWERS_PER_PLAYER START_MASTER")
    j.mail(player(0), "JOIN g pf France")
    assert "You have joined g (2 players" in j.mail(player(0), "JOIN g pg Germany").body
    j.mail(MASTER, f"{M}\nSTART")
    body = j.mail(player(0), "SIGNON Fg pf\n" + "\n".join(ALL_HOLD["FRANCE"]) + "\nSET WAIT\n"
                  "SIGNON Gg pg\n" + "\n".join(ALL_HOLD["GERMANY"])).body
    assert "Orders of France in g for S1901M" in body
    assert "Orders of Germany in g for S1901M" in body
    # France waits: the game does not move although every power has ordered
    assert game_row(j).phase == "S1901M"
    with j.store.transaction() as s:
        seats = {x.power: x for x in s.scalars(select(Seat).where(Seat.kind == "power"))}
        assert seats["FRANCE"].wait and not seats["GERMANY"].wait
        assert '"PAR"' in seats["FRANCE"].orders and '"MUN"' in seats["GERMANY"].orders
        assert '"MUN"' not in seats["FRANCE"].orders and '"PAR"' not in seats["GERMANY"].orders
    j.mail(player(0), "SIGNON Fg pf\nSET NOWAIT")
    assert game_row(j).phase == "F1901M"


def test_no_observations(judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j, "g", "RULES NO_OBSERVATIONS")
    assert "g does not allow observers" in j.mail("obs@example.org", "OBSERVE g opw").body
    # the master still sees everything: the game's mail reaches the master
    j.mail(MASTER, f"{M}\nPROCESS")
    (results,) = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert MASTER in results.to and "obs@example.org" not in results.to


def test_start_master(judge_in_process: Judge) -> None:
    j = judge_in_process
    create(j, "RULES START_MASTER")
    for i in range(7):
        body = j.mail(player(i), f"JOIN g pw{i}").body
    assert "Powers are assigned when the game starts" in body
    assert game_row(j).state == "forming"
    assert "g has started." in j.mail(MASTER, f"{M}\nSTART").body
    assert game_row(j).state == "active"


# --------------------------------------------------------------------------- processing

def test_solitaire(judge_in_process: Judge) -> None:
    j = judge_in_process
    body = create(j, "RULES SOLITAIRE")
    assert "with rules ALWAYS_WAIT CD_DUMMIES NO_DEADLINE SOLITAIRE" in body
    assert "NO_DEADLINE: brought in by SOLITAIRE" in body
    assert "SOLITAIRE: g has started at S1901M; every power is a dummy" in body
    g = game_row(j)
    assert g.state == "active" and g.deadline is None and g.next_event_at is None
    # SOLITAIRE games are private; even with the privacy password nobody may join
    privacy = body.split("the privacy password ", 1)[1].split()[0]
    assert "g is not forming players any more" in j.mail(player(0),
                                                         f"JOIN g pw0 PRIVACY {privacy}").body
    # the master orders several powers in one mail; nothing moves before PROCESS
    body = j.mail(MASTER, f"{M}\nBECOME France\nA Par-Bur\nBECOME Germany\nA Mun-Ruh\n"
                  "BECOME Italy\nA Ven-Tyr\n").body
    assert body.count("Accepted") == 3
    for power in POWERS:
        j.mail(MASTER, f"{M}\nBECOME {power}\n" + "\n".join(ALL_HOLD[power][1:]))
    assert game_row(j).phase == "S1901M"  # ALWAYS_WAIT, even with every order in
    tick(j, utcnow() + timedelta(days=30))  # and no deadline ever comes
    assert game_row(j).phase == "S1901M"
    j.mail(MASTER, f"{M}\nPROCESS")
    (results,) = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert "France: Army Paris -> Burgundy." in results.body
    assert "Germany: Army Munich -> Ruhr." in results.body
    assert results.to == [MASTER]
    # ROLLBACK and ROLLFORWARD work as in any game
    assert "Rolled back" in j.mail(MASTER, f"{M}\nROLLBACK").body
    assert game_row(j).phase == "S1901M"


def test_dont_skip_phases(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "RULES DONT_SKIP_PHASES")
    orders(j, 0, "FRANCE", "\n".join(ALL_HOLD["FRANCE"]))
    # nobody was dislodged, yet the retreat phase is played
    assert game_row(j).phase == "S1901R"
    j.mail(MASTER, f"{M}\nPROCESS")
    assert game_row(j).phase == "F1901M"


def test_ignore_errors(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "RULES IGNORE_ERRORS")
    body = orders(j, 0, "FRANCE", "A Par-Mun\nA Par-Bur\nA Bogus-Nowhere\n")
    assert "Error" not in body
    assert body.count("Ignored (IGNORE_ERRORS).") == 2
    assert "Accepted: A PAR - BUR" in body
    # without the rule the same mail names each error
    j.mail(MASTER, "CREATE h mpw RULES POWER_CHOICE START_MASTER")
    j.mail(player(5), "JOIN h px France")
    j.mail(MASTER, "SIGNON Mh mpw\nSTART")
    body = j.mail(player(5), "SIGNON Fh px\nA Par-Mun\nA Par-Bur\nA Bogus-Nowhere\n").body
    assert body.count("Error:") == 2


def _winter_position(j: Judge, block: str, extra: str) -> None:
    small_game(j, extra)
    body = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION W1901A\n{block}\nENDPOSITION\nRESUME").body
    assert "The board of g is set at W1901A" in body, body


def test_build_any(judge_in_process: Judge) -> None:
    j = judge_in_process
    block = "France: A Bur; centers Par Bre Mar Bel"
    _winter_position(j, block, "RULES BUILD_ANY")
    body = orders(j, 0, "FRANCE", "Build A Bel\nBuild F Bre\n")
    assert "Accepted: A BEL B" in body and "Still without orders: 1 build." in body
    j.mail(MASTER, f"{M}\nPROCESS")
    (results,) = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert "France: Builds an army in Belgium." in results.body


def test_without_build_any_only_home_centres(judge_in_process: Judge) -> None:
    j = judge_in_process
    _winter_position(j, "France: A Bur; centers Par Bre Mar Bel", "")
    body = orders(j, 0, "FRANCE", "Build A Bel\n")
    assert "Error: Belgium is not a home centre of France." in body


def _removal_case(j: Judge, extra: str) -> str:
    # France must remove one of three units: the 2023 rule takes the one farthest from home
    # (Moscow); CIVIL_DISORDER keeps units on supply centres and takes Burgundy
    _winter_position(j, "France: A Bur, A Mos, F Bre; centers Par Bre", extra)
    j.mail(MASTER, f"{M}\nPROCESS")
    (results,) = [m for m in j.last_broadcasts if "Results" in m.subject]
    return results.body


def test_civil_disorder_removals_keep_units_on_centres(judge_in_process: Judge) -> None:
    j = judge_in_process
    body = _removal_case(j, "RULES CIVIL_DISORDER")
    assert "France: Removes the army in Burgundy." in body
    assert "Moscow" not in body.split("Removes", 1)[1].splitlines()[0]
    # the choice is reproducible: processed again after a ROLLBACK, the same unit goes
    j.mail(MASTER, f"{M}\nROLLBACK\nPROCESS")
    (again,) = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert "France: Removes the army in Burgundy." in again.body


def test_default_removals_follow_the_2023_rule(judge_in_process: Judge) -> None:
    j = judge_in_process
    body = _removal_case(j, "")
    assert "France: Removes the army in Moscow." in body


def test_civil_disorder_allows_no_late_changes(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "RULES CIVIL_DISORDER GRACE 2h", ("FRANCE", "GERMANY"))
    orders(j, 0, "FRANCE", "\n".join(ALL_HOLD["FRANCE"]))
    orders(j, 1, "GERMANY", "A Mun-Ruh")
    force_due(j, "g", utcnow() - timedelta(minutes=5))  # the deadline has passed
    body = orders(j, 0, "FRANCE", "A Par-Pic")
    assert "under CIVIL_DISORDER an order given before it cannot be changed" in body
    assert "withdrawn" not in j.mail(player(0), f"{signon(j, 'FRANCE')}\nCLEAR").body
    # a late power may still give the orders it owes, not change the ones it gave
    body = orders(j, 1, "GERMANY", "A Mun-Bur\nA Ber-Kie\nF Kie-Den")
    assert "Accepted: A BER - KIE" in body and "Error: the deadline has passed" in body
    assert game_row(j).phase == "F1901M"  # all in: processed


def test_late_changes_without_civil_disorder_or_with_late_changes(judge_in_process: Judge
                                                                  ) -> None:
    j = judge_in_process
    for name, rules in (("g", ""), ("h", "RULES CIVIL_DISORDER LATE_CHANGES")):
        j.mail(MASTER, f"CREATE {name} mpw RULES POWER_CHOICE START_MASTER {rules} GRACE 2h")
        j.mail(player(0), f"JOIN {name} pw0 France")
        j.mail(player(1), f"JOIN {name} pw1 Germany")
        j.mail(MASTER, f"SIGNON M{name} mpw\nSTART")
        j.passwords = {"FRANCE": "pw0", "GERMANY": "pw1"}
        orders(j, 0, "FRANCE", "\n".join(ALL_HOLD["FRANCE"]), name)
        force_due(j, name, utcnow() - timedelta(minutes=5))
        assert "Accepted: A PAR - BUR" in orders(j, 0, "FRANCE", "A Par-Bur", name)


def test_cd_dummies(judge_in_process: Judge) -> None:
    for rules, processed in (("", False), ("RULES CD_DUMMIES", True)):
        j = judge_in_process
        name = "cd" if processed else "nocd"
        assigned = start_full_game(j, name, rules)
        body = j.mail(MASTER, f"SIGNON M{name} mpw\nDUMMY France").body
        assert "France is now a dummy" in body
        for power in POWERS:
            if power != "FRANCE":
                j.mail(assigned[power], f"{signon(j, power, name)}\n"
                       + "\n".join(ALL_HOLD[power]))
        assert (game_row(j, name).phase == "F1901M") is processed
        if not processed:
            # the former player is out; the master orders the dummy and the phase completes
            body = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE', name)}\nA Par-Bur").body
            assert "Error: nobody plays France in nocd." in body
            assert "Not executed: the SIGNON on line 1 failed" in body
            j.mail(MASTER, f"SIGNON M{name} mpw\nBECOME France\n"
                   + "\n".join(ALL_HOLD["FRANCE"]))
            assert game_row(j, name).phase == "F1901M"


def test_replace_gives_a_power_to_a_new_player(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j, "g")
    j.new()
    body = j.mail(MASTER, f"{M}\nREPLACE France new@example.org fresh").body
    assert "France is now played by new@example.org" in body
    told = [m for m in j.last_broadcasts if m.to == ["new@example.org"]]
    assert told and "has given you France" in told[0].body and "fresh" not in told[0].body
    code = code_for(j, "new@example.org")
    # until the new player confirms, the password signs nobody on; CONFIRM runs first
    assert "waits for its address to confirm" in j.mail("new@example.org", "SIGNON Fg fresh").body
    body = j.mail("new@example.org", f"SIGNON Fg fresh\nA Par-Bur\n> CONFIRM {code}").body
    assert "Confirmed: new@example.org now gets the mail of g as France." in body
    assert "Accepted: A PAR - BUR" in body
    # the old player's password no longer reaches France
    body = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE', 'g')}\nA Par-Pic").body
    assert "Error: wrong password" in body
    assert "REPLACE needs a power" in j.mail(MASTER, f"{M}\nREPLACE France").body


def test_no_deadline(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "RULES NO_DEADLINE", ("FRANCE", "GERMANY"))
    g = game_row(j)
    assert g.deadline is None and g.next_event_at is None
    body = j.mail(MASTER, f"{M}\nSET DEADLINE 24h").body
    assert "g has no deadlines (NO_DEADLINE)" in body
    orders(j, 0, "FRANCE", "\n".join(ALL_HOLD["FRANCE"]))
    orders(j, 1, "GERMANY", "\n".join(ALL_HOLD["GERMANY"]))
    assert game_row(j).phase == "F1901M" and game_row(j).deadline is None


def test_real_time(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "RULES REAL_TIME", ("FRANCE", "GERMANY"))
    body = orders(j, 0, "FRANCE", "SET WAIT")
    assert "g is a REAL_TIME game" in body
    orders(j, 0, "FRANCE", "\n".join(ALL_HOLD["FRANCE"]))
    orders(j, 1, "GERMANY", "\n".join(ALL_HOLD["GERMANY"]))
    assert game_row(j).phase == "F1901M"


def test_always_wait(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "RULES ALWAYS_WAIT GRACE 0", ("FRANCE",))
    orders(j, 0, "FRANCE", "\n".join(ALL_HOLD["FRANCE"]))
    assert game_row(j).phase == "S1901M"  # every order in, but it waits for the deadline
    deadline = game_row(j).deadline.replace(tzinfo=utcnow().tzinfo)
    tick(j, deadline + timedelta(seconds=1))
    assert game_row(j).phase == "F1901M"


# --------------------------------------------------------------------------- winning

FRANCE_1901 = ("A Par-Bur\nA Mar-Spa\nF Bre-Mao", "A Bur-Bel\nA Spa H\nF Mao-Por")
GERMANY_1901 = ("F Kie-Den\nA Mun-Ruh\nA Ber-Kie", "F Den H\nA Ruh-Hol\nA Kie H")


def _play_1901(j: Judge) -> None:
    for spring_or_fall in (0, 1):
        orders(j, 0, "FRANCE", FRANCE_1901[spring_or_fall])
        orders(j, 1, "GERMANY", GERMANY_1901[spring_or_fall])


def test_victory_number_and_shared_victory(judge_in_process: Judge) -> None:
    j = judge_in_process
    # France ends 1901 with 6 centres, Germany with 5, Russia keeps 4: VICTORY 5
    small_game(j, "VICTORY 5 RULES SHARED_VICTORY", ("FRANCE", "GERMANY"))
    _play_1901(j)
    g = game_row(j)
    assert g.state == "finished" and g.winner == "FRANCE GERMANY"
    (ended,) = [m for m in j.last_broadcasts if "Victory" in m.subject]
    assert ended.subject.endswith("Victory: FG")
    assert "France and Germany\nshare the victory in F1901M" in ended.body
    assert "Won by France and Germany" in j.mail(MASTER, "LIST g").body


def test_victory_number_without_shared_victory(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "VICTORY 5", ("FRANCE", "GERMANY"))
    _play_1901(j)
    g = game_row(j)
    assert g.state == "finished" and g.winner == "FRANCE"


def test_hold_win_needs_two_years_in_a_row(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "VICTORY 5 RULES HOLD_WIN", ("FRANCE", "GERMANY"))
    _play_1901(j)
    g = game_row(j)
    assert g.state == "active" and g.phase == "W1901A"  # first year at 6: not yet
    orders(j, 0, "FRANCE", "Waive\nWaive\nWaive")
    orders(j, 1, "GERMANY", "Waive\nWaive")
    assert game_row(j).phase == "S1902M"
    for _ in range(2):
        orders(j, 0, "FRANCE", "A Bel H\nA Spa H\nF Por H")
        orders(j, 1, "GERMANY", "F Den H\nA Hol H\nA Kie H")
    g = game_row(j)
    assert g.state == "finished" and g.winner == "FRANCE", (g.state, g.phase)


def test_victory_number_is_checked(judge_in_process: Judge) -> None:
    j = judge_in_process
    assert "VICTORY must be a number of centres from 1 to 34" in create(j, "VICTORY 40")
    assert "VICTORY takes the number" in create(j, "VICTORY lots")


# --------------------------------------------------------------------------- NO_CHECK

def test_no_check(judge_in_process: Judge) -> None:
    j = judge_in_process
    small_game(j, "RULES NO_CHECK", ("FRANCE",))
    body = orders(j, 0, "FRANCE", "A Par-Mun\nA Mar-Urk\nF Ty H\nF Bre S A Par-Spa/nc\nA Mar H")
    assert "Accepted: A PAR - MUN" in body  # impossible, but only checked at processing
    assert "unknown province 'urk'" in body  # the "Urk check"
    assert "ambiguous province 'ty'" in body
    assert "a support of a fleet move may not name the coast" in body
    orders(j, 0, "FRANCE", "F Bre H")
    (results,) = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert "France: Army Paris -> Munich.  (*invalid*)" in results.body
    # without NO_CHECK the impossible move is refused at once
    j.mail(MASTER, "CREATE h mpw RULES POWER_CHOICE START_MASTER")
    j.mail(player(3), "JOIN h px France")
    j.mail(MASTER, "SIGNON Mh mpw\nSTART")
    body = j.mail(player(3), "SIGNON Fh px\nA Par-Mun").body
    assert "Error:" in body and "Accepted" not in body


def test_solitaire_chosen_while_forming_starts_the_game(judge_in_process: Judge) -> None:
    j = judge_in_process
    create(j, "")
    j.mail(player(0), "JOIN g pw0")
    body = j.mail(MASTER, f"{M}\nSET RULES SOLITAIRE").body
    assert "SOLITAIRE: g has started; every power nobody plays is a dummy" in body
    with j.store.transaction() as s:
        kinds = sorted(x.status for x in s.scalars(select(Seat).where(Seat.kind == "power")))
    assert kinds == ["active"] + ["dummy"] * 6  # the player keeps a power, six dummies
    assert game_row(j).state == "active" and game_row(j).deadline is None


def test_civil_disorder_completes_a_partial_set_of_removals(judge_in_process: Judge) -> None:
    j = judge_in_process
    # two removals owed; France orders one (the army in Burgundy): the judge picks the other
    # among the rest, preferring the unit off the centres (Picardy), never the one ordered
    _winter_position(j, "France: A Bur, A Pic, A Par, F Bre; centers Par Bre",
                     "RULES CIVIL_DISORDER")
    assert "Accepted" in orders(j, 0, "FRANCE", "Remove A Bur")
    j.mail(MASTER, f"{M}\nPROCESS")
    (results,) = [m for m in j.last_broadcasts if "Results" in m.subject]
    assert "France: Removes the army in Burgundy." in results.body
    assert "France: Removes the army in Picardy." in results.body
    assert "invalid" not in results.body


def test_set_rules_none_clears_and_cannot_be_mixed(judge_in_process: Judge) -> None:
    j = judge_in_process
    create(j, "RULES NO_PRESS")
    body = j.mail(MASTER, f"{M}\nSET RULES NONE NO_PRESS").body
    assert "SET RULES NONE clears the rules; it cannot be combined" in body
    assert game_row(j).rules == "NO_PRESS"
    assert "The rules of g are now: none." in j.mail(MASTER, f"{M}\nSET RULES none").body
    assert game_row(j).rules == ""
