"""Draws and concessions by mail through the real pipeline and store (no SMTP): votes expire
at phase end, SET DIAS / SET NODIAS clear them, RESUME after a draw, every refusal is clear,
the modes PROPOSE_DIAS and NO_DIAS, votes are secret, and the game result record is written
for a solo, a draw, a concession and the master's TERMINATE."""

from __future__ import annotations

import json

from sqlalchemy import select

from gamekit import Judge, observe, signon, start_full_game
from judge.store.models import DrawVote, GameResult

MASTER = "master@example.org"
G = "war1901"
M = f"SIGNON M{G} mpw"

# Austria, England and France are the only survivors.
THREE = ("Austria: A Vie; centers Vie Bud Tri\n"
         "England: F Lon; centers Lon Edi Lvp\n"
         "France: A Par; centers Par Bre Mar\n")


def three_survivors(j: Judge, extra: str = "", phase: str = "S1905M") -> dict[str, str]:
    """A started game whose master has set up a board where only A, E and F survive."""
    assigned = start_full_game(j, G, extra)
    reply = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION {phase}\n{THREE}ENDPOSITION\nRESUME\n")
    assert f"{G} is running again, at {phase}." in reply.body, reply.body
    return assigned


def send(j: Judge, assigned: dict[str, str], power: str, *lines: str) -> str:
    return j.mail(assigned[power], "\n".join([signon(j, power), *lines])).body


def subjects(j: Judge) -> list[str]:
    return sorted({m.subject for m in j.last_broadcasts})


def votes(j: Judge) -> list[tuple[str, str, str]]:
    with j.store.transaction() as s:
        return [(v.power, v.kind, v.value) for v in s.scalars(select(DrawVote))]


def result(j: Judge) -> dict | None:
    with j.store.transaction() as s:
        row = s.scalars(select(GameResult)).first()
        if row is None:
            return None
        return dict(result=row.result, members=row.members, phase=row.phase, year=row.year,
                    centers=json.loads(row.centers), players=json.loads(row.players),
                    eliminated=json.loads(row.eliminated))


# --------------------------------------------------------------------------- expiry, clearing

def test_votes_expire_when_the_phase_is_processed(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j)
    assert "accepts a draw of all survivors" in send(j, a, "AUSTRIA", "SET DRAW")
    send(j, a, "ENGLAND", "SET DRAW")
    assert len(votes(j)) == 2
    reply = j.mail(MASTER, f"{M}\nPROCESS")
    assert "S1905M has been processed; war1901 is now at F1905M." in reply.body
    assert votes(j) == []
    reply = send(j, a, "FRANCE", "SET DRAW")
    assert "The vote lasts until F1905M is processed." in reply
    assert not [s for s in subjects(j) if "Draw" in s]
    # all three again in the new phase: the draw passes at once
    send(j, a, "AUSTRIA", "SET DRAW")
    reply = send(j, a, "ENGLAND", "SET DRAW")
    assert "The vote has passed: war1901 ends in a draw of Austria, England, France." in reply
    assert subjects(j) == ["JUDGE:war1901 - F1905M Draw Declared: AEF"]
    assert result(j)["members"] == "AUSTRIA ENGLAND FRANCE"


def test_set_nodias_and_set_dias_are_announced_and_clear_every_vote(judge_in_process: Judge
                                                                      ) -> None:
    j = judge_in_process
    a = three_survivors(j)
    send(j, a, "AUSTRIA", "SET DRAW")
    send(j, a, "ENGLAND", "SET CONCEDE F")
    reply = j.mail(MASTER, f"{M}\nSET NODIAS")
    assert "war1901 is now NoDIAS; every vote was cleared." in reply.body
    (note,) = [m for m in j.last_broadcasts if MASTER in m.to]
    assert note.subject == "JUDGE:war1901 - S1905M Draws: NoDIAS"
    assert "Every vote cast so far has been cleared." in note.body
    assert {r for m in j.last_broadcasts for r in m.to} == {MASTER, *a.values()}
    assert votes(j) == []
    send(j, a, "AUSTRIA", "SET DRAW AEF")
    reply = j.mail(MASTER, f"{M}\nSET NODIAS\nSET DIAS")
    assert "war1901 is already NoDIAS; nothing changed." in reply.body
    assert "war1901 is now DIAS; every vote was cleared." in reply.body
    assert subjects(j) == ["JUDGE:war1901 - S1905M Draws: DIAS"]
    assert votes(j) == []
    # England and France alone cannot end it: Austria's vote is gone
    send(j, a, "ENGLAND", "SET DRAW")
    send(j, a, "FRANCE", "SET DRAW")
    assert not [s for s in subjects(j) if "Draw" in s]


