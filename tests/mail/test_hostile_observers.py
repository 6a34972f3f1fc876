"""Hostile mail about who follows a game, against a running daemon by SMTP (SQLite, or
PostgreSQL with ``JUDGE_TEST_DATABASE_URL``): forged OBSERVE floods, one address asking for
many seats, the master taking observers out, press of a quarter of a megabyte, and forged MAP
floods that would reflect pictures to a stranger.

Each test plays the attack, then checks what reached whom in the judge's outbox: strangers
get their one reply and nothing else, the game's members get the game's mail, and the master's
and players' commands that move the game on are never refused.
"""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage
from typing import Callable

from conftest import JUDGE_ADDRESS, RunningJudge, body_of, make_mail
from gamekit import code_in
from smtpkit import exchange, observe, wait_assignments

GM = "gm@example.org"


# --------------------------------------------------------------------------- helpers


def send_all(judge: RunningJudge, mails: list[EmailMessage]) -> list[str]:
    """Mail them all in one SMTP session (forged senders at will); their Message-IDs."""
    with judge.smtp() as smtp:
        for msg in mails:
            smtp.sendmail(str(msg["From"]), [JUDGE_ADDRESS], msg.as_bytes(policy=policy.SMTP))
    return [str(m["Message-ID"]) for m in mails]


def mails_to(judge: RunningJudge, address: str) -> list[EmailMessage]:
    """Everything the judge queued for ``address``."""
    rows = judge.sql("SELECT raw FROM outbox WHERE recipients = :a ORDER BY id", a=address)
    return [email.message_from_bytes(bytes(raw), policy=policy.default) for (raw,) in rows]


def game_mail_to(judge: RunningJudge, game: str) -> set[str]:
    """Who got any of ``game``'s own mails (not a reply to a command)."""
    rows = judge.sql("SELECT recipients, raw FROM outbox WHERE subject LIKE :s",
                     s=f"JUDGE:{game} - %")
    return {r for r, raw in rows if b"\r\nIn-Reply-To:" not in bytes(raw).partition(
        b"\r\n\r\n")[0]}


def observers(judge: RunningJudge, game: str, confirmed: bool | None = None) -> list[str]:
    """The addresses of the game's observers now (still waiting, or confirmed, or both)."""
    wanted = {None: "", True: " AND s.confirmed_at IS NOT NULL",
              False: " AND s.confirmed_at IS NULL"}[confirmed]
    return sorted(a for (a,) in judge.sql(
        "SELECT s.address FROM seats s JOIN games g ON g.id = s.game_id WHERE g.name = :g"
        f" AND s.kind = 'observer' AND s.status = 'active'{wanted}", g=game))


def two_player_game(judge: RunningJudge, game: str) -> dict[str, str]:
    """A running game of GM's with two players: address → power initial."""
    players = [f"{game}-p{i}@example.org" for i in range(2)]
    assert "created" in exchange(judge, GM, f"CREATE {game} mpw")
    for address in players:
        assert "You have joined" in exchange(judge, address, f"JOIN {game} pw")
    assert f"{game} has started." in exchange(judge, GM, f"SIGNON M{game} mpw\nSTART")
    return {a: p[0] for a, p in wait_assignments(judge, players).items()}


def reply_of(judge: RunningJudge, message_id: str) -> EmailMessage:
    judge.settle()
    return judge.reply_to(message_id)


def text(msg: EmailMessage) -> str:
    return body_of(msg).replace("\r\n", "\n")


# --------------------------------------------------------------------------- OBSERVE floods


def test_a_flood_of_forged_observers_takes_nothing_over(shared_judge: RunningJudge) -> None:
    judge, game = shared_judge, "pub1"
    letters = two_player_game(judge, game)
    members = [GM, *letters]
    strangers = [f"obs{i}@victims.example.net" for i in range(105)]
    send_all(judge, [make_mail(f"OBSERVE {game} pw{i}", sender=a)
                     for i, a in enumerate(strangers)])
    judge.settle(120)
    # at most [limits] observers_per_game seats, none of them confirmed: nobody asked
    waiting = observers(judge, game)
    assert len(waiting) == 30 and observers(judge, game, confirmed=True) == []
    # the master runs the game as ever: nothing is refused, nothing reaches a stranger
    reply = exchange(judge, GM, f"SIGNON M{game} mpw\nSET DEADLINE 72h\nSET RULES CIVIL_DISORDER"
                     "\nPAUSE\nRESUME\nPROCESS")
    assert "6 lines read, 0 errors." in reply, reply
    (player, letter), = list(letters.items())[:1]
    reply = exchange(judge, player, f"SIGNON {letter}{game} pw\nBROADCAST\nHello all.\nENDPRESS")
    assert "Broadcast of 1 line sent to everyone in pub1." in reply, reply
    judge.settle()
    assert game_mail_to(judge, game) == set(members)
    # each stranger got its one reply (the code it never sent back), and nothing more
    for address in strangers:
        (only,) = mails_to(judge, address)
        assert only["In-Reply-To"] and "CONFIRM" in text(only)
    # an observer that confirms gets the game's mail from then on
    code = code_in(text(mails_to(judge, waiting[-1])[0]))
    assert "Confirmed:" in exchange(judge, waiting[-1], f"CONFIRM {code}")
    assert "has been processed" in exchange(judge, GM, f"SIGNON M{game} mpw\nPROCESS")
    judge.settle()
    assert game_mail_to(judge, game) == {*members, waiting[-1]}


