"""Players' addresses are private, by mail through the real pipeline and store: a whole small
game (joining, the Game Starting mail, LIST, SUMMARY, HISTORY, press, orders the master gives
with BECOME, EJECT and REPLACE, a vote, the end, the tournament's STANDINGS) never shows one
player's address in a mail to anybody but the master.  The master may make a game's addresses
public (SET ADDRESSES PUBLIC / PRIVATE); an ANONYMOUS game keeps them private whatever the
master asks.  The master's orders for a played power reach its player; an ejected, replaced or
dummied player is told."""

from __future__ import annotations

import email
from email import policy

from sqlalchemy import select

from conftest import body_of
from gamekit import Judge, code_for, observe
from judge.store.models import OutboxMessage

MASTER = "gm@example.org"
FRANCE, GERMANY, ENGLAND = "fr@example.org", "de@example.org", "en@example.org"
NEWCOMER, OBSERVER, STRANGER = "new@example.org", "obs@example.org", "fan@example.org"
EVERYONE = [MASTER, FRANCE, GERMANY, ENGLAND, NEWCOMER, OBSERVER, STRANGER]
M = "SIGNON Mg mpw"


def mails(j: Judge) -> list[tuple[str, str]]:
    """(recipient, what they read: the headers and the text) of every mail queued so far."""
    out = []
    with j.store.transaction() as s:
        for row in s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)):
            msg = email.message_from_bytes(row.raw, policy=policy.default)
            headers = "\n".join(f"{k}: {v}" for k, v in msg.items() if k != "From")
            for recipient in row.recipients.split(","):
                out.append((recipient, headers + "\n" + body_of(msg)))
    return out


def leaks(j: Judge) -> list[tuple[str, str]]:
    """(recipient, address) for every mail that shows someone else's address to someone
    other than the master."""
    return [(to, a) for to, text in mails(j) if to != MASTER
            for a in EVERYONE if a != to and a in text]


def ok(j: Judge, sender: str, body: str) -> str:
    reply = j.mail(sender, body).body
    assert "Error" not in reply, reply
    return reply


def forming_game(j: Judge, extra: str = "") -> None:
    ok(j, MASTER, f"CREATE g mpw RULES POWER_CHOICE START_MASTER {extra} TOURNAMENT cup cpw")
    ok(j, FRANCE, "JOIN g frpw France")
    ok(j, GERMANY, "JOIN g depw Germany")
    ok(j, ENGLAND, "JOIN g enpw England")
    observe(j, OBSERVER, "g", "obspw")


