"""The mail a player reads follows the classic Judge, by mail through the real pipeline and
store: reply subjects and headers after SIGNON, the results mail line for line, the board
shown in results and LIST, and "processed" worded the same whatever processed the phase.
"""

from __future__ import annotations

import json
import re
from datetime import timezone

from sqlalchemy import select

from gamekit import Judge, signon, start_full_game
from judge.mail.writing.game_mail import judge_date
from judge.mail.writing.times import written
from judge.store.models import Game, OutboxMessage, PhaseSnapshot

G = "war1901"
UTC = timezone.utc
HEADER_DATE = r"[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d{4} \d\d:\d\d:\d\d \+0000"


def game_row(j: Judge) -> Game:
    with j.store.transaction() as s:
        game = s.scalars(select(Game).where(Game.name_key == G)).one()
        s.expunge(game)
        return game


def header(j: Judge, phase: str) -> str:
    deadline = game_row(j).deadline.replace(tzinfo=UTC)
    return (f":: Judge: JUDGE  Game: {G}  Variant: Standard\n"
            f":: Deadline: {phase} {judge_date(deadline)}\n")


# --------------------------------------------------------------------------- the reply

def test_a_reply_after_signon_names_the_game_and_phase_like_the_classic_judge(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j, G)
    france = players["FRANCE"]
    reply = j.mail(france, f"{signon(j, 'FRANCE')}\nA Par-Bur", subject="orders")
    assert reply.subject == f"Re: JUDGE:{G} - S1901M orders"
    assert reply.body.startswith(header(j, "S1901M")), reply.body
    assert re.search(rf"^:: Deadline: S1901M {HEADER_DATE}$", reply.body, re.M), reply.body

    # a refused line flags the subject; a reply to the reply does not pile prefixes up
    reply = j.mail(france, f"{signon(j, 'FRANCE')}\nA Par-Xyz", subject=reply.subject)
    assert reply.subject == f"Re: [Error Flag] JUDGE:{G} - S1901M orders"
    reply = j.mail(france, f"{signon(j, 'FRANCE')}\nA Par-Gas", subject=reply.subject)
    assert reply.subject == f"Re: JUDGE:{G} - S1901M orders"
    reply = j.mail(france, f"{signon(j, 'FRANCE')}\nA Par H",
                   subject=f"Re: Re: JUDGE:{G} - S1901M Re: JUDGE:{G} - S1901M orders")
    assert reply.subject == f"Re: JUDGE:{G} - S1901M orders"
    # an empty subject of their own: the game and phase alone
    reply = j.mail(france, f"{signon(j, 'FRANCE')}\nA Par H", subject="")
    assert reply.subject == f"Re: JUDGE:{G} - S1901M"


def test_a_reply_without_signon_keeps_the_plain_subject_and_header(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j, G)
    reply = j.mail("stranger@example.org", "LIST", subject="hello")
    assert reply.subject == "Re: hello"
    assert reply.body.startswith(":: Judge: JUDGE\n\n"), reply.body
    # a failed SIGNON is refused: flagged, and no game is named
    reply = j.mail("stranger@example.org", f"SIGNON F{G} wrong", subject="Re: hello")
    assert reply.subject == "Re: [Error Flag] hello"
    assert reply.body.startswith(":: Judge: JUDGE\n\n"), reply.body


def test_the_phase_in_the_subject_is_the_one_the_game_is_at_after_the_mail(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j, G)
    reply = j.mail("master@example.org", f"SIGNON M{G} mpw\nPROCESS", subject="go")
    assert reply.subject == f"Re: JUDGE:{G} - F1901M go"
    assert reply.body.startswith(header(j, "F1901M")), reply.body
    # a paused game has no deadline: no Deadline line
    reply = j.mail("master@example.org", f"SIGNON M{G} mpw\nPAUSE", subject="stop")
    assert reply.subject == f"Re: JUDGE:{G} - F1901M stop"
    assert reply.body.startswith(f":: Judge: JUDGE  Game: {G}  Variant: Standard\n\n")


