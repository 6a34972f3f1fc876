"""Formal Diplomacy by mail through the real pipeline and store (no SMTP): CREATE … VARIANT
formal [TURNS n] and its refusals; DWO, SUR, SOI, supports of claims and Undo SOI accepted,
stored and refused with a reason; void moves and void retreats in the results; ROLLBACK and
ROLLFORWARD put the wars and points back; the game ends on points after its last year with
one winner or a shared victory; draw votes are off until the master switches them on."""

from __future__ import annotations

import json

from sqlalchemy import select

from gamekit import Judge, signon, start_full_game
from judge.store.models import DrawVote, Game, GameResult, PhaseSnapshot, Seat

MASTER = "master@example.org"
G = "war1901"
M = f"SIGNON M{G} mpw"


def formal_game(j: Judge, turns: int | None = None) -> dict[str, str]:
    extra = "VARIANT formal" + (f" TURNS {turns}" if turns else "")
    return start_full_game(j, G, extra)


def send(j: Judge, assigned: dict[str, str], power: str, *lines: str) -> str:
    return j.mail(assigned[power], "\n".join([signon(j, power), *lines])).body


def master(j: Judge, *lines: str) -> str:
    return j.mail(MASTER, "\n".join([M, *lines])).body


def process(j: Judge) -> str:
    """The master processes the phase; returns the results mail everybody got."""
    reply = master(j, "PROCESS")
    assert "has been processed;" in reply, reply
    (results,) = [m for m in j.last_broadcasts if m.subject.endswith(" Results")]
    return results.body


def game_row(j: Judge) -> Game:
    with j.store.transaction() as s:
        game = s.scalars(select(Game)).one()
        s.expunge(game)
        return game


def formal_doc(j: Judge) -> dict:
    return json.loads(game_row(j).variant_state)


def stored(j: Judge, power: str) -> dict[str, str]:
    with j.store.transaction() as s:
        seat = s.scalars(select(Seat).where(Seat.power == power)).one()
        return json.loads(seat.orders)


def result(j: Judge) -> GameResult | None:
    with j.store.transaction() as s:
        row = s.scalars(select(GameResult)).first()
        if row is not None:
            s.expunge(row)
        return row


def game_names(j: Judge) -> list[str]:
    with j.store.transaction() as s:
        return list(s.scalars(select(Game.name)))


# --------------------------------------------------------------------------- creating

def test_create_a_formal_game_with_its_length(judge_in_process: Judge) -> None:
    j = judge_in_process
    reply = j.mail(MASTER, f"CREATE {G} mpw VARIANT formal TURNS 3").body
    assert f"Game {G} (Formal) created" in reply
    assert ("It is a Formal Diplomacy game of 3 game years: it ends after the Fall of 1903, "
            "won on victory points (GET FORMAL). Draw votes are off; SET DRAWS ON switches "
            "them on.") in reply
    doc = formal_doc(j)
    assert set(doc) == {"formal", "draws"} and doc["draws"] is False
    assert doc["formal"]["turns"] == 3 and doc["formal"]["first_year"] == 1901
    assert doc["formal"]["wars"] == [] and doc["formal"]["spheres"] == {}
    assert set(doc["formal"]["vp"].values()) == {0}
    reply = j.mail("someone@example.org", f"LIST {G}").body
    assert "Variant: Formal" in reply
    assert "Formal Diplomacy: the game ends after the Fall of 1903 (GET FORMAL)." in reply
    assert "Draws: off (Formal Diplomacy: the master may SET DRAWS ON)" in reply