def test_a_whole_game_shows_no_address_but_to_the_master(judge_in_process: Judge) -> None:
    j = judge_in_process
    forming_game(j)
    # while forming: LIST names the players joined only to the master
    for who in (FRANCE, STRANGER):
        assert "Players joined: 3 of 7\nOpen seats: 4.\n\nRules:" in ok(j, who, "LIST g")
    master_list = ok(j, MASTER, f"{M}\nLIST g")
    assert f"Players joined: 3 of 7\n  {FRANCE}\n  {GERMANY}\n  {ENGLAND}\n" in master_list
    assert "Addresses: private: only the master sees them." in master_list
    reply = ok(j, MASTER, f"{M}\nSTART")
    # the Game Starting mail: the master's copy names the players, theirs does not
    starting = [m for m in j.last_broadcasts if m.subject.endswith("Game Starting")]
    players_copy, master_copy = starting
    assert players_copy.to == [FRANCE, GERMANY, ENGLAND, OBSERVER]
    assert "The powers with a player:\n\nEngland\nFrance\nGermany\n" in players_copy.body
    assert "The players' addresses are private: only the master sees them." in players_copy.body
    assert master_copy.to == [MASTER]
    assert f"England    {ENGLAND}\nFrance     {FRANCE}\n" in master_copy.body
    # press, the views of the game, the master's orders for England
    ok(j, FRANCE, "SIGNON Fg frpw\nPRESS TO G\nHello from France.\nENDPRESS\n"
                  "BROADCAST\nHello all.\nENDPRESS\nA Par-Bur")
    for who, signon in [(FRANCE, "SIGNON Fg frpw\n"), (OBSERVER, "SIGNON Og obspw\n"),
                        (STRANGER, "")]:
        reply = ok(j, who, f"{signon}LIST g\nSUMMARY g\nHISTORY g\nLIST")
        assert "\nGermany          3     3  playing\n" in reply and GERMANY not in reply
    reply = ok(j, MASTER, f"{M}\nBECOME England\nF Lon-Nth\nLIST g")
    assert f"France           3     3  orders missing ({FRANCE})" in reply
    (copy,) = j.last_broadcasts
    assert copy.to == [ENGLAND] and copy.subject == "JUDGE:g - S1901M Orders for England by" \
                                                    " the master"
    assert "has entered orders for England, your power,\nfor S1901M." in copy.body
    assert "  F LON - NTH\nStill without orders: Fleet Edinburgh, Army Liverpool." in copy.body
    ok(j, MASTER, f"{M}\nPROCESS")
    # the master takes Germany from its player, who is told, and gives it to a newcomer
    ok(j, MASTER, f"{M}\nEJECT Germany")
    ejected = [m for m in j.last_broadcasts if m.to == [GERMANY]]
    assert [m.subject for m in ejected] == ["JUDGE:g - F1901M Ejected"]
    assert "The master of g has ejected you: you no longer play Germany in g." in \
        " ".join(ejected[0].body.split())
    assert "Error: nobody plays Germany in g." in j.mail(GERMANY, "SIGNON Gg depw").body
    ok(j, MASTER, f"{M}\nREPLACE Germany {NEWCOMER} newpw")
    ok(j, NEWCOMER, f"CONFIRM {code_for(j, NEWCOMER)}\nSIGNON Gg newpw\nPRESS TO F\nGreetings.\n"
                    "ENDPRESS\nLIST g")
    ok(j, MASTER, f"{M}\nDUMMY England")
    (dummied,) = [m for m in j.last_broadcasts if m.to == [ENGLAND]]
    assert dummied.subject == "JUDGE:g - F1901M Power made a dummy"
    ok(j, FRANCE, "SIGNON Fg frpw\nSET DRAW\nHISTORY g")
    ok(j, MASTER, f"{M}\nPROCESS\nTERMINATE")
    for who in (FRANCE, NEWCOMER, STRANGER):
        ok(j, who, "HISTORY g\nSUMMARY g\nLIST g\nSTANDINGS cup")
    # the standings: your own address, the others numbered; the director sees all
    standings = ok(j, FRANCE, "STANDINGS cup")
    assert FRANCE in standings and "player 1" in standings
    director = ok(j, MASTER, "STANDINGS cup")
    assert NEWCOMER in director and ENGLAND in director and "player 1" not in director
    assert leaks(j) == []
    # and the master did see them (the check above can find an address)
    assert any(FRANCE in text for to, text in mails(j) if to == MASTER)


def test_the_master_may_make_the_addresses_public(judge_in_process: Judge) -> None:
    j = judge_in_process
    forming_game(j)
    reply = ok(j, MASTER, f"{M}\nSET ADDRESSES PUBLIC")
    assert "The players' addresses in g are now public" in reply
    (change,) = j.last_broadcasts
    assert change.subject == "JUDGE:g - S1901M Parameter Change"
    assert sorted(change.to) == sorted([FRANCE, GERMANY, ENGLAND, OBSERVER, MASTER])
    assert "has made the players' addresses public" in change.body
    assert f"Players joined: 3 of 7\n  {FRANCE}\n" in ok(j, STRANGER, "LIST g")
    assert "Error: the addresses of g are already public; nothing changed." in \
        j.mail(MASTER, f"{M}\nSET ADDRESSES PUBLIC").body
    ok(j, MASTER, f"{M}\nSTART")
    players_copy = next(m for m in j.last_broadcasts if m.subject.endswith("Game Starting"))
    assert FRANCE in players_copy.to and f"France     {FRANCE}\n" in players_copy.body
    reply = ok(j, STRANGER, "LIST g")
    assert f"France           3     3  playing ({FRANCE})" in reply
    assert "Addresses: public (SET ADDRESSES)" in reply
    assert (FRANCE, GERMANY) in leaks(j)  # what the test above would catch
    # private again
    ok(j, MASTER, f"{M}\nSET ADDRESSES PRIVATE")
    assert "has made the players' addresses private" in j.last_broadcasts[0].body
    reply = ok(j, STRANGER, "LIST g")
    assert "France           3     3  playing\n" in reply and FRANCE not in reply
    # only the master, with one word
    for line, error in [("SET ADDRESSES", "SET ADDRESSES PUBLIC (everyone"),
                        ("SET ADDRESSES OPEN", "SET ADDRESSES PUBLIC (everyone")]:
        assert f"Error: {error}" in j.mail(MASTER, f"{M}\n{line}").body
    assert "Error: SET ADDRESSES is not for France in g." in \
        j.mail(FRANCE, "SIGNON Fg frpw\nSET ADDRESSES PUBLIC").body
    assert "Error: SET ADDRESSES needs a SIGNON first." in \
        j.mail(STRANGER, "SET ADDRESSES PUBLIC").body
    text = " ".join(j.mail(STRANGER, "GET COMMANDS").body.split())
    assert "SET ADDRESSES PUBLIC|PRIVATE who sees the players' addresses" in text