def test_one_address_holds_one_seat_however_often_it_asks(shared_judge: RunningJudge) -> None:
    judge, game, me = shared_judge, "pub2", "many@victims.example.net"
    two_player_game(judge, game)
    (mid,) = send_all(judge, [make_mail("\n".join([f"OBSERVE {game} pw"] * 20), sender=me)])
    reply = text(reply_of(judge, mid))
    assert reply.count("CONFIRM ") == 1, reply
    assert reply.count(f"this mail has asked to observe {game} already") == 19
    assert observers(judge, game) == [me]
    assert "Confirmed:" in exchange(judge, me, f"CONFIRM {code_in(reply)}")
    reply = exchange(judge, me, f"OBSERVE {game} pw\nOBSERVE {game} pw")
    assert reply.count(f"Error: {me} already observes {game}.") == 2
    # a player has a place already
    player = f"{game}-p0@example.org"
    assert f"{player} already has a place in {game}" in exchange(judge, player,
                                                                 f"OBSERVE {game} pw")
    assert observers(judge, game) == [me]


def test_a_cap_of_confirmed_observers_is_never_a_reason_to_refuse_the_game(
        judge_factory: Callable[..., RunningJudge]) -> None:
    """With more confirmed observers than one mail may copy to strangers, the game moves."""
    judge = judge_factory(JUDGE_LIMITS_MAIL_PER_MAIL="3", JUDGE_LIMITS_OBSERVERS_PER_GAME="5")
    game = "big"
    letters = two_player_game(judge, game)
    watchers = [f"w{i}@example.org" for i in range(5)]
    for address in watchers:
        observe(judge, address, game)
    assert "as many observers as a game may have (5)" in exchange(
        judge, "late@example.org", f"OBSERVE {game} pw")
    reply = exchange(judge, GM, f"SIGNON M{game} mpw\nSET DEADLINE 72h\nPAUSE\nRESUME\nPROCESS")
    assert "5 lines read, 0 errors." in reply, reply
    player, letter = next(iter(letters.items()))
    reply = exchange(judge, player, f"SIGNON {letter}{game} pw\nBROADCAST\nHi\nENDPRESS\n"
                     f"BROADCAST\nHi again\nENDPRESS")
    assert "3 lines read, 0 errors." in reply, reply
    judge.settle()
    assert game_mail_to(judge, game) == {GM, *letters, *watchers}
    # copies to strangers are still counted: REPLACE to five new addresses in one mail
    reply = exchange(judge, GM, f"SIGNON M{game} mpw\n" + "\n".join(
        f"REPLACE {p} new{i}@example.org pw" for i, p in enumerate("AEIRT")))
    assert reply.count("Not executed: this mail has already made the judge write 3") == 2


# --------------------------------------------------------------------------- the master's


def test_the_master_takes_observers_out_one_or_all(shared_judge: RunningJudge) -> None:
    judge, game = shared_judge, "pub3"
    two_player_game(judge, game)
    watchers = [f"{game}-w{i}@example.org" for i in range(3)]
    for address in watchers:
        observe(judge, address, game)
    pending = f"{game}-pending@victims.example.net"
    exchange(judge, pending, f"OBSERVE {game} pw")
    # the master's LIST shows who observes, and who has still to confirm
    listed = exchange(judge, GM, f"SIGNON M{game} mpw\nLIST {game}")
    assert f"Observers: 4\n  {watchers[0]}\n" in listed, listed
    assert f"  {pending}  (waiting to confirm)\n" in listed
    assert pending not in exchange(judge, watchers[1], f"LIST {game}")
    reply = exchange(judge, GM, f"SIGNON M{game} mpw\nEJECT {watchers[0]}")
    assert f"{watchers[0]} no longer observes {game}" in reply, reply
    assert f"Error: the master of {game} has taken you out of its observers" in exchange(
        judge, watchers[0], f"OBSERVE {game} pw")
    reply = exchange(judge, GM, f"SIGNON M{game} mpw\nEJECT OBSERVERS\nEJECT OBSERVERS\nPROCESS")
    assert f"3 observers no longer observe {game}" in reply, reply
    assert f"{game} has no observers." in reply and "0 errors" in reply
    judge.settle()
    assert observers(judge, game) == []
    # each who had confirmed was told once; the one still waiting got nothing more
    for address in watchers:
        told = [m for m in mails_to(judge, address) if "Ejected" in str(m["Subject"])]
        assert len(told) == 1 and "taken you out of its observers" in text(told[0])
    assert len(mails_to(judge, pending)) == 1
    assert game_mail_to(judge, game) >= set(watchers)
    results = judge.sql("SELECT recipients FROM outbox WHERE subject = :s",
                        s=f"JUDGE:{game} - S1901M Results")
    assert {r for (r,) in results} == {GM, f"{game}-p0@example.org", f"{game}-p1@example.org"}


