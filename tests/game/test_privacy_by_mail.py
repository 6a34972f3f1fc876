"""Private games by mail: a privacy password (CREATE … PRIVACY, SET PRIVACY, or the one the
judge assigns to a SOLITAIRE game: "A PRIVACY password will be automatically assigned, because
these are typically private games", DPjudge's rules) keeps strangers out.  Without it they
cannot OBSERVE or JOIN, LIST does not show the game, HISTORY and SUMMARY refuse them; players
and the master, signed on, need none."""

from __future__ import annotations

from sqlalchemy import select

from gamekit import Judge, observe, player
from judge.service.access.passwords import check_password
from judge.store.models import Game, Seat

MASTER = "master@example.org"
STRANGER = "stranger@example.org"
M = "SIGNON Mg mpw"
REFUSED = "Error: g is a private game: give its privacy password"


def game_row(j: Judge) -> Game:
    with j.store.transaction() as s:
        game = s.scalars(select(Game).where(Game.name_key == "g")).one()
        s.expunge(game)
        return game


def seats(j: Judge, kind: str) -> list[str]:
    with j.store.transaction() as s:
        return [x.address for x in s.scalars(select(Seat).where(Seat.kind == kind))]


def test_a_private_game_is_hidden_from_strangers(judge_in_process: Judge) -> None:
    j = judge_in_process
    reply = j.mail(MASTER, "CREATE g mpw RULES POWER_CHOICE PRIVACY hush").body
    assert "g is private: strangers must give its privacy password" in reply
    assert "Players join with JOIN g <password> PRIVACY <privacy password>." in reply
    assert check_password("hush", game_row(j).privacy_hash)  # stored hashed
    j.mail(MASTER, "CREATE open mpw")
    # LIST does not show it to a stranger; LIST g, HISTORY, SUMMARY, OBSERVE, JOIN refuse
    listing = j.mail(STRANGER, "LIST").body
    assert "open " in listing and "\ng " not in listing
    for command, how in [("LIST g", "LIST g PRIVACY <privacy password>"),
                         ("HISTORY g", "HISTORY g PRIVACY <privacy password>"),
                         ("SUMMARY g", "SUMMARY g PRIVACY <privacy password>"),
                         ("MAP g", "MAP g PRIVACY <privacy password>"),
                         ("OBSERVE g opw", "OBSERVE g <password> PRIVACY <privacy password>"),
                         ("JOIN g pw France", "JOIN g <password> PRIVACY <privacy password>"),
                         ("SIGNON ?g pw", "JOIN g <password> PRIVACY <privacy password>")]:
        reply = j.mail(STRANGER, command).body
        assert f"{REFUSED} ({how}), or sign on to it first." in reply, (command, reply)
    assert seats(j, "observer") == [] and seats(j, "power") == []
    # a wrong privacy password is refused too
    assert "Error: wrong privacy password for g." in j.mail(STRANGER, "LIST g PRIVACY no").body
    # with it, everything works
    assert "Game: g   Variant: Standard   State: forming   Private" in \
        j.mail(STRANGER, "LIST g PRIVACY hush").body
    assert "No phase of g has been processed yet." in \
        j.mail(STRANGER, "HISTORY g PRIVACY hush").body
    assert "Summary of g (forming)" in j.mail(STRANGER, "SUMMARY g PRIVACY hush").body
    # (no picture for a stranger: judge.commands.handlers.map_pictures)
    assert "no picture comes with this reply" in j.mail(STRANGER, "MAP g PRIVACY hush").body
    assert "You have asked to observe g" in observe(j, STRANGER, "g", extra="PRIVACY hush").body
    assert "You have joined g" in j.mail(player(0), "JOIN g pw0 France PRIVACY hush").body
    assert "You have joined g" in j.mail(player(1), "SIGNON ?g pw1 PRIVACY hush").body
    assert seats(j, "power") == [player(0), player(1)]