def test_an_anonymous_game_keeps_even_the_powers_players_from_everyone_but_the_master(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    forming_game(j, "GUNBOAT")
    reply = j.mail(MASTER, f"{M}\nSET ADDRESSES PUBLIC").body
    assert "Error: g is an ANONYMOUS game: nobody but the master may learn who plays which" \
        " power" in reply
    ok(j, MASTER, f"{M}\nSTART")
    players_copy, master_copy = [m for m in j.last_broadcasts
                                 if m.subject.endswith("Game Starting")]
    assert "This is an ANONYMOUS game: nobody but the master knows who plays which power." \
        in players_copy.body
    assert f"France     {FRANCE}\n" in master_copy.body
    assert "this ANONYMOUS game never tells the players who plays which power" in \
        " ".join(master_copy.body.split())
    reply = ok(j, FRANCE, "SIGNON Fg frpw\nLIST g")
    assert "Addresses: private; ANONYMOUS: only the master knows who plays which power." \
        in reply
    assert leaks(j) == []


def test_a_player_the_master_takes_out_is_told(judge_in_process: Judge) -> None:
    j = judge_in_process
    forming_game(j)
    # while forming, by address: no power yet
    reply = ok(j, MASTER, f"{M}\nEJECT {ENGLAND}")
    assert f"Ejected {ENGLAND}. They have been told" in reply
    (told,) = j.last_broadcasts
    assert told.to == [ENGLAND] and told.subject == "JUDGE:g - S1901M Ejected"
    assert "The master of g has ejected you: you no longer play g." in " ".join(told.body.split())
    ok(j, MASTER, f"{M}\nSTART")
    # a power given to a new player: the one it is taken from is told, nobody's address shown
    ok(j, MASTER, f"{M}\nREPLACE France {NEWCOMER} newpw")
    (replaced,) = [m for m in j.last_broadcasts if m.to == [FRANCE]]
    assert replaced.subject == "JUDGE:g - S1901M Replaced"
    assert "has given France to a new player: you no longer play France in g." in \
        " ".join(replaced.body.split())
    assert NEWCOMER not in replaced.body
    # a power made a dummy: its player is told once; the master's orders for it go nowhere
    ok(j, MASTER, f"{M}\nDUMMY Germany\nBECOME Germany\nA Ber H")
    assert [m.subject for m in j.last_broadcasts if GERMANY in m.to] == [
        "JUDGE:g - S1901M Power made a dummy"]
    assert [m for m in j.last_broadcasts if "Orders for" in m.subject] == []
    assert leaks(j) == []


def test_a_role_s_registered_address_is_copied_only_what_was_done_as_that_role(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    forming_game(j)
    ok(j, MASTER, f"{M}\nSTART")
    # the master knows a password for France (one it gave with REPLACE) and signs on as both
    ok(j, MASTER, f"{M}\nREPLACE France {NEWCOMER} newpw")
    ok(j, NEWCOMER, f"CONFIRM {code_for(j, NEWCOMER)}\nSIGNON Fg newpw\nLIST g")
    mine, theirs = j.mail_copies(MASTER, f"{M}\nLIST g\nSIGNON Fg newpw\nA Par H")
    assert mine.to == [MASTER] and theirs.to == [NEWCOMER]
    assert f"({FRANCE})" not in mine.body and f"({NEWCOMER})" in mine.body
    assert "> LIST g" in mine.body and "> A Par H" in mine.body
    # France's player reads what was done as France: not the master's LIST, no address
    assert theirs.body.startswith(":: Judge: JUDGE  Game: g  Variant: Standard\n:: Deadline: ")
    assert "\n\n> SIGNON Fg ****\nSigned on as France" in theirs.body
    assert "> A Par H\nAccepted: A PAR H" in theirs.body and "Orders of France" in theirs.body
    assert "> LIST g" not in theirs.body and "@" not in theirs.body.replace("judge@", "")
    assert "2 lines read, 0 errors." in theirs.body
    assert leaks(j) == []