def test_no_observations_sends_the_observers_away_each_told_once(
        shared_judge: RunningJudge) -> None:
    judge, game = shared_judge, "pub4"
    two_player_game(judge, game)
    watchers = [f"{game}-w{i}@example.org" for i in range(2)]
    for address in watchers:
        observe(judge, address, game)
    reply = exchange(judge, GM, f"SIGNON M{game} mpw\nSET RULES NO_OBSERVATIONS")
    assert f"2 observers no longer observe {game}." in reply, reply
    judge.settle()
    assert observers(judge, game) == []
    for address in watchers:
        about = [m for m in mails_to(judge, address) if str(m["Subject"]).startswith(
            f"JUDGE:{game} - ") and not m["In-Reply-To"]]
        assert [str(m["Subject"]) for m in about] == [
            f"JUDGE:{game} - S1901M Closed to observers"]
        assert "no longer lets anyone observe it (NO_OBSERVATIONS)" in text(about[0])
    assert f"Error: {game} does not allow observers." in exchange(
        judge, watchers[0], f"OBSERVE {game} pw")


# --------------------------------------------------------------------------- press


def test_a_quarter_megabyte_broadcast_is_refused_naming_the_limit(
        shared_judge: RunningJudge) -> None:
    judge, game = shared_judge, "pub5"
    letters = two_player_game(judge, game)
    player, letter = next(iter(letters.items()))
    body = "\n".join(f"{i:04d} " + "spam " * 34 for i in range(1400))  # 247 KB
    before = judge.sql("SELECT count(*) FROM outbox")[0][0]
    (mid,) = send_all(judge, [make_mail(f"SIGNON {letter}{game} pw\nBROADCAST\n{body}\n"
                                        "ENDPRESS", sender=player)])
    reply = text(reply_of(judge, mid))
    assert "Error: the press has 1400 lines, more than a press may have (200)." in reply
    assert judge.sql("SELECT count(*) FROM outbox")[0][0] == before + 1  # the reply alone
    assert judge.sql("SELECT count(*) FROM press p JOIN games g ON g.id = p.game_id"
                     " WHERE g.name = :g", g=game) == [(0,)]
    wide = "x" * 11_000
    reply = exchange(judge, player, f"SIGNON {letter}{game} pw\nBROADCAST\n{wide}\nENDPRESS")
    assert "Error: the press is 11000 bytes long, more than a press may be (10000 bytes)." \
        in reply


def test_press_is_held_to_a_byte_budget_and_the_game_never_is(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_LIMITS_MAIL_BYTES_PER_MAIL="20000",
                          JUDGE_LIMITS_MAIL_BYTES_PER_DAY="30000")
    game = "budget"
    letters = two_player_game(judge, game)
    player, letter = next(iter(letters.items()))
    press = "BROADCAST\n" + ("word " * 1000).strip() + "\nENDPRESS"  # two copies of ~5.5 KB
    sign = f"SIGNON {letter}{game} pw"
    reply = exchange(judge, player, f"{sign}\n{press}\n{press}")
    assert reply.count("sent to everyone") == 1, reply
    assert "Not executed: this would make the judge send" in reply
    assert "more than one mail may make it send (20000 bytes in all)" in reply
    assert "sent to everyone" in exchange(judge, player, f"{sign}\n{press}")
    reply = exchange(judge, player, f"{sign}\n{press}")
    assert "more than the mail of one address may make it send in a UTC day (30000 bytes)" \
        in reply, reply
    # the game moves on however much it mails: orders, the master's commands
    reply = exchange(judge, GM, f"SIGNON M{game} mpw\nSET DEADLINE 72h\nPAUSE\nRESUME\nPROCESS")
    assert "5 lines read, 0 errors." in reply, reply


# --------------------------------------------------------------------------- MAP floods


def test_a_forged_map_flood_reflects_no_pictures(shared_judge: RunningJudge) -> None:
    judge = shared_judge
    exchange(judge, GM, "\n".join(f"CREATE g{i} mpw" for i in range(3)))
    victim = "victim@victims.example.net"
    (mid,) = send_all(judge, [make_mail("\n".join(f"MAP g{i}" for i in range(24)),
                                        sender=victim)])
    reply = reply_of(judge, mid)
    assert not reply.is_multipart() and list(reply.iter_attachments()) == []
    assert text(reply).count("no picture comes with this reply") == 3
    assert len(reply.as_bytes()) < 20_000
    assert judge.sql("SELECT count(*) FROM outbox WHERE recipients = :a AND attachment IS NOT"
                     " NULL", a=victim) == [(0,)]
    # the master's MAP of the game still has its picture
    msg = make_mail("MAP g0", sender=GM)
    judge.send(msg, mail_from=GM)
    assert len(list(reply_of(judge, str(msg["Message-ID"])).iter_attachments())) == 1