def test_resume_after_a_draw(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j)
    for power in ("AUSTRIA", "ENGLAND", "FRANCE"):
        send(j, a, power, "SET DRAW")
    assert subjects(j) == ["JUDGE:war1901 - S1905M Draw Declared: AEF"]
    reply = send(j, a, "AUSTRIA", "A Vie-Bud", "SET NODRAW")
    assert "war1901 is finished: no orders are taken." in reply
    reply = j.mail(MASTER, f"{M}\nRESUME\nLIST")
    assert "war1901 is running again, at S1905M." in reply.body
    assert "State: active" in reply.body and "No draw vote for S1905M." in reply.body
    assert "JUDGE:war1901 - S1905M Resumed" in subjects(j)
    assert result(j) is None and votes(j) == []
    # the game plays on, and votes work again
    reply = j.mail(MASTER, f"{M}\nPROCESS")
    assert "now at F1905M" in reply.body
    reply = j.mail(MASTER, f"{M}\nRESUME")
    assert "RESUME cannot be used while the game is active" in reply.body


def test_concession_and_its_record(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j)
    send(j, a, "ENGLAND", "SET CONCEDE A")
    reply = send(j, a, "AUSTRIA", "SET CONCEDE E")
    assert "Austria concedes the game to England." in reply
    reply = send(j, a, "FRANCE", "SET CONCEDE Austria")
    assert "The vote lasts" in reply  # Austria conceded to England: nobody wins
    reply = send(j, a, "AUSTRIA", "SET NOCONCEDE")
    assert "war1901 ends in a concession to Austria" in reply
    (mail,) = [m for m in j.last_broadcasts if MASTER in m.to]
    assert mail.subject == "JUDGE:war1901 - S1905M Concession: A"
    assert "it has been conceded to Austria" in mail.body
    r = result(j)
    assert r["result"] == "concession" and r["members"] == "AUSTRIA" and r["year"] == 1905
    assert r["centers"]["AUSTRIA"] == 3 and r["centers"]["GERMANY"] == 0
    assert r["players"]["AUSTRIA"] == a["AUSTRIA"]


# --------------------------------------------------------------------------- refusals

def test_only_survivors_players_vote(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j)
    observe(j, "watcher@example.org", G)
    reply = j.mail("watcher@example.org", f"SIGNON O{G} opw\nSET DRAW")
    assert ("Error: only the surviving powers vote on draws and concessions; an observer of "
            "war1901 cannot send SET DRAW.") in reply.body
    reply = j.mail(MASTER, f"{M}\nSET DRAW\nBECOME Austria\nSET CONCEDE A")
    assert reply.body.count("Error: only the surviving powers vote on draws and concessions;"
                            " the master of war1901 does not vote, even after BECOME") == 2
    reply = send(j, a, "GERMANY", "SET DRAW")
    assert "Error: Germany has been eliminated from war1901: only survivors vote." in reply
    reply = send(j, a, "FRANCE", "SET NODIAS")
    assert "Error: SET NODIAS is not for France in war1901." in reply
    assert votes(j) == []


def test_wrong_mode_is_refused_naming_the_games_mode(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j)
    reply = send(j, a, "FRANCE", "VOTE YES", "PROPOSE DIAS", "VOTE 2", "SET DRAW AEF")
    assert ("Error: VOTE YES is not used in war1901, which votes by DIAS: its votes are "
            "SET DRAW, SET NODRAW, SET CONCEDE <power> and SET NOCONCEDE") in reply
    assert "Error: PROPOSE is not used in war1901, which votes by DIAS" in reply
    assert "Error: VOTE 2 is not used in war1901, which votes by DIAS" in reply
    assert "war1901 is a DIAS game: a draw includes every survivor, so SET DRAW takes no" \
        in reply


def test_bad_lists_keep_the_previous_vote(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j)
    j.mail(MASTER, f"{M}\nSET NODIAS")
    reply = send(j, a, "FRANCE", "SET DRAW A,E", "SET DRAW", "SET DRAW AEX", "SET DRAW AEG",
                 "SET DRAW AEA", "SET CONCEDE G", "LIST")
    assert "France votes SET DRAW Austria, England" in reply
    assert "Error: war1901 is a NoDIAS game: SET DRAW needs the list of powers" in reply
    assert 'Error: "X" (in "AEX") is not a power initial' in reply
    assert "Error: Germany has been eliminated and cannot be in a draw; your previous vote" \
        in reply
    assert "Error: Austria is named twice in the list; your previous vote stands." in reply
    assert "Draw votes of S1905M:\n  France: SET DRAW Austria, England\n" in reply
    assert votes(j) == [("FRANCE", "draw", "AUSTRIA ENGLAND")]


def test_votes_are_secret(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j)
    send(j, a, "AUSTRIA", "SET DRAW")
    send(j, a, "ENGLAND", "SET CONCEDE France")
    reply = send(j, a, "ENGLAND", "LIST")
    # the votes show England's own only (the board lists every power's units)
    assert "England: SET CONCEDE France" in reply and "Austria: SET" not in reply
    reply = send(j, a, "FRANCE", "LIST")
    assert "No draw vote for S1905M." in reply and "SET DRAW" not in reply
    reply = j.mail(MASTER, f"{M}\nLIST")
    assert "  Austria: SET DRAW\n  England: SET CONCEDE France\n" in reply.body
    reply = j.mail("someone@example.org", f"LIST {G}")
    assert "Austria: SET DRAW" not in reply.body and "Draws: DIAS" in reply.body


