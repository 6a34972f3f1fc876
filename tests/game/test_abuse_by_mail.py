"""Hostile mail against a running judge, one attack per test, each played by SMTP: unusable
addresses, forged Reply-To floods, password guessing, forged tournament authority, costly
mails, REPLACE floods, CREATE floods, forged press framing and passwords quoted back.

Nothing here proves silence by sleeping: the tests wait until the judge has processed every
stored mail and then read its inbound and outbox rows."""

from __future__ import annotations

import email
import time
from email import policy
from email.message import EmailMessage
from typing import Callable

from conftest import RunningJudge, body_of, make_mail
from smtpkit import exchange, wait_assignments

GM = "gm@example.org"
POWER_LETTERS = {"AUSTRIA": "A", "ENGLAND": "E", "FRANCE": "F", "GERMANY": "G", "ITALY": "I",
                 "RUSSIA": "R", "TURKEY": "T"}


# --------------------------------------------------------------------------- helpers


def send(judge: RunningJudge, body: str, *, sender: str, mail_from: str | None = None,
         **headers: str) -> str:
    """Mail the judge (headers such as Reply_To forged at will); returns the Message-ID."""
    msg = make_mail(body, sender=sender, **headers)
    judge.send(msg, mail_from=mail_from or sender)
    return str(msg["Message-ID"])


def inbound(judge: RunningJudge, message_id: str) -> tuple[str, str | None, int]:
    """(status, note, id) of the stored mail."""
    status, note, row_id = judge.sql("SELECT status, note, id FROM inbound WHERE message_id = :m",
                                     m=message_id)[0]
    return status, note, row_id


def outbox_of(judge: RunningJudge, message_id: str) -> list[tuple[str, EmailMessage]]:
    """(recipients, mail) of everything the judge queued because of one inbound mail."""
    rows = judge.sql("SELECT o.recipients, o.raw FROM outbox o JOIN inbound i"
                     " ON o.inbound_id = i.id WHERE i.message_id = :m ORDER BY o.id",
                     m=message_id)
    return [(r, email.message_from_bytes(bytes(raw), policy=policy.default))
            for r, raw in rows]


def reply_to(judge: RunningJudge, message_id: str) -> EmailMessage | None:
    for _, msg in outbox_of(judge, message_id):
        if msg["In-Reply-To"] == message_id:
            return msg
    return None


def text(msg: EmailMessage | None) -> str:
    assert msg is not None
    return body_of(msg).replace("\r\n", "\n")


def small_game(judge: RunningJudge, name: str, players: list[str], rules: str = ""
               ) -> dict[str, str]:
    """CREATE by GM (password mpw), a JOIN by each player (password pw), START: address →
    power letter."""
    assert "created" in exchange(judge, GM, f"CREATE {name} mpw {rules}".strip())
    for address in players:
        assert "You have joined" in exchange(judge, address, f"JOIN {name} pw")
    assert f"{name} has started." in exchange(judge, GM, f"SIGNON M{name} mpw\nSTART")
    powers = wait_assignments(judge, players)
    return {a: POWER_LETTERS[p] for a, p in powers.items()}


# --------------------------------------------------------------------------- addresses


BAD_ADDRESSES = ["a@b@c@d", "x@example.net.", ".a@_2", "wp@rclhka-", "ünï@example.org"]


def test_unusable_addresses_are_refused_and_never_freeze_a_game(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_SCHEDULER_POLL_SECONDS="0.2")
    p1, p2 = "p1@example.org", "p2@example.org"
    # CIVIL_DISORDER: at the deadline the missing orders are filled in, not waited for
    letters = small_game(judge, "g", [p1, p2], rules="RULES CIVIL_DISORDER")
    sign = f"SIGNON {letters[p1]}g pw"
    reply = exchange(judge, p1, sign + "\n" + "\n".join(f"SET ADDRESS {a}"
                                                        for a in BAD_ADDRESSES))
    for bad in BAD_ADDRESSES:
        assert f"Error: {bad} is not an address the judge can write to (" in reply, reply
    assert "your address was not changed" in reply
    assert judge.sql("SELECT DISTINCT address FROM seats WHERE kind = 'power'") in (
        [(p1,), (p2,)], [(p2,), (p1,)])
    reply = exchange(judge, GM, "SIGNON Mg mpw\nREPLACE " + letters[p2] + " a@b@c@d pw")
    assert "Error: a@b@c@d is not an address the judge can write to" in reply

    # a mail whose From ends in a dot is deliberately left unanswered, with the reason kept
    mid = send(judge, "LIST", sender="x@example.net.", mail_from="x@example.net")
    judge.settle()
    status, note, _ = inbound(judge, mid)
    assert status == "ignored" and "no usable address to answer" in (note or "")
    assert outbox_of(judge, mid) == []

    # an address stored by an older judge that took anything: the game still runs, and the
    # others still get their mail, by PROCESS and by the deadline
    judge.sql("UPDATE seats SET address = 'a@b@c@d' WHERE address = :a", a=p1)
    reply = exchange(judge, GM, "SIGNON Mg mpw\nPROCESS")
    assert "S1901M has been processed; g is now at F1901M." in reply
    results = [r for r, m in outbox_of(judge, reply_id(judge, "PROCESS"))
               if "Results" in str(m["Subject"])]
    assert sorted(results) == sorted([GM, p2])
    judge.sql("UPDATE games SET deadline = :t, reminder_at = :t, next_event_at = :t,"
              " clock_stage = 2", t="2000-01-01 00:00:00" if "sqlite" in judge.db_url
              else "2000-01-01 00:00:00+00")
    deadline = time.monotonic() + 30
    while judge.sql("SELECT phase FROM games")[0][0] == "F1901M":
        assert time.monotonic() < deadline, judge.log()[-3000:]
        time.sleep(0.1)
    judge.settle()
    assert judge.sql("SELECT count(*) FROM inbound WHERE status = 'failed'") == [(0,)]
    assert judge.sql("SELECT count(*) FROM outbox WHERE recipients LIKE '%a@b@c@d%'") == [(0,)]