# What mail programs write before a subject when answering or forwarding, in many languages.
FOREIGN_PREFIXES = ["AW:", "WG:", "SV:", "VS:", "Rif:", "R:", "Antw:", "Antwort:", "RES:", "TR:",
                    "Fwd:", "Fw:", "Réf.", "Réf. :", "Odp:", "YNT:", "ATB:", "ΑΠ:", "回复：",
                    "Re[2]:", "Re(3):", "RE :", "[club]"]


def test_replies_in_other_languages_are_answered_re_once(judge_in_process: Judge) -> None:
    j = judge_in_process
    for prefix in FOREIGN_PREFIXES:
        reply = j.mail("stranger@example.org", "VERSION", subject=f"{prefix} hello")
        assert reply.subject == "Re: hello", prefix
    # repeated and mixed, before and after the judge's own, on a reply to a reply
    players = start_full_game(j, G)
    reply = j.mail(players["FRANCE"], f"{signon(j, 'FRANCE')}\nA Par-Xyz",
                   subject=f"AW: [club] SV: Re: [Error Flag] JUDGE:{G} - S1901M Fwd: orders")
    assert reply.subject == f"Re: [Error Flag] JUDGE:{G} - S1901M orders"


def subject_lines(j: Judge) -> list[str]:
    """The Subject header of the last mail queued, line by line as written."""
    with j.store.transaction() as s:
        raw = s.scalars(select(OutboxMessage.raw).order_by(OutboxMessage.id.desc())).first()
    assert raw is not None
    head = raw.split(b"\r\n\r\n")[0].decode("ascii")
    subject = re.search(r"^Subject:[^\r\n]*(?:\r\n [^\r\n]*)*", head, re.M)
    assert subject is not None
    return subject.group(0).split("\r\n")


def test_a_long_subject_is_folded_after_a_word(judge_in_process: Judge) -> None:
    j = judge_in_process
    players = start_full_game(j, G)
    # the email package wrote "Subject:" alone on a line, and the subject on the next
    own = "my orders for the spring campaign"
    reply = j.mail(players["FRANCE"], f"{signon(j, 'FRANCE')}\nA Par-Xyz", subject=own)
    assert reply.subject == f"Re: [Error Flag] JUDGE:{G} - S1901M {own}"
    assert subject_lines(j) == [
        f"Subject: Re: [Error Flag] JUDGE:{G} - S1901M my orders for the spring", " campaign"]
    # and "Re:" alone at the end of the first line
    own = "x" * 66 + " orders"
    reply = j.mail("stranger@example.org", "VERSION", subject=own)
    assert reply.subject == f"Re: {own}"
    assert subject_lines(j) == [f"Subject: Re: {'x' * 66}", " orders"]


def test_every_deadline_header_has_seconds(judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j, G)
    j.mail("master@example.org", f"SIGNON M{G} mpw\nPROCESS")
    (results,) = [m for m in j.last_broadcasts if m.subject.endswith("Results")]
    assert re.search(rf"^:: Deadline: F1901M {HEADER_DATE}$", results.body, re.M), results.body
    j.mail("master@example.org", f"SIGNON M{G} mpw\nSET GRACE 12h")
    (change,) = [m for m in j.last_broadcasts if m.subject.endswith("Parameter Change")]
    assert re.search(rf"^:: Deadline: F1901M {HEADER_DATE}$", change.body, re.M), change.body


# --------------------------------------------------------------------------- results and board

BOARD = ("POSITION F1901M", "AUSTRIA: A BOH, A VIE, F TRI", "GERMANY: A MUN, A SIL, F KIE",
         "FRANCE: F MAO, A PAR", "ENGLAND: F LON", "ENDPOSITION")


def master(j: Judge, *lines: str) -> str:
    return j.mail("master@example.org", "\n".join([f"SIGNON M{G} mpw", *lines])).body


def results_of(j: Judge, phase: str) -> str:
    """The text of the results mail of ``phase`` (the one copy every player gets), after the
    ``::`` header lines."""
    (mail,) = {m.body for m in j.last_broadcasts if m.subject == f"JUDGE:{G} - {phase} Results"}
    head, _, text = mail.partition("\n\n")
    assert head.startswith(":: Judge: JUDGE"), mail
    return text


