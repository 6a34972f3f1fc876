"""Press by mail through the real pipeline and store (no SMTP): private press, broadcasts,
press to and from the master, grey press, observers, NO_PRESS and PUBLIC_PRESS games, the
master's press settings, and every refusal -- which sends nothing and archives nothing."""

from __future__ import annotations

import email
import json
from email import policy

import pytest
from sqlalchemy import select

from gamekit import POWERS, Judge, Sent, observe, signon, start_full_game
from judge.core.errors import InputError
from judge.service.processing import position_of
from judge.store.models import Game, OutboxMessage, Press

MASTER = "master@example.org"
OBSERVER = "watcher@example.org"
G = "war1901"
M = f"SIGNON M{G} mpw"
O = f"SIGNON O{G} opw"
HEADER = f":: Judge: JUDGE  Game: {G}  Variant: Standard\n:: Deadline: S1901M "


def send(j: Judge, a: dict[str, str], power: str, *lines: str) -> str:
    return j.mail(a[power], "\n".join([signon(j, power), *lines])).body


def rows(j: Judge) -> list[tuple[str, str, bool, bool, str]]:
    with j.store.transaction() as s:
        return [(p.sender, p.recipients, p.broadcast, p.grey, p.body)
                for p in s.scalars(select(Press).order_by(Press.id))]


def copy_to(j: Judge, address: str) -> Sent:
    (found,) = [m for m in j.last_broadcasts if address in m.to]
    return found


def recipients(j: Judge) -> list[str]:
    return sorted(a for m in j.last_broadcasts for a in m.to)


def game_with_observer(j: Judge, rules: str = "") -> dict[str, str]:
    a = start_full_game(j, G, f"RULES {rules}" if rules else "")
    assert "You have asked to observe" in observe(j, OBSERVER, G).body
    return a


# --------------------------------------------------------------------------- private press

