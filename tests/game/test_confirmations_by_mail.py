"""Double opt-in by mail (the in-process kit; the attacks themselves are played over SMTP in
tests/mail/test_hostile_observers.py): an address a mail put into a game gets none of its mail
until it sends back the code mailed to it, from any mail program, quoted or not; a new address
(SET ADDRESS) takes the old one's place only then; wrong codes are counted like wrong
passwords, codes expire, and seats still waiting give way when a game is full of them."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import update

from gamekit import Judge, code_in, observe, player
from judge.store.models import Seat
from judge.basics.utc import utcnow
from test_late_powers import M, MASTER, two_player_game

NEW = "new@example.org"


def game_mail(j: Judge) -> set[str]:
    """Who got the game's own mails sent by the last mail (not replies)."""
    return {a for m in j.last_broadcasts if m.subject.startswith("JUDGE:g - ") for a in m.to}


def test_a_new_address_takes_over_only_once_it_confirms(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    reply = j.mail(player(0), f"SIGNON Fg pw0\nSET ADDRESS {NEW}").body
    assert f"{NEW} has been sent a code to confirm" in reply
    (asked,) = j.last_broadcasts
    assert asked.to == [NEW] and asked.subject == "JUDGE:g - S1901M Confirm your address"
    assert "the role of France in g has asked the judge" in " ".join(asked.body.split())
    code = code_in(asked.body)
    assert code not in reply  # only the new address reads it
    # until it comes back the game's mail goes on to the old address
    j.mail(MASTER, f"{M}\nPROCESS")
    assert player(0) in game_mail(j) and NEW not in game_mail(j)
    # the answer may quote the judge's mail whole, below an attribution
    quoted = "\n".join(f"> {line}" for line in asked.body.splitlines())
    reply = j.mail(NEW, f"Yes please.\n\nOn Mon, the judge wrote:\n{quoted}").body
    assert f"Confirmed: the mail of g for France now goes to {NEW}" in reply, reply
    j.mail(MASTER, f"{M}\nPROCESS")
    assert NEW in game_mail(j) and player(0) not in game_mail(j)
    # the code is spent; an address that has confirmed a place moves at once
    assert "that code confirms nothing" in j.mail(NEW, f"CONFIRM {code}").body
    reply = j.mail(player(1), f"SIGNON Gg pw1\nSET ADDRESS {NEW}").body
    assert f"Mail for your role in g now goes to {NEW}." in reply
    assert j.last_broadcasts == []


def test_the_code_is_only_the_observer_s_to_read(judge_in_process: Judge) -> None:
    """A mail signed on to another game copies its reply to that role's address: never the
    answer to OBSERVE with its code."""
    j = judge_in_process
    two_player_game(j)
    assert "created" in j.mail(MASTER, "CREATE h mpw").body
    mine, theirs = j.mail_copies(player(0), f"SIGNON Fg pw0\nOBSERVE h opw\nSET ADDRESS {NEW}"
                                 "\nSIGNON Mh mpw")
    code = code_in(mine.body)
    assert theirs.to == [MASTER] and code not in theirs.body
    reply = j.mail(player(0), f"CONFIRM {code.lower().replace('-', ' ')}").body
    assert f"Confirmed: {player(0)} now gets the mail of h as an observer." in reply


def test_wrong_codes_are_counted_and_codes_expire(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    code = code_in(j.mail("watcher@example.org", "OBSERVE g opw").body)
    guesses = "\n".join(f"CONFIRM AAAAA-BBBB{c}" for c in "23456")
    reply = j.mail("guesser@example.org", f"{guesses}\nCONFIRM {code}\nCONFIRM nonsense").body
    assert reply.count("that code confirms nothing") == 5
    assert reply.count("too many wrong codes from your address today (5)") == 2
    # from another address the right code works, but not once it has expired
    with j.store.transaction() as s:
        s.execute(update(Seat).where(Seat.address == "watcher@example.org").values(
            confirm_asked_at=utcnow() - timedelta(days=3, minutes=1)))
    assert "that code for g has expired (a code works for 3 days)" in j.mail(
        "watcher@example.org", f"CONFIRM {code}").body
    # asking again gives a new code, which works; the old one no longer does
    fresh = code_in(j.mail("watcher@example.org", "OBSERVE g opw").body)
    assert fresh != code
    assert "Confirmed:" in j.mail("watcher@example.org", f"CONFIRM {fresh}").body


def test_seats_still_waiting_give_way_and_confirmed_ones_never(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    j.config = replace(j.config, limits=replace(j.config.limits, observers_per_game=3))
    two_player_game(j)
    observe(j, "first@example.org", "g")
    codes = {a: code_in(j.mail(a, "OBSERVE g opw").body)
             for a in (f"s{i}@victims.example.net" for i in range(5))}
    # the two newest still waiting hold the room left; the older ones' codes are gone
    assert "that code confirms nothing" in j.mail("x@example.org",
                                                  f"CONFIRM {codes['s0@victims.example.net']}").body
    for address in ("s3@victims.example.net", "s4@victims.example.net"):
        assert "Confirmed:" in j.mail(address, f"CONFIRM {codes[address]}").body
    reply = j.mail("late@example.org", "OBSERVE g opw").body
    assert "Error: g has as many observers as a game may have (3)" in reply
    # a seat still waiting cannot be signed on to; CONFIRM, even quoted below, comes first
    j.mail(MASTER, f"{M}\nEJECT s4@victims.example.net")
    waiting = j.mail("w@example.org", "OBSERVE g wpw").body
    assert "You have asked to observe g" in waiting
    reply = j.mail("w@example.org", "SIGNON Og wpw\nPRESS TO M\nhi\nENDPRESS").body
    assert "Og waits for its address to confirm" in reply
    reply = j.mail("w@example.org", f"SIGNON Og wpw\nPRESS TO M\nhi\nENDPRESS\n"
                   f"> CONFIRM {code_in(waiting)}").body
    assert "Press of 1 line sent to the master." in reply, reply


def test_a_former_player_is_not_signed_up_again_in_their_name(
        judge_in_process: Judge) -> None:
    """Having once confirmed a place in a game is no consent to its mail after leaving it."""
    j = judge_in_process
    two_player_game(j)
    j.mail(player(1), "SIGNON Gg pw1\nRESIGN")
    assert "You have asked to observe g" in j.mail(player(1), "OBSERVE g opw").body
    j.mail(MASTER, f"{M}\nPROCESS")
    assert game_mail(j) == {MASTER, player(0)}