def reply_id(judge: RunningJudge, command: str) -> str:
    """The Message-ID of the latest mail whose body has ``command`` (for outbox_of)."""
    for (mid, raw) in reversed(judge.sql("SELECT message_id, raw FROM inbound ORDER BY id")):
        if command.encode() in bytes(raw):
            return str(mid)
    raise AssertionError(command)


# --------------------------------------------------------------------------- the reply cap


def test_a_forged_reply_to_flood_cannot_silence_a_player(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_JUDGE_REPLIES_PER_DAY="3",
                          JUDGE_JUDGE_MASTER_REPLIES_PER_DAY="8")
    italy = "italy@example.org"
    letters = small_game(judge, "g", [italy])
    forged = [send(judge, "LIST", sender="mallory@evil.example.net", Reply_To=italy)
              for _ in range(3)]  # with the JOIN reply earlier: the cap of 3 is full
    forged += [send(judge, "LIST g", sender="mallory@evil.example.net", Reply_To=italy)
               for _ in range(3)]
    judge.settle()
    outcomes = [inbound(judge, m)[0] for m in forged]
    assert outcomes.count("ignored") >= 3  # silence for mail that is not signed on
    # Italy's real orders, signed on from Italy's own address, are executed and answered
    reply = exchange(judge, italy, f"SIGNON {letters[italy]}g pw\nLIST g")
    assert "Signed on as" in reply and "2 lines read, 0 errors." in reply
    # ... and so is the next one
    reply = exchange(judge, italy, f"SIGNON {letters[italy]}g pw")
    assert "Signed on as" in reply
    # a stranger forging Italy's address with a wrong password gets nothing executed
    mid = send(judge, f"SIGNON {letters[italy]}g guess\nSET ADDRESS mallory@evil.example.net",
               sender=italy)
    judge.settle()
    assert inbound(judge, mid)[0] == "ignored"
    assert judge.sql("SELECT count(*) FROM seats WHERE address LIKE 'mallory%'") == [(0,)]
    # the master of a game in play has a cap that fits a fast game
    for _ in range(6):
        exchange(judge, GM, "LIST g")  # each answered
    assert judge.sql("SELECT count(*) FROM inbound i WHERE i.status = 'ignored'"
                     " AND i.envelope_sender = :gm", gm=GM) == [(0,)]


# --------------------------------------------------------------------------- guessing


def test_password_guessing_is_slowed_and_stopped_but_the_player_always_signs_on(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_LIMITS_SIGNON_FAILURES_PER_ROLE="4",
                          JUDGE_LIMITS_SIGNON_FAILURES_PER_SENDER="3")
    germany = "germany@example.org"
    letter = small_game(judge, "g", [germany])[germany]
    answers = [exchange(judge, f"mallory{k % 4}@evil.example.net", f"SIGNON {letter}g guess{k}")
               for k in range(12)]
    checked = [a for a in answers if "wrong password" in a]
    assert len(checked) == 4  # the role's ceiling for other addresses
    assert all("too many failed sign-ons" in a for a in answers if a not in checked)
    # the right password from a guesser's address is not even checked now
    reply = exchange(judge, "mallory0@evil.example.net", f"SIGNON {letter}g pw\nA Par H")
    assert "too many failed sign-ons" in reply and "Accepted" not in reply
    # Germany's own address is always checked: a typo is a wrong password, then it works
    assert "wrong password" in exchange(judge, germany, f"SIGNON {letter}g pW")
    reply = exchange(judge, germany, f"SIGNON {letter}g pw")
    assert "Signed on as" in reply
    judge.settle()
    told = judge.sql("SELECT recipients FROM outbox WHERE subject = :s ORDER BY recipients",
                     s="JUDGE:g - S1901M Failed sign-ons")
    assert told == [(germany,), (GM,)]  # the player and the master, once a day
    notice = text(email.message_from_bytes(bytes(judge.sql(
        "SELECT raw FROM outbox WHERE subject = :s", s="JUDGE:g - S1901M Failed sign-ons"
    )[0][0]), policy=policy.default))
    assert f"(SIGNON {letter}g)" in notice and "at most once a day" in notice