def test_private_press_goes_to_each_recipient_alone_with_the_game_header(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    reply = send(j, a, "FRANCE", "A Par-Bur", "PRESS TO England Germany",
                 "Shall we keep the Channel empty?", "", "  Yours, Paris", "ENDPRESS",
                 "F Bre-Mao")
    assert "Accepted: A PAR - BUR" in reply and "Accepted: F BRE - MAO" in reply
    assert ("Press of 3 lines sent to England and Germany. The master gets a copy, as of "
            "all press.") in reply
    assert recipients(j) == sorted([a["ENGLAND"], a["GERMANY"], MASTER])
    readers = copy_to(j, a["ENGLAND"])
    assert sorted(readers.to) == sorted([a["ENGLAND"], a["GERMANY"]])  # one copy each
    assert readers.subject == f"JUDGE:{G} - S1901M Press from France"
    assert readers.body.startswith(HEADER)
    assert ("Press from France to England and Germany, during S1901M:\n\n"
            "| Shall we keep the Channel empty?\n|\n|   Yours, Paris\n\nEnd of press.\n"
            ) in readers.body
    master = copy_to(j, MASTER)
    assert master.subject == readers.subject
    assert "(Your copy as the master of war1901: the master sees all press.)" in master.body
    assert rows(j) == [("FRANCE", "ENGLAND GERMANY", False, False,
                        "Shall we keep the Channel empty?\n\n  Yours, Paris")]


def test_every_press_mail_is_a_copy_of_its_own_naming_nobody_else(judge_in_process: Judge
                                                                   ) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    send(j, a, "FRANCE", "PRESS TO EG", "private", "ENDPRESS", "BROADCAST", "public",
         "ENDPRESS")
    with j.store.transaction() as s:
        press = [r for r in s.scalars(select(OutboxMessage)) if " from France" in r.subject]
        assert len(press) == 3 + 8  # E, G, master; then 6 players, the observer, the master
        everyone = {*a.values(), OBSERVER, MASTER}
        for r in press:
            (address,) = r.recipients.split(",")
            msg = email.message_from_bytes(r.raw, policy=policy.default)
            assert str(msg["To"]) == address and msg["Cc"] is None and msg["Bcc"] is None
            raw = r.raw.decode()
            assert not [other for other in everyone - {address} if other in raw], address
            assert msg["Auto-Submitted"] == "auto-generated"


def test_powers_by_initials_adjectives_and_names(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    assert "sent to England and Germany." in send(j, a, "FRANCE", "PRESS TO eg", "x",
                                                  "ENDPRESS")
    reply = send(j, a, "FRANCE", "PRESS TO Italian, R turkey", "x", "ENDPRESS")
    assert "sent to Italy, Russia and Turkey." in reply
    assert recipients(j) == sorted([a["ITALY"], a["RUSSIA"], a["TURKEY"], MASTER])


def test_press_without_to_and_broadcast_go_to_everyone_but_the_sender(judge_in_process: Judge
                                                                       ) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    everyone_else = sorted([*(a[p] for p in POWERS if p != "FRANCE"), OBSERVER, MASTER])
    for first_line in ("PRESS", "BROADCAST"):
        reply = send(j, a, "FRANCE", first_line, "Peace in our time.", "ENDPRESS")
        assert f"Broadcast of 1 line sent to everyone in {G}." in reply
        assert recipients(j) == everyone_else
        (mail,) = j.last_broadcasts  # the master's copy reads like everybody's
        assert mail.subject == f"JUDGE:{G} - S1901M Broadcast from France"
        assert f"Broadcast from France to everyone in {G}, during S1901M:" in mail.body
    assert [r[1:3] for r in rows(j)] == [("", True), ("", True)]


# --------------------------------------------------------------------------- the master

def test_press_to_the_master_and_from_the_master(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    reply = send(j, a, "ENGLAND", "PRESS TO M", "May I have an extension?", "ENDPRESS")
    assert "Press of 1 line sent to the master." in reply and "copy" not in reply
    (mail,) = j.last_broadcasts
    assert mail.to == [MASTER] and "Press from England to the master, during S1901M:" in mail.body
    assert "Your copy" not in mail.body
    reply = j.mail(MASTER, f"{M}\nPRESS TO France\nNo.\nENDPRESS\nBROADCAST\nHurry up.\n"
                   "ENDPRESS\nPRESS TO master\nx\nENDPRESS")
    assert "Press of 1 line sent to France." in reply.body
    assert f"Broadcast of 1 line sent to everyone in {G}." in reply.body
    assert "Error: you are the master: press to the master is press to yourself." in reply.body
    to_france, everyone = j.last_broadcasts
    assert to_france.to == [a["FRANCE"]] and to_france.subject.endswith("Press from the master")
    assert sorted(everyone.to) == sorted([*a.values(), OBSERVER])
    assert "Broadcast from the master to everyone in war1901" in everyone.body
    assert [r[:2] for r in rows(j)] == [("ENGLAND", "MASTER"), ("MASTER", "FRANCE"),
                                        ("MASTER", "")]


def test_the_master_writes_as_the_master_after_become(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    reply = j.mail(MASTER, f"{M}\nBECOME Italy\nPRESS TO E\nHello\nENDPRESS")
    assert "Press of 1 line sent to England." in reply.body
    assert copy_to(j, a["ENGLAND"]).subject.endswith("Press from the master")


# --------------------------------------------------------------------------- grey press

def test_grey_press_hides_the_sender_from_its_readers_only(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    reply = send(j, a, "FRANCE", "PRESS TO E GREY", "Watch Munich.", "ENDPRESS")
    assert ("Grey press of 1 line sent to England. Its readers are not told who sent it; the "
            "master is.") in reply
    readers = copy_to(j, a["ENGLAND"])
    assert readers.subject == f"JUDGE:{G} - S1901M Press from someone"
    assert "Press from someone to England, during S1901M:" in readers.body
    assert "France" not in readers.body and a["FRANCE"] not in readers.body
    master = copy_to(j, MASTER)
    assert master.subject == f"JUDGE:{G} - S1901M Grey press from France"
    assert "Grey press from France to England" in master.body
    assert "(Grey: the other readers were not told who sent it.)" in master.body
    send(j, a, "GERMANY", "BROADCAST GREY", "Boo.", "ENDPRESS")
    assert copy_to(j, OBSERVER).subject == f"JUDGE:{G} - S1901M Broadcast from someone"
    assert copy_to(j, MASTER).subject == f"JUDGE:{G} - S1901M Grey broadcast from Germany"
    assert [r[3] for r in rows(j)] == [True, True]


def test_the_master_refuses_and_allows_grey_press_again(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    reply = send(j, a, "FRANCE", "SET NOGREY")
    assert "Error: SET NOGREY is not for France in war1901." in reply
    reply = j.mail(MASTER, f"{M}\nSET NOGREY\nSET NO GREY")
    assert "Grey press is now refused in war1901; the players are told." in reply.body
    assert "Error: grey press is already refused in war1901; nothing changed." in reply.body
    (note,) = j.last_broadcasts
    assert note.subject == f"JUDGE:{G} - S1901M No grey press"
    assert sorted(note.to) == sorted([*a.values(), OBSERVER, MASTER])
    reply = send(j, a, "FRANCE", "PRESS TO E GREY", "x", "ENDPRESS", "PRESS TO E", "y",
                 "ENDPRESS")
    assert ("Error: war1901 does not allow grey press: send it without GREY. Nothing was "
            "sent.") in reply
    assert "Press of 1 line sent to England." in reply
    assert [r[3:] for r in rows(j)] == [(False, "y")]
    reply = j.mail(MASTER, f"{M}\nSET GREY\nPRESS TO E GREY\nfrom nobody\nENDPRESS")
    assert "Grey press is now allowed in war1901; the players are told." in reply.body
    assert "Grey press of 1 line sent to England." in reply.body
    assert [m.subject for m in j.last_broadcasts if a["ENGLAND"] in m.to] == [
        f"JUDGE:{G} - S1901M Grey press allowed", f"JUDGE:{G} - S1901M Press from someone"]


# --------------------------------------------------------------------------- game rules

def test_no_press_allows_press_only_to_and_from_the_master(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j, "NO_PRESS")
    refusal = ("Error: war1901 is a NO_PRESS game: press may only go to the master "
               "(PRESS TO M). Nothing was sent.")
    for first_line in ("PRESS TO E", "PRESS", "BROADCAST", "PRESS TO EM"):
        reply = send(j, a, "FRANCE", first_line, "x", "ENDPRESS")
        assert refusal in reply, first_line
        assert j.last_broadcasts == [] and rows(j) == []
    assert "sent to the master." in send(j, a, "FRANCE", "PRESS TO M", "x", "ENDPRESS")
    assert [m.to for m in j.last_broadcasts] == [[MASTER]]
    reply = j.mail(MASTER, f"{M}\nPRESS TO F\nx\nENDPRESS\nBROADCAST\ny\nENDPRESS\n"
                   "SET OBSERVER PRESS")
    assert "Error" not in reply.body
    reply = j.mail(OBSERVER, f"{O}\nBROADCAST\nz\nENDPRESS\nPRESS TO M\nw\nENDPRESS")
    assert refusal in reply.body and "Press of 1 line sent to the master." in reply.body
    assert [r[:3] for r in rows(j)] == [("FRANCE", "MASTER", False), ("MASTER", "FRANCE", False),
                                        ("MASTER", "", True), ("OBSERVER", "MASTER", False)]


def test_public_press_allows_broadcasts_and_the_master_only(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j, "PUBLIC_PRESS")
    for first_line in ("PRESS TO E", "PRESS TO E M"):
        reply = send(j, a, "FRANCE", first_line, "x", "ENDPRESS")
        assert ("Error: war1901 is a PUBLIC_PRESS game: no private press. Write to the master "
                "(PRESS TO M) or to everyone (BROADCAST). Nothing was sent.") in reply
        assert j.last_broadcasts == [] and rows(j) == []
    assert "Broadcast of 1 line sent" in send(j, a, "FRANCE", "BROADCAST", "x", "ENDPRESS")
    assert "Grey broadcast of 1 line sent" in send(j, a, "FRANCE", "PRESS GREY", "x",
                                                   "ENDPRESS")
    assert "sent to the master." in send(j, a, "FRANCE", "PRESS TO M", "x", "ENDPRESS")
    reply = j.mail(MASTER, f"{M}\nPRESS TO E\nx\nENDPRESS")
    assert "Press of 1 line sent to England." in reply.body
    assert len(rows(j)) == 4


# --------------------------------------------------------------------------- observers

def test_observers_write_to_the_master_and_broadcast_when_the_master_allows(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    reply = j.mail(OBSERVER, f"{O}\nPRESS TO M\nNice game.\nENDPRESS\nBROADCAST\nHi\nENDPRESS\n"
                   "PRESS TO E\nHi\nENDPRESS")
    assert "Press of 1 line sent to the master." in reply.body
    assert ("Error: observers may not broadcast in war1901 (the master may allow it with SET "
            "OBSERVER PRESS); you may write to the master (PRESS TO M). Nothing was sent."
            ) in reply.body
    assert ("Error: observers may write only to the master (PRESS TO M), and broadcast where "
            "the master allows it. Nothing was sent.") in reply.body
    (mail,) = j.last_broadcasts
    assert mail.to == [MASTER] and "Press from an observer to the master" in mail.body
    assert "Error: SET OBSERVER PRESS is not for" in send(j, a, "FRANCE", "SET OBSERVER PRESS")
    reply = j.mail(MASTER, f"{M}\nSET OBSERVER PRESS")
    assert "Observers may now broadcast in war1901; everyone is told." in reply.body
    assert j.last_broadcasts[0].subject == f"JUDGE:{G} - S1901M Observers may broadcast"
    reply = j.mail(OBSERVER, f"{O}\nBROADCAST\nHi all\nENDPRESS")
    assert f"Broadcast of 1 line sent to everyone in {G}." in reply.body
    assert recipients(j) == sorted([*a.values(), MASTER])
    assert j.last_broadcasts[0].subject == f"JUDGE:{G} - S1901M Broadcast from an observer"
    reply = j.mail(MASTER, f"{M}\nSET NO OBSERVER PRESS\nSET NOOBSERVER PRESS")
    assert "Observers may no longer broadcast in war1901; everyone is told." in reply.body
    assert "Error: observers already may not broadcast in war1901; nothing changed." in reply.body
    assert "Error: observers may not broadcast" in j.mail(
        OBSERVER, f"{O}\nBROADCAST\nagain\nENDPRESS").body
    assert [r[:3] for r in rows(j)] == [("OBSERVER", "MASTER", False), ("OBSERVER", "", True)]


# --------------------------------------------------------------------------- refusals

REFUSED = [
    ("PRESS TO Prussia", "x", '"PRUSSIA" is not a power'),
    ("PRESS TO EX", "x", '"EX" is not a power'),
    ("PRESS TO", "x", "PRESS TO needs the powers to write to"),
    ("PRESS England", "x", "PRESS is followed by TO and the powers"),
    ("BROADCAST TO E", "x", "BROADCAST takes no powers"),
    ("PRESS TO F", "x", "you are France: you cannot send press to yourself."),
    ("PRESS TO EF", "x", "you are France: you cannot send press to yourself."),
    ("PRESS TO E", "", "the press has no text between its first line and ENDPRESS"),
    ("BROADCAST", "   ", "the press has no text between its first line and ENDPRESS"),
]


def test_a_refused_press_sends_and_archives_nothing(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    kept: list[tuple[str, str, bool, bool, str]] = []
    for first_line, text, error in REFUSED:
        reply = send(j, a, "FRANCE", first_line, text, "ENDPRESS", "PRESS TO M", "still here",
                     "ENDPRESS")
        refused, after = reply.split("> PRESS TO M")
        assert f"> {first_line}\nError: {error}" in refused, first_line
        assert "Nothing was sent." in refused, first_line
        assert "Press of 1 line sent to the master." in after  # the next block still goes
        kept.append(("FRANCE", "MASTER", False, False, "still here"))
        assert rows(j) == kept, first_line
        assert [m.to for m in j.last_broadcasts] == [[MASTER]], first_line


def test_press_without_endpress_or_signon(judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    reply = send(j, a, "FRANCE", "PRESS TO E", "never ended")
    assert "Error: PRESS without ENDPRESS; nothing was done." in reply
    reply = j.mail(a["FRANCE"], "PRESS TO E\nhello\nENDPRESS")
    assert "Error: PRESS needs a SIGNON first." in reply.body
    assert rows(j) == [] and j.last_broadcasts == []


def test_no_press_to_or_from_eliminated_powers_nor_to_powers_nobody_plays(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    reply = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION S1905M\nFrance: A Par; centers Par Bre Mar\n"
                   "England: F Lon; centers Lon Edi Lvp\nGermany: A Mun; centers Mun Kie Ber\n"
                   "Turkey: A Con; centers Con Ank Smy\nENDPOSITION\nRESUME\nEJECT Turkey")
    assert "Ejected TURKEY." in reply.body
    reply = send(j, a, "FRANCE", "PRESS TO Italy", "x", "ENDPRESS", "PRESS TO IR", "x",
                 "ENDPRESS", "PRESS TO T", "x", "ENDPRESS")
    assert "Error: Italy has been eliminated: no press goes to it. Nothing was sent." in reply
    assert "Error: Italy and Russia have been eliminated: no press goes to them." in reply
    assert ("Error: nobody plays Turkey in war1901 at the moment: the press would reach no "
            "one. Nothing was sent.") in reply
    reply = send(j, a, "ITALY", "PRESS TO F", "x", "ENDPRESS", "BROADCAST", "x", "ENDPRESS")
    assert reply.count("Error: Italy has been eliminated: its player may still write to the "
                       "master (PRESS TO M), but to nobody else. Nothing was sent.") == 2
    assert rows(j) == [] and j.last_broadcasts == []
    assert "sent to the master." in send(j, a, "ITALY", "PRESS TO M", "Farewell.", "ENDPRESS")
    # a broadcast reaches the eliminated powers' players still in the game, not Turkey's
    send(j, a, "FRANCE", "BROADCAST", "Who is left?", "ENDPRESS")
    assert a["ITALY"] in recipients(j) and a["TURKEY"] not in recipients(j)


def test_no_press_while_the_game_forms_or_once_it_is_over(judge_in_process: Judge) -> None:
    j = judge_in_process
    reply = j.mail(MASTER, f"CREATE {G} mpw\nPRESS TO M\nx\nENDPRESS\nBROADCAST\nWelcome!\n"
                   "ENDPRESS")
    assert reply.body.count("Error: war1901 has not started yet: press is sent once the game "
                            "runs.") == 2
    observe(j, OBSERVER, G)
    reply = j.mail(OBSERVER, f"{O}\nPRESS TO M\nx\nENDPRESS")
    assert "Error: war1901 has not started yet" in reply.body
    for i in range(7):
        j.mail(f"player{i}@example.org", f"JOIN {G} pw{i}")
    reply = j.mail(MASTER, f"{M}\nTERMINATE\nBROADCAST\nThanks all.\nENDPRESS")
    assert "Error: war1901 is over (terminated): it takes no more press." in reply.body
    assert [m.subject for m in j.last_broadcasts] == [f"JUDGE:{G} - S1901M Terminated"]
    reply = j.mail(MASTER, f"{M}\nSET GREY")
    assert "Error: SET GREY cannot be used while the game is terminated." in reply.body
    assert rows(j) == []


# --------------------------------------------------------------------------- Formal Diplomacy

def test_powers_at_war_in_formal_diplomacy_may_only_broadcast_to_each_other(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    a = game_with_observer(j)
    with j.store.transaction() as s:
        game = s.scalars(select(Game)).one()
        game.variant = "formal"
        try:
            position_of(game)
        except InputError:
            pytest.skip("the formal variant is not wired into the game store yet")
        game.variant_state = json.dumps({"formal": {"first_year": 1901,
                                                    "wars": [["FRANCE", "GERMANY"]]}})
    reply = send(j, a, "FRANCE", "PRESS TO EG", "x", "ENDPRESS")
    assert ("Error: France is at war with Germany: powers at war may not send each other "
            "private press (a BROADCAST is allowed). Nothing was sent.") in reply
    assert rows(j) == [] and j.last_broadcasts == []
    assert "Error" not in send(j, a, "GERMANY", "PRESS TO E", "x", "ENDPRESS", "BROADCAST",
                               "y", "ENDPRESS", "PRESS TO M", "z", "ENDPRESS")
    assert len(rows(j)) == 3