def test_players_and_the_master_signed_on_need_no_privacy_password(judge_in_process: Judge
                                                                    ) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE g mpw RULES POWER_CHOICE START_MASTER PRIVACY hush")
    j.mail(player(0), "JOIN g pw0 France PRIVACY hush")
    j.mail(MASTER, f"{M}\nSTART")
    reply = j.mail(player(0), "SIGNON Fg pw0\nLIST\nLIST g\nHISTORY g\nSUMMARY g").body
    assert "Error" not in reply, reply
    assert "Game: g   Variant: Standard   State: active   Private" in reply
    reply = j.mail(MASTER, f"{M}\nLIST").body
    assert "Error" not in reply and "State: active   Private" in reply
    # signed on to another game is not enough
    j.mail(MASTER, "CREATE other opw")
    reply = j.mail(MASTER, "SIGNON Mother opw\nHISTORY g").body
    assert REFUSED in reply


def test_the_master_sets_and_lifts_privacy(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE g mpw")
    assert "\ng " in j.mail(STRANGER, "LIST").body
    reply = j.mail(MASTER, f"{M}\nSET PRIVACY hush").body
    assert "g is private: whoever is not signed on to it must give this privacy password" in reply
    assert "\ng " not in j.mail(STRANGER, "LIST").body
    assert REFUSED in j.mail(STRANGER, "HISTORY g").body
    # only the master
    assert "Error: SET PRIVACY needs a SIGNON first." in j.mail(STRANGER, "SET PRIVACY x").body
    reply = j.mail(MASTER, f"{M}\nSET NOPRIVACY").body
    assert "g is public" in reply and game_row(j).privacy_hash is None
    assert "No phase of g has been processed yet." in j.mail(STRANGER, "HISTORY g").body


def test_solitaire_assigns_a_privacy_password_and_tells_the_master(judge_in_process: Judge
                                                                    ) -> None:
    j = judge_in_process
    reply = j.mail(MASTER, "CREATE g mpw RULES SOLITAIRE").body
    assert "SOLITAIRE games are private: the judge has given g the privacy password " in reply
    privacy = reply.split("the privacy password ", 1)[1].split()[0]
    assert check_password(privacy, game_row(j).privacy_hash)
    assert "\ng " not in j.mail(STRANGER, "LIST").body
    assert REFUSED in j.mail(STRANGER, "OBSERVE g opw").body
    assert "You have asked to observe g" in j.mail(STRANGER, f"OBSERVE g opw PRIVACY {privacy}").body
    # a privacy password the master gives is kept; SET RULES SOLITAIRE assigns one too
    reply = j.mail(MASTER, "CREATE h mpw PRIVACY mine RULES SOLITAIRE").body
    assert "the judge has given" not in reply
    reply = j.mail(MASTER, "CREATE k mpw\nSET RULES SOLITAIRE").body
    assert "SOLITAIRE games are private: the judge has given k the privacy password " in reply


def test_wrong_privacy_passwords_are_throttled(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, "CREATE g mpw PRIVACY hush")
    for _ in range(5):
        assert "wrong privacy password" in j.mail(STRANGER, "LIST g PRIVACY guess").body
    reply = j.mail(STRANGER, "LIST g PRIVACY hush").body
    assert "Error: too many wrong privacy passwords for g today" in reply
    # the players are never affected: they sign on
    assert "Game: g" in j.mail(MASTER, "SIGNON Mg mpw\nLIST").body


def test_get_commands_describes_privacy(judge_in_process: Judge) -> None:
    text = " ".join(judge_in_process.mail(STRANGER, "GET COMMANDS").body.split())
    for words in ("SET PRIVACY <privacy password>", "SET NOPRIVACY",
                  "OBSERVE <game> <password> [PRIVACY <privacy password>]",
                  "HISTORY <game> [<phase>] [PRIVACY <privacy password>]",
                  "[PRIVACY <privacy password>]"):
        assert words in text, words
    rules = " ".join(judge_in_process.mail(STRANGER, "GET RULES").body.split())
    assert "A SOLITAIRE game is private: the judge gives it a privacy password" in rules