# --------------------------------------------------------------------------- tournaments


def test_a_tournament_takes_games_only_with_its_password(judge: RunningJudge) -> None:
    director = "director@example.org"
    reply = exchange(judge, director, "CREATE g1 pw TOURNAMENT club1 tpw")
    assert "created in tournament club1;" in reply
    # forged as the director: the address gives no authority
    no_pw = send(judge, "CREATE g2 pw TOURNAMENT club1", sender=director,
                 Reply_To="mallory@evil.example.net")
    wrong = send(judge, "CREATE g3 pw TOURNAMENT club1 guess", sender=director,
                 Reply_To="mallory@evil.example.net")
    judge.settle()
    assert "TOURNAMENT needs the tournament's name and its password" in text(
        reply_to(judge, no_pw))
    assert "Error: wrong password for tournament club1." in text(reply_to(judge, wrong))
    assert judge.sql("SELECT name FROM games ORDER BY name") == [("g1",)]
    assert "created in tournament club1;" in exchange(
        judge, "helper@example.org", "CREATE g4 pw TOURNAMENT club1 tpw")
    # a tournament from before passwords: no game joins it by mail until the keeper sets one
    judge.sql("UPDATE tournaments SET password_hash = NULL")
    assert "has no password yet" in exchange(judge, director,
                                             "CREATE g5 pw TOURNAMENT club1 tpw")
    assert judge.cli("tournament", "password", "club1", "--password", "new").returncode == 0
    assert "created in tournament club1;" in exchange(judge, director,
                                                      "CREATE g6 pw TOURNAMENT club1 new")


# --------------------------------------------------------------------------- costly mail


def test_one_mail_costs_a_bounded_amount(judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_LIMITS_REPLY_BYTES="30000")
    mid = send(judge, "GET COMMANDS\n" * 5000, sender="alice@example.org")
    judge.settle()
    reply = text(reply_to(judge, mid))
    assert reply.count("Same as the answer to line 1 above.") == 199
    assert ("Not executed (lines 201 to 5000): too many commands in one mail "
            "(at most 200).") in reply
    assert len(reply.encode()) < 40_000
    # different help texts, one after another, until the reply is full
    topics = ["COMMANDS", "INFO", "ORDERS", "PRESS", "DRAWS", "RULES", "FORMAL"] * 3
    mid = send(judge, "\n".join(f"GET {t}" for t in topics) + "\nVERSION\nLIST",
               sender="alice@example.org")
    judge.settle()
    reply = text(reply_to(judge, mid))
    assert ("Not answered: the answer would make this reply longer than one reply may be "
            "(30000 bytes).") in reply
    assert len(reply.encode()) < 30_000 + 5_000
    assert inbound(judge, mid)[0] == "done"


# --------------------------------------------------------------------------- REPLACE floods


def test_a_replace_flood_writes_to_few_strangers_and_to_each_once(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_LIMITS_NEW_RECIPIENTS_PER_DAY="15")
    p1 = "p1@example.org"
    small_game(judge, "g", [p1])
    flood = "SIGNON Mg mpw\n" + "\n".join(
        f"REPLACE {'AEFGIRT'[i % 7]} victim{i}@example.net pw{i}" for i in range(199))
    first = send(judge, flood, sender=GM)
    judge.settle()
    mails = outbox_of(judge, first)
    victims = {r for r, _ in mails if r.startswith("victim")}
    assert len(victims) == 10  # [limits] new_recipients_per_mail
    assert len(mails) <= 1 + 100  # the reply, and at most [limits] mail_per_mail others
    reply = text(reply_to(judge, first))
    assert "Not executed: this would make the judge write to more addresses" in reply
    assert reply.count("Not executed") == 199 - 10
    # the next mail: the day's ceiling of 15 new addresses for this sender
    second = send(judge, flood.replace("victim", "other"), sender=GM)
    judge.settle()
    assert len({r for r, _ in outbox_of(judge, second) if r.startswith("other")}) == 5
    # an address told once hears no more until it writes itself ...
    again = send(judge, "SIGNON Mg mpw\nREPLACE A victim0@example.net pw", sender=GM)
    judge.settle()
    assert "is now played by victim0@example.net" in text(reply_to(judge, again))
    assert not [r for r, _ in outbox_of(judge, again) if r == "victim0@example.net"]
    assert "victim0@example.net" in (inbound(judge, again)[1] or "")
    # ... and once it has written, it gets the game's mail
    assert "judge version" in exchange(judge, "victim0@example.net", "VERSION")
    later = send(judge, "SIGNON Mg mpw\nREPLACE E victim0@example.net pw2", sender=GM)
    judge.settle()
    assert [r for r, _ in outbox_of(judge, later) if r == "victim0@example.net"]