def fall_with_a_bounce_and_a_dislodgement(j: Judge) -> dict[str, str]:
    players = start_full_game(j, G)
    assert "Error" not in master(j, "PAUSE", *BOARD, "RESUME")
    j.mail(players["GERMANY"], f"{signon(j, 'GERMANY')}\nA Mun-Boh\nA Sil S A Mun-Boh\nF Kie H")
    j.mail(players["FRANCE"], f"{signon(j, 'FRANCE')}\nF Mao-Spa/sc\nA Par-Bur")
    master(j, "PROCESS")
    return players


def deadline_line(j: Judge) -> str:
    return (f"The deadline for orders will be "
            f"{written(game_row(j).deadline.replace(tzinfo=UTC))}.\n")


def test_movement_results_follow_the_classic_judge_and_show_the_board(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    fall_with_a_bounce_and_a_dislodgement(j)
    assert results_of(j, "F1901M") == """\
Movement results for Fall of 1901.  (war1901.001)

Austria: Army Bohemia HOLD.  (*dislodged, civil disorder*)
Austria: Fleet Trieste HOLD.  (*civil disorder*)
Austria: Army Vienna HOLD.  (*civil disorder*)

England: Fleet London HOLD.  (*civil disorder*)

France: Fleet Mid-Atlantic Ocean -> Spain (south coast).
France: Army Paris -> Burgundy.

Germany: Fleet Kiel HOLD.
Germany: Army Munich -> Bohemia.
Germany: Army Silesia SUPPORT Army Munich -> Bohemia.

The following units were dislodged:

The Austrian Army in Bohemia can retreat to Galicia or Tyrolia.

Unit positions after F1901M:

Austria: Army Bohemia.  (*dislodged*)
Austria: Fleet Trieste.
Austria: Army Vienna.

England: Fleet London.

France: Army Burgundy.
France: Fleet Spain (south coast).

Germany: Army Bohemia.
Germany: Fleet Kiel.
Germany: Army Silesia.

The next phase of 'war1901' will be Retreats for Fall of 1901.
""" + deadline_line(j)


def test_retreat_and_adjustment_results_mark_what_the_judge_filled_in(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    players = fall_with_a_bounce_and_a_dislodgement(j)
    reply = j.mail(players["AUSTRIA"], f"{signon(j, 'AUSTRIA')}\nA Boh-Tyr")
    assert "F1901R has been processed; war1901 is now at W1901A.\n" in reply.body
    assert results_of(j, "F1901R") == """\
Retreat results for Fall of 1901.  (war1901.002)

Austria: Army Bohemia -> Tyrolia.

Ownership of supply centers:

Austria:   Trieste, Vienna.
England:   London.
France:    Spain.
Germany:   Kiel.

Austria:     2 Supply centers,  3 Units:  Removes  1 unit.
England:     1 Supply center,  1 Unit:  Builds   0 units.
France:      1 Supply center,  2 Units:  Removes  1 unit.
Germany:     1 Supply center,  3 Units:  Removes  2 units.

Unit positions after F1901R:

Austria: Fleet Trieste.
Austria: Army Tyrolia.
Austria: Army Vienna.

England: Fleet London.

France: Army Burgundy.
France: Fleet Spain (south coast).

Germany: Army Bohemia.
Germany: Fleet Kiel.
Germany: Army Silesia.

The next phase of 'war1901' will be Adjustments for Winter of 1901.
""" + deadline_line(j)
    # Germany orders one of its two removals, Austria and France none: the master processes
    j.mail(players["GERMANY"], f"{signon(j, 'GERMANY')}\nREMOVE A BOH")
    reply = master(j, "PROCESS")
    assert "W1901A has been processed; war1901 is now at S1902M.\n" in reply
    assert results_of(j, "W1901A") == """\
Adjustment results for Winter of 1901.  (war1901.003)

Austria: Removes the army in Tyrolia.  (*civil disorder*)

France: Removes the army in Burgundy.  (*civil disorder*)

Germany: Removes the army in Bohemia.
Germany: Removes the army in Silesia.  (*default*)

Ownership of supply centers:

Austria:   Trieste, Vienna.
England:   London.
France:    Spain.
Germany:   Kiel.

Unit positions after W1901A:

Austria: Fleet Trieste.
Austria: Army Vienna.

England: Fleet London.

France: Fleet Spain (south coast).

Germany: Fleet Kiel.

The next phase of 'war1901' will be Movement for Spring of 1902.
""" + deadline_line(j)


def test_history_words_the_phases_as_the_results_did(judge_in_process: Judge) -> None:
    j = judge_in_process
    fall_with_a_bounce_and_a_dislodgement(j)
    text = j.mail("stranger@example.org", f"HISTORY {G}").body
    assert ("  Austria: Army Bohemia HOLD.  (*dislodged, civil disorder*)\n" in text
            and "  The Austrian Army in Bohemia can retreat to Galicia or Tyrolia.\n" in text
            and "  France: Fleet Mid-Atlantic Ocean -> Spain (south coast).\n" in text), text


def test_list_shows_the_board_open_seats_and_press(judge_in_process: Judge) -> None:
    j = judge_in_process
    players = fall_with_a_bounce_and_a_dislodgement(j)
    j.mail(players["ENGLAND"], f"{signon(j, 'ENGLAND')}\nRESIGN")
    master(j, "SET NOGREY")
    text = j.mail("stranger@example.org", f"LIST {G}").body
    deadline = written(game_row(j).deadline.replace(tzinfo=UTC))
    assert f"Phase: F1901R   Deadline: {deadline}\n" in text, text
    assert "Open seats: England.\n" in text, text
    assert """
Unit positions at F1901R:

Austria: Army Bohemia.  (*dislodged*)
Austria: Fleet Trieste.
Austria: Army Vienna.

England: Fleet London.

France: Army Burgundy.
France: Fleet Spain (south coast).

Germany: Army Bohemia.
Germany: Fleet Kiel.
Germany: Army Silesia.

Rules: none
Press: private and broadcast; grey press refused.
Observers write only to the master (SET OBSERVER PRESS).
""" in text, text
    master(j, "SET OBSERVER PRESS", "SET RULES PUBLIC_PRESS")
    text = j.mail("stranger@example.org", f"LIST {G}").body
    assert ("Press: broadcasts only, no private press (PUBLIC_PRESS); grey press refused.\n"
            "Observers may broadcast (SET NO OBSERVER PRESS).\n") in text, text
    master(j, "SET RULES NO_PRESS")
    text = j.mail("stranger@example.org", f"LIST {G}").body
    assert "Press: only to and from the master (NO_PRESS).\nAddresses:" in text, text


def test_list_of_a_forming_game_counts_the_open_seats(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail("master@example.org", f"CREATE {G} mpw")
    j.mail("player0@example.org", f"JOIN {G} pw0")
    text = j.mail("stranger@example.org", f"LIST {G}").body
    assert "Players joined: 1 of 7\nOpen seats: 6.\n" in text, text
    assert "Unit positions" not in text


def test_history_still_reads_phases_stored_as_lines_of_text(judge_in_process: Judge) -> None:
    """Phases processed before the facts were data kept their lines ready-worded."""
    j = judge_in_process
    fall_with_a_bounce_and_a_dislodgement(j)
    with j.store.transaction() as s:
        snap = s.scalars(select(PhaseSnapshot)).one()
        facts = json.loads(snap.results)
        for key in ("lines", "retreats", "units", "civil_disorder", "number"):
            del facts[key]
        facts["orders"] = ["Austria: Army Bohemia HOLD.  (*dislodged*)"]
        facts["dislodged"] = ["The Austrian Army Bohemia can retreat to Galicia or Tyrolia."]
        snap.results = json.dumps(facts)
    text = j.mail("stranger@example.org", f"HISTORY {G}").body
    assert ("Fall of 1901. Movement results for F1901M:\n"
            "  Austria: Army Bohemia HOLD.  (*dislodged*)\n"
            "  The Austrian Army Bohemia can retreat to Galicia or Tyrolia.\n") in text, text
