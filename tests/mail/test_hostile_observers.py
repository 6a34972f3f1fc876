"""Hostile mail about who follows a game, against a running daemon by SMTP (SQLite, or
PostgreSQL with ``JUDGE_TEST_DATABASE_URL``): press of a quarter of a megabyte.

Each test plays the attack, then checks what reached whom in the judge's outbox.
"""

from __future__ import annotations

from email import policy
from email.message import EmailMessage

from conftest import JUDGE_ADDRESS, RunningJudge, body_of, make_mail
from smtpkit import exchange, wait_assignments

GM = "gm@example.org"


# --------------------------------------------------------------------------- helpers


def send_all(judge: RunningJudge, mails: list[EmailMessage]) -> list[str]:
    """Mail them all in one SMTP session (forged senders at will); their Message-IDs."""
    with judge.smtp() as smtp:
        for msg in mails:
            smtp.sendmail(str(msg["From"]), [JUDGE_ADDRESS], msg.as_bytes(policy=policy.SMTP))
    return [str(m["Message-ID"]) for m in mails]


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