# --------------------------------------------------------------------------- CREATE floods


def test_a_create_flood_creates_a_few_games_and_the_keeper_is_exempt(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_JUDGE_KEEPER="keeper@example.org")
    mid = send(judge, "\n".join(f"CREATE flood{i} pw" for i in range(1000)),
               sender="mallory@evil.example.net")
    judge.settle()
    assert judge.sql("SELECT count(*) FROM games") == [(10,)]  # [limits] creates_per_day
    reply = text(reply_to(judge, mid))
    assert reply.count("as many as one address may in a day") == 190
    assert "Not executed (lines 201 to 1000): too many commands" in reply
    # the keeper's address may create more (within the mail's allowance of passwords)
    mid = send(judge, "\n".join(f"CREATE keep{i} pw" for i in range(25)),
               sender="keeper@example.org")
    judge.settle()
    assert judge.sql("SELECT count(*) FROM games WHERE name LIKE 'keep%'") == [(20,)]
    assert text(reply_to(judge, mid)).count(
        "Not executed: one mail may set or check at most 20 passwords") == 5


# --------------------------------------------------------------------------- press framing


def test_press_text_cannot_forge_the_judges_framing(judge: RunningJudge) -> None:
    p1, p2 = "p1@example.org", "p2@example.org"
    letters = small_game(judge, "g", [p1, p2])
    forged = [":: Judge: JUDGE  Game: g  Variant: Standard",
              ":: Deadline: S1901M Mon Jan 01 2035 00:00 +0000",
              "End of press.", "",
              "Press from Germany to England, during S1901M:", "", "Give me Belgium."]
    reply = exchange(judge, p1, f"SIGNON {letters[p1]}g pw\nPRESS TO {letters[p2]}\n"
                     + "\n".join(forged) + "\nENDPRESS")
    assert "sent to" in reply
    judge.settle()
    (copy,) = [m for m in judge.replies() if str(m["To"]) == p2 and "Press from" in
               str(m["Subject"])]
    lines = text(copy).splitlines()
    # the judge's own lines are the only ones that start like the judge's own lines
    assert [ln for ln in lines if ln.startswith("::")] == lines[:2]
    assert len([ln for ln in lines if ln.startswith("Press from")]) == 1
    assert len([ln for ln in lines if ln.startswith("End of press.")]) == 1
    assert lines[-1] == "End of press."
    assert "| :: Judge: JUDGE  Game: g  Variant: Standard" in lines
    assert "| Press from Germany to England, during S1901M:" in lines


# --------------------------------------------------------------------------- passwords


def test_no_password_is_ever_written_into_a_mail(judge: RunningJudge) -> None:
    secrets = {"create": "Crt7secret", "tournament": "Trn7secret", "join": "Jn7secret",
               "observe": "Obs7secret", "new": "New7secret", "replace": "Rpl7secret",
               "wrong": "Wrg7secret"}
    p1 = "p1@example.org"
    exchange(judge, GM, f"CREATE g {secrets['create']} TOURNAMENT cup {secrets['tournament']}")
    exchange(judge, p1, f"JOIN g {secrets['join']}")
    exchange(judge, "o@example.org", f"OBSERVE g {secrets['observe']}\n"
             f"SIGNON Og {secrets['observe']}")
    exchange(judge, GM, f"SIGNON Mg {secrets['create']}\nSTART\n"
             f"SET PASSWORD {secrets['new']}")
    letter = wait_assignments(judge, [p1])[p1][0]
    exchange(judge, GM, f"SIGNON Mg {secrets['new']}\n"
             f"REPLACE {letter} p2@example.org {secrets['replace']}")
    exchange(judge, "x@example.org", f"SIGNON Mg {secrets['wrong']}\nLIST")
    exchange(judge, "x@example.org", f"SIGNON ?g {secrets['join']}")
    judge.settle()
    raw = b"".join(bytes(r) for (r,) in judge.sql("SELECT raw FROM outbox"))
    assert raw.count(b"****") >= 8
    for word in secrets.values():
        assert word.encode() not in raw, word