# --------------------------------------------------------------------------- DPjudge modes

def test_propose_dias(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j, "RULES PROPOSE_DIAS")
    reply = send(j, a, "AUSTRIA", "SET DRAW", "VOTE YES", "PROPOSE DIAS")
    assert "Error: SET DRAW is not used in war1901, which votes by PROPOSE_DIAS" in reply
    assert "Error: there is no proposal to answer" in reply
    assert "You propose a draw of all survivors (PROPOSE DIAS)" in reply
    (note,) = [m for m in j.last_broadcasts if MASTER in m.to]
    assert note.subject == "JUDGE:war1901 - S1905M Proposal" and "Austria" not in note.body
    reply = send(j, a, "ENGLAND", "PROPOSE CONCEDE E", "VOTE YES")
    assert "Error: a proposal is already waiting for answers" in reply
    assert "England answers YES" in reply
    reply = send(j, a, "FRANCE", "VOTE NO")
    assert "the proposal a draw of all survivors (PROPOSE DIAS) is rejected" in reply
    assert subjects(j) == ["JUDGE:war1901 - S1905M Proposal Rejected"]
    reply = send(j, a, "FRANCE", "PROPOSE CONCEDE F", "VOTE YES")
    assert "Error: you made the proposal: it counts as your YES." in reply
    send(j, a, "AUSTRIA", "VOTE YES")
    reply = send(j, a, "ENGLAND", "VOTE YES")
    assert "war1901 ends in a concession to France" in reply
    assert "JUDGE:war1901 - S1905M Concession: F" in subjects(j)
    assert result(j)["result"] == "concession"


def test_no_dias(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = three_survivors(j, "RULES NO_DIAS")
    reply = send(j, a, "AUSTRIA", "VOTE YES", "VOTE 0", "VOTE 2")
    assert "Error: war1901 votes by NO_DIAS: there are no proposals" in reply
    assert "Error: VOTE 0 is not a draw size" in reply
    assert "Austria votes 2: a draw of at most 2 powers that includes you." in reply
    send(j, a, "ENGLAND", "VOTE 3")
    reply = send(j, a, "FRANCE", "VOTE LOSS")
    assert "war1901 ends in a draw of Austria, England." in reply
    assert "JUDGE:war1901 - S1905M Draw Declared: AE" in subjects(j)
    reply = j.mail(MASTER, f"{M}\nSET NODIAS")
    assert "Error: war1901 is over." in reply.body


# --------------------------------------------------------------------------- result records

def test_result_of_a_solo_records_eliminations(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = start_full_game(j, G)
    reply = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION F1903M\n"
                   "France: A Tyr, A Par; centers Par Bre Mar Spa Por Bel Hol Mun Ber Kie "
                   "Den Lon Edi Lvp Ven Rom Nap\n"
                   "Austria: ; centers Vie\n"
                   "Russia: A Mos; centers Mos War Sev Stp\n"
                   "ENDPOSITION\nRESUME\n")
    assert "running again" in reply.body
    send(j, a, "FRANCE", "A Tyr-Vie", "A Par H")
    reply = j.mail(MASTER, f"{M}\nPROCESS")
    assert "JUDGE:war1901 - F1903M Victory: F" in subjects(j)
    r = result(j)
    assert r["result"] == "solo" and r["members"] == "FRANCE"
    assert (r["phase"], r["year"]) == ("F1903M", 1903)
    assert r["centers"]["FRANCE"] == 18
    assert r["eliminated"]["AUSTRIA"] == "F1903M"  # its last unit and centre went this phase
    assert r["eliminated"]["RUSSIA"] is None and r["eliminated"]["FRANCE"] is None
    # ROLLBACK reopens the game: the result goes
    j.mail(MASTER, f"{M}\nROLLBACK")
    assert result(j) is None


def test_result_of_terminate(judge_in_process: Judge) -> None:
    j = judge_in_process
    three_survivors(j)
    reply = j.mail(MASTER, f"{M}\nTERMINATE\nRESUME")
    assert "war1901 is terminated." in reply.body
    assert "RESUME cannot be used while the game is terminated" in reply.body
    r = result(j)
    assert r["result"] == "ended" and r["members"] == "" and r["phase"] == "S1905M"
    assert r["centers"]["ENGLAND"] == 3


def test_a_vote_with_a_word_too_many_is_refused_and_changes_nothing(judge_in_process: Judge
                                                                     ) -> None:
    j = judge_in_process
    a = three_survivors(j)
    reply = send(j, a, "AUSTRIA", "SET NODRAW please")
    assert "Error: SET NODRAW takes nothing after it." in reply
    reply = send(j, a, "AUSTRIA", "VOTE YES NO")
    assert "Error: VOTE takes one word: YES or NO (PROPOSE_DIAS games), SOLO, LOSS or a " \
           "number (NO_DIAS games)." in reply
    assert votes(j) == []