def test_a_formal_game_lasts_ten_years_by_default_and_a_standard_game_keeps_no_state(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    reply = j.mail(MASTER, "CREATE long mpw VARIANT Formal").body
    assert "It is a Formal Diplomacy game of 10 game years: it ends after the Fall of 1910" \
        in reply
    reply = j.mail(MASTER, "CREATE plain mpw").body
    assert "Game plain (Standard) created" in reply and "Formal" not in reply
    with j.store.transaction() as s:
        states = {g.name: g.variant_state for g in s.scalars(select(Game))}
    assert states["plain"] is None
    assert json.loads(states["long"])["formal"]["turns"] == 10


def test_turns_is_checked_and_a_refused_create_makes_no_game(judge_in_process: Judge) -> None:
    j = judge_in_process
    refusals = {
        "VARIANT formal TURNS 0": "Error: TURNS is the number of game years, from 1 to 50 "
                                  "(the default is 10), not 0.",
        "VARIANT formal TURNS 51": "Error: TURNS is the number of game years, from 1 to 50 "
                                   "(the default is 10), not 51.",
        "VARIANT formal TURNS two": "Error: TURNS needs the number of game years, e.g. "
                                    "VARIANT formal TURNS 5.",
        "VARIANT formal TURNS": "Error: TURNS needs the number of game years",
        "TURNS 5": "Error: TURNS sets the length of a Formal Diplomacy game: use it with "
                   "VARIANT formal.",
        "VARIANT standard TURNS 5": "Error: TURNS sets the length of a Formal Diplomacy game",
        "VARIANT formality": 'Error: unknown variant "formality" (known: standard, formal).',
    }
    for args, error in refusals.items():
        reply = j.mail(MASTER, f"CREATE {G} mpw {args}").body
        assert error in reply, (args, reply)
    assert game_names(j) == []
    reply = j.mail(MASTER, f"CREATE {G} mpw TURNS 2 VARIANT formal RULES NO_CHECK").body
    assert f"Game {G} (Formal with rules NO_CHECK) created" in reply
    assert formal_doc(j)["formal"]["turns"] == 2


# --------------------------------------------------------------------------- orders

def test_each_formal_order_is_accepted_listed_and_stored_under_its_own_key(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j)
    reply = send(j, a, "FRANCE", "Declare War On Germany", "DWO English", "A Par SOI Bur",
                 "F Bre-Mao", "A Mar S A Par SOI Bur")
    assert "Accepted: DWO GERMANY" in reply
    assert "Accepted: DWO ENGLAND" in reply
    assert "Accepted: A PAR SOI BUR" in reply
    assert "Accepted: A MAR S A PAR SOI BUR" in reply
    assert ("Orders of France in war1901 for S1901M:\n  F BRE - MAO\n  DWO ENGLAND\n"
            "  DWO GERMANY\n  A MAR S A PAR SOI BUR\n  A PAR SOI BUR\n"
            "Every unit has an order.") in reply
    assert stored(j, "FRANCE") == {"BRE": "F BRE - MAO", "DWO:ENGLAND": "DWO ENGLAND",
                                   "DWO:GERMANY": "DWO GERMANY",
                                   "MAR": "A MAR S A PAR SOI BUR", "PAR": "A PAR SOI BUR"}
    # a claim is the unit's order: a later order for the unit replaces it, and back again;
    # the same declaration twice is kept once
    reply = send(j, a, "FRANCE", "A Par-Pic", "DWO Germany", "Sphere of Influence Paris")
    assert "Accepted: A PAR - PIC" in reply
    assert "Accepted: A PAR SOI PAR" in reply  # without a unit: the unit in the province
    assert stored(j, "FRANCE")["PAR"] == "A PAR SOI PAR"
    assert sum(1 for k in stored(j, "FRANCE") if k.startswith("DWO:")) == 2
    # without a unit: the only unit that can reach the province (a fleet in Kiel cannot)
    reply = send(j, a, "GERMANY", "SOI Ruhr")
    assert "Accepted: A MUN SOI RUH" in reply
    assert stored(j, "GERMANY") == {"MUN": "A MUN SOI RUH"}


def test_surrender_and_undo_are_accepted_when_they_can_work(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j)
    send(j, a, "FRANCE", "DWO Germany", "A Par-Pic")
    process(j)  # France and Germany at war; Picardy is French now
    reply = send(j, a, "GERMANY", "Uncle!")
    assert "Accepted: SUR" in reply
    reply = send(j, a, "FRANCE", "A Pic SOI Pic")
    assert "Accepted: A PIC SOI PIC" in reply
    assert stored(j, "GERMANY") == {"SUR:": "SUR"}
    results = process(j)
    assert "Surrenders:\n  Germany surrenders to France." in results
    assert "France: Army Picardy claims Picardy (strength 1): established." in results
    assert "  Picardy (PIC): France" in results
    reply = send(j, a, "FRANCE", "Undo Sphere of Influence in Picardy", "Undo SOI Bel")
    assert "Accepted: UNDO SOI IN PIC" in reply
    assert "Error: Belgium is not your sphere of influence." in reply
    assert stored(j, "FRANCE") == {"UNDO:PIC": "UNDO SOI IN PIC"}


def test_formal_orders_that_cannot_work_are_refused_with_the_reason(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j)
    reply = send(j, a, "FRANCE", "DWO France", "DWO Narnia", "DWO", "SUR",
                 "A Mun SOI Mun", "A Par SOI Bre", "F Bre SOI Par", "SOI Bur",
                 "A Mar S A Par SOI Bel", "A Mar S A Pic SOI Bur", "A Mar S A Mun SOI Bur",
                 "A Par S A Par SOI Bur", "Undo SOI in Par", "SOI Xyz")
    assert "Error: you cannot declare war on yourself." in reply
    assert "Error: unknown power 'Narnia'" in reply
    assert "Error: declare war on whom? e.g. DWO Germany." in reply
    assert "Error: you cannot surrender: you are at war with nobody." in reply
    assert "Error: the Army Munich is Germany's, not France's." in reply
    assert "Error: Brest is not vacant: a unit may claim it only from inside." in reply
    assert "Error: Fleet Brest is neither in nor next to Paris (by its own moves)." in reply
    assert ("Error: several of your units could claim Burgundy: name one, e.g. A MAR SOI BUR."
            in reply)
    assert ("Error: the Army Marseilles cannot reach Belgium, so it cannot support a claim "
            "to it.") in reply
    assert "Error: there is no unit in Picardy to support." in reply
    assert "Error: a unit cannot support its own claim." in reply
    assert "Error: Paris is not your sphere of influence." in reply
    assert "Error: unknown province 'xyz'" in reply
    assert "15 lines read, 13 errors." in reply
    assert stored(j, "FRANCE") == {"MAR": "A MAR S A MUN SOI BUR"}
    # a power eliminated, and a power one is already at war with
    reply = master(j, "PAUSE", "POSITION S1902M",
                   "France: A Par, A Bur; centers Par Bre Mar",
                   "Germany: A Mun; centers Mun Ber Kie",
                   "Austria: A Vie; centers Vie Bud Tri",
                   "ENDPOSITION", "RESUME")
    assert "war1901 is running again, at S1902M." in reply
    reply = send(j, a, "FRANCE", "DWO Italy", "DWO Germany")
    assert "Error: Italy is eliminated: there is nobody to fight." in reply
    assert "Accepted: DWO GERMANY" in reply
    process(j)
    reply = send(j, a, "FRANCE", "DWO Germany", "A Bur-Mun")
    assert "Error: you are already at war with Germany." in reply
    assert "Accepted: A BUR - MUN" in reply
    reply = send(j, a, "GERMANY", "A Mun-Bur", "SUR")
    assert "Accepted: SUR" in reply


def test_a_surrender_from_an_enemy_home_centre_is_refused(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j)
    master(j, "PAUSE", "POSITION S1902M",
           "France: A Mun, A Par; centers Par Bre Mar Mun",
           "Germany: A Ber; centers Ber Kie",
           "ENDPOSITION", "RESUME")
    send(j, a, "GERMANY", "DWO France")
    process(j)
    reply = send(j, a, "FRANCE", "SUR")
    assert ("Error: you cannot surrender: you own Munich, a home centre of Germany; your "
            "unit is in Munich, a home province of Germany.") in reply
    assert stored(j, "FRANCE") == {}


def test_a_claim_that_would_fail_as_things_stand_is_accepted_with_a_warning(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j)
    send(j, a, "GERMANY", "A Mun-Ruh")
    send(j, a, "FRANCE", "A Mar-Bur")
    process(j)
    reply = send(j, a, "FRANCE", "A Bur SOI Mun")
    assert ("Accepted: A BUR SOI MUN (but Munich is a supply centre of Germany and you are "
            "not at war with it: judged when the turn is processed)") in reply
    # declaring war in the same orders makes it good
    send(j, a, "FRANCE", "DWO Germany")
    results = process(j)
    assert "France: Army Burgundy claims Munich (strength 1): established." in results
    assert "  Munich (MUN): France" in results


def test_formal_orders_are_refused_outside_movement_phases_and_in_standard_games(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = start_full_game(j, G)
    reply = send(j, a, "FRANCE", "DWO Germany", "A Par SOI Bur", "SUR", "A Par-Bur")
    assert ('Error: "DWO Germany" is a Formal Diplomacy order (GET FORMAL), but war1901 is a '
            'Standard game.') in reply
    assert reply.count("is a Formal Diplomacy order (GET FORMAL)") == 3
    assert "Accepted: A PAR - BUR" in reply
    assert stored(j, "FRANCE") == {"PAR": "A PAR - BUR"}
    reply = master(j, "SET DRAWS ON")
    assert ("Error: SET DRAWS ON is for Formal Diplomacy games; war1901 is a Standard game, "
            "where draw votes are always taken.") in reply


# --------------------------------------------------------------------------- void moves

def test_a_move_into_a_power_one_is_not_at_war_with_is_void(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j)
    reply = send(j, a, "ITALY", "A Ven-Tri", "A Rom-Apu")
    assert ("Accepted: A VEN - TRI (but void as things stand: not at war with Austria "
            "(Austria's fleet is in Trieste; Trieste is a supply centre of Austria): it holds)"
            ) in reply
    assert "Accepted: A ROM - APU\n" in reply
    send(j, a, "GERMANY", "DWO Austria", "A Mun-Boh")
    results = process(j)
    assert "Italy: Army Venice -> Trieste.  (*void*)" in results
    assert ("Void moves (no war):\n  Italy: Army Venice -> Trieste.  (*void: not at war with "
            "Austria (Austria's fleet is in Trieste; Trieste is a supply centre of Austria)*)"
            ) in results
    assert "Germany declares war on Austria." in results
    assert "Germany -1: declared war on Austria." in results
    assert "  Germany    X   .   .   -   .   .   .\n" in results
    assert "  Austria    -   .   .   X   .   .   .\n" in results
    # the void move held: the army is still in Venice
    reply = send(j, a, "ITALY", "A Ven H")
    assert "Accepted: A VEN H" in reply
    # a power's own declaration, given before the move, counts; another's is not known yet
    reply = send(j, a, "AUSTRIA", "DWO Italy", "F Tri-Ven")
    assert "Accepted: F TRI - VEN\n" in reply
    reply = send(j, a, "ITALY", "A Ven-Tri")
    assert "Accepted: A VEN - TRI (but void as things stand: not at war with Austria" in reply


def test_a_retreat_into_a_power_one_is_not_at_war_with_is_void(judge_in_process: Judge
                                                                ) -> None:
    j = judge_in_process
    a = formal_game(j)
    master(j, "PAUSE", "POSITION S1902M",
           "France: A Pic, A Bur; centers Par Bre Mar",
           "Germany: A Bel; centers Ber Kie Mun",
           "England: F Lon; centers Lon Edi Lvp Hol",
           "ENDPOSITION", "RESUME")
    send(j, a, "FRANCE", "DWO Germany", "A Pic-Bel", "A Bur S A Pic-Bel")
    results = process(j)
    assert "Germany: Army Belgium HOLD.  (*dislodged*)" in results
    assert "The German Army in Belgium can retreat to Holland or Ruhr." in results
    reply = send(j, a, "GERMANY", "DWO England", "A Bel-Hol")
    assert ("Error: DWO, SUR, SOI and Undo SOI are given in movement phases, and this is a "
            "retreat phase.") in reply
    assert ("Accepted: A BEL R HOL (but void as things stand: not at war with England "
            "(Holland is a supply centre of England): the unit would be disbanded)") in reply
    results = "\n".join(m.body for m in j.last_broadcasts if m.subject.endswith("Results"))
    assert "S1902R" in results
    assert ("Void moves (no war):\n  Germany: Army Belgium -> Holland.  (*void: not at war "
            "with England (Holland is a supply centre of England)*)") in results
    reply = j.mail("someone@example.org", f"LIST {G}").body
    assert "Germany          3     0" in reply  # the army was disbanded


# --------------------------------------------------------------------------- rollback

def test_rollback_and_rollforward_restore_wars_spheres_and_points(judge_in_process: Judge
                                                                   ) -> None:
    j = judge_in_process
    a = formal_game(j)
    send(j, a, "FRANCE", "DWO Germany", "F Bre SOI Mao")
    process(j)
    doc = formal_doc(j)["formal"]
    assert doc["wars"] == [["FRANCE", "GERMANY"]] and doc["spheres"] == {"MAO": "FRANCE"}
    assert doc["vp"]["FRANCE"] == -1
    with j.store.transaction() as s:
        snap = s.scalars(select(PhaseSnapshot)).one()
        assert json.loads(snap.variant_before)["formal"]["wars"] == []
        assert json.loads(snap.variant_after)["formal"] == doc
    master(j, "SET DRAWS ON")
    reply = master(j, "ROLLBACK", "LIST")
    assert "Rolled back; war1901 is at S1901M again." in reply
    assert "  France     .   .   -   .   .   .   .\n" in reply
    assert "Spheres of influence:\n  none\n" in reply
    assert "  France     0\n" in reply
    after_rollback = formal_doc(j)
    assert after_rollback["formal"]["wars"] == [] and after_rollback["formal"]["vp"]["FRANCE"] == 0
    assert after_rollback["draws"] is True  # the master's switch is not part of the play
    assert stored(j, "FRANCE") == {"BRE": "F BRE SOI MAO", "DWO:GERMANY": "DWO GERMANY"}
    reply = master(j, "ROLLFORWARD", "LIST")
    assert "Rolled forward; war1901 is at F1901M." in reply
    assert "  France     .   .   -   X   .   .   .\n" in reply
    assert "  Mid-Atlantic Ocean (MAO): France\n" in reply
    assert formal_doc(j)["formal"] == doc


# --------------------------------------------------------------------------- the end

def test_the_game_ends_after_its_last_fall_with_one_winner(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j, turns=1)
    send(j, a, "FRANCE", "F Bre-Mao")
    results = process(j)
    assert "The next phase of 'war1901' will be Movement for Fall of 1901." in results
    send(j, a, "FRANCE", "F Mao-Por")
    reply = master(j, "PROCESS")
    assert "F1901M has been processed; war1901 is over." in reply
    subjects = sorted(m.subject for m in j.last_broadcasts)
    assert subjects == ["JUDGE:war1901 - F1901M Results", "JUDGE:war1901 - F1901M Victory: F"]
    results, ended = sorted(j.last_broadcasts, key=lambda m: m.subject)
    assert "France +1: Fall 1901: 1 centre(s) outside home." in results.body
    assert "The game is over: France wins." in results.body
    assert "The next phase" not in results.body and ":: Deadline:" not in results.body
    assert ("The game war1901 is over: its last year ended with F1901M, and it\nis won on "
            "victory points.\nFrance wins with 1 victory point. Congratulations!") in ended.body
    assert "Victory points:\n  France       1\n  Austria      0\n" in ended.body
    assert set(ended.to) == {MASTER, *a.values()}
    game = game_row(j)
    assert game.state == "finished" and game.winner == "FRANCE"
    row = result(j)
    assert row.result == "solo" and row.members == "FRANCE" and row.phase == "F1901M"
    reply = send(j, a, "GERMANY", "A Mun-Ruh")
    assert "Error: war1901 is finished: no orders are taken." in reply
    reply = master(j, "RESUME", "LIST")
    assert ("Error: war1901 ended after its last year on victory points; RESUME cannot reopen "
            "it (ROLLBACK can).") in reply
    assert "Won on victory points by France." in reply
    # ROLLBACK reopens it, with the points of before the last turn
    reply = master(j, "ROLLBACK")
    assert "Rolled back; war1901 is at F1901M again." in reply
    assert game_row(j).state == "active" and result(j) is None
    assert formal_doc(j)["formal"]["over"] is False


def test_a_tie_at_the_top_is_a_shared_victory(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j, turns=1)
    send(j, a, "FRANCE", "F Bre-Mao")
    send(j, a, "GERMANY", "F Kie-Hol")
    process(j)
    send(j, a, "FRANCE", "F Mao-Por")
    send(j, a, "GERMANY", "A Mun-Ruh")  # Holland is already taken: Germany +1, like France
    master(j, "PROCESS")
    (ended,) = [m for m in j.last_broadcasts if "Results" not in m.subject]
    # a shared victory, as GET FORMAL calls it: never announced as a draw
    assert ended.subject == "JUDGE:war1901 - F1901M Victory: FG"
    assert "France and Germany share the victory with 1 victory point each." in ended.body
    results = [m for m in j.last_broadcasts if "Results" in m.subject][0].body
    assert "The game is over: France and Germany share the victory." in results
    game = game_row(j)
    assert game.state == "finished" and game.winner == "FRANCE GERMANY"
    row = result(j)  # scored as a draw of the winners in tournaments
    assert row.result == "draw" and row.members == "FRANCE GERMANY"
    reply = j.mail("someone@example.org", f"LIST {G}").body
    assert "Won on victory points by France and Germany." in reply
    assert "in a draw of" not in reply


def test_eighteen_centres_do_not_end_a_formal_game(judge_in_process: Judge) -> None:
    j = judge_in_process
    formal_game(j, turns=3)
    master(j, "PAUSE", "POSITION F1901M",
           "France: A Par, A Bur; centers Par Bre Mar Spa Por Bel Hol Mun Ber Kie Den Lon Edi "
           "Lvp Ven Rom Nap Tun",
           "Austria: A Bud; centers Vie Bud Tri",
           "ENDPOSITION", "RESUME")
    results = process(j)
    assert "The game is over" not in results
    assert game_row(j).state == "active" and game_row(j).phase == "W1901A"


# --------------------------------------------------------------------------- draws

def votes(j: Judge) -> list[tuple[str, str]]:
    with j.store.transaction() as s:
        return [(v.power, v.kind) for v in s.scalars(select(DrawVote))]


def test_draw_votes_are_off_until_the_master_switches_them_on(judge_in_process: Judge
                                                               ) -> None:
    j = judge_in_process
    a = formal_game(j, turns=2)
    off = ("Error: war1901 is a Formal Diplomacy game: draw and concession votes are off (it "
           "ends on victory points after the Fall of 1902); the master may switch them on "
           "with SET DRAWS ON.")
    reply = send(j, a, "FRANCE", "SET DRAW", "SET CONCEDE Germany", "SET DRAWS ON")
    assert reply.count(off) == 2
    assert "Error: SET DRAWS is not for France in war1901." in reply
    assert votes(j) == []
    reply = master(j, "SET DRAWS", "SET DRAWS MAYBE", "SET DRAWS OFF", "SET DRAWS ON")
    assert reply.count("Error: SET DRAWS takes ON or OFF.") == 2
    assert "Draw votes in war1901 are already off; nothing changed." in reply
    assert "Draw votes in war1901 are now on." in reply
    (note,) = j.last_broadcasts
    assert note.subject == "JUDGE:war1901 - S1901M Draws: on"
    assert "the game may now also end by agreement (GET DRAWS)" in note.body
    assert formal_doc(j)["draws"] is True
    reply = send(j, a, "FRANCE", "SET DRAW", "LIST")
    assert "France accepts a draw of all survivors" in reply
    assert "Draws: DIAS (GET DRAWS)" in reply
    assert votes(j) == [("FRANCE", "draw")]
    reply = master(j, "SET DRAWS OFF")
    assert "Draw votes in war1901 are now off." in reply
    assert "Every vote cast so far has been cleared." in j.last_broadcasts[0].body
    assert votes(j) == [] and formal_doc(j)["draws"] is False
    # the wars and points were untouched by the switch
    assert formal_doc(j)["formal"]["turns"] == 2


def test_with_draws_on_all_survivors_can_end_a_formal_game_by_agreement(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j)
    master(j, "SET DRAWS ON", "PAUSE", "POSITION S1903M",
           "France: A Par; centers Par Bre Mar",
           "Germany: A Mun; centers Mun Ber Kie",
           "ENDPOSITION", "RESUME")
    send(j, a, "FRANCE", "SET DRAW")
    reply = send(j, a, "GERMANY", "SET DRAW")
    assert "The vote has passed: war1901 ends in a draw of France, Germany." in reply
    assert result(j).result == "draw"


def test_history_shows_the_formal_report_of_each_phase(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = formal_game(j)
    send(j, a, "ENGLAND", "DWO France")
    process(j)
    reply = j.mail("someone@example.org", f"HISTORY {G}").body
    assert "Spring of 1901. Movement results for S1901M:" in reply
    assert "  Declarations of war:\n    England declares war on France." in reply
