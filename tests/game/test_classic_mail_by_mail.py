"""The mail a player reads follows the classic Judge, by mail through the real pipeline and
store: reply subjects and headers after SIGNON, the results mail line for line, the board
shown in results and LIST, and "processed" worded the same whatever processed the phase.
"""

from __future__ import annotations

import re
from datetime import timezone

from sqlalchemy import select

from gamekit import Judge, judge_in_process, signon, start_full_game  # noqa: F401
from judge.mail.game_mail import judge_date
from judge.store.models import Game

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
    assert reply.subject == f"[Error Flag] Re: JUDGE:{G} - S1901M orders"
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
    assert reply.subject == "[Error Flag] Re: hello"
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


def test_every_deadline_header_has_seconds(judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j, G)
    j.mail("master@example.org", f"SIGNON M{G} mpw\nPROCESS")
    (results,) = [m for m in j.last_broadcasts if m.subject.endswith("Results")]
    assert re.search(rf"^:: Deadline: F1901M {HEADER_DATE}$", results.body, re.M), results.body
    j.mail("master@example.org", f"SIGNON M{G} mpw\nSET GRACE 12h")
    (change,) = [m for m in j.last_broadcasts if m.subject.endswith("Parameter Change")]
    assert re.search(rf"^:: Deadline: F1901M {HEADER_DATE}$", change.body, re.M), change.body
