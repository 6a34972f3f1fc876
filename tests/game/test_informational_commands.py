"""Informational commands (HELP, GET, VERSION, LIST, HISTORY, SUMMARY, STANDINGS) only answer:
they write nothing to the store, which is why the judge runs them without a savepoint of their
own (judge.commands.execute), but the count of a privacy password's guesses (each guess is
counted before it is checked, and a right one taken back: judge.service.access.privacy). Each is run
here on a judge with a game past its first phase, in a tournament, and a private game, by
strangers and by a signed-on player and master, and every statement it sends to the database is
watched."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event

from conftest import make_mail
from gamekit import Judge, signon, start_full_game
from judge.commands.context import Context
from judge.commands.execute import run_one
from judge.commands.parse import Command, read_items
from judge.commands.registry import all_commands
from judge.mail.writing.compose import Composer
from judge.mail.reading.message import read_message
from judge.basics.utc import utcnow

# Mails whose informational lines are watched (the other lines, SIGNON, may write).
MAILS = [
    "HELP\nVERSION\nGET COMMANDS\nGET INFO\nGET DRAWS\nGET RULES\nGET nonsense\nGET",
    "LIST\nLIST war1901\nLIST nosuchgame\nLIST hidden\nLIST hidden PRIVACY hush",
    "HISTORY war1901\nHISTORY war1901 S1901M\nSUMMARY war1901\nSUMMARY nosuchgame",
    "HISTORY hidden PRIVACY hush\nSUMMARY hidden PRIVACY hush",
    "STANDINGS\nSTANDINGS cup\nSTANDINGS nope\nSTANDINGS cup SYSTEM foo",
    "SIGNON Mwar1901 mpw\nLIST war1901\nHISTORY war1901\nSUMMARY war1901\nLIST",
    "{france}\nLIST war1901\nHISTORY war1901\nSUMMARY war1901\nSTANDINGS cup",
]
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER")


@pytest.fixture
def judge(judge_in_process: Judge) -> Judge:
    j = judge_in_process
    start_full_game(j, extra="TOURNAMENT cup tpw")
    assert "now at F1901M" in j.mail("master@example.org",
                                     "SIGNON Mwar1901 mpw\nPROCESS").body
    assert "created" in j.mail("other@example.org", "CREATE hidden hpw PRIVACY hush").body
    return j


def test_informational_commands_write_nothing(judge: Judge) -> None:
    j = judge
    written: list[str] = []
    watching = False

    def watch(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if watching and statement.lstrip().upper().startswith(WRITES):
            written.append(statement)

    event.listen(j.store.engine, "before_cursor_execute", watch)
    ran: set[tuple[str, ...]] = set()
    for body in MAILS:
        body = body.format(france=signon(j, "FRANCE"))
        mail = read_message(make_mail(body, sender="player2@example.org").as_bytes(),
                            envelope_sender="player2@example.org",
                            judge_address=j.config.judge.address)
        with j.store.transaction() as session:
            ctx = Context(session=session, config=j.config, mail=mail, now=utcnow(),
                          render=Composer(j.config).render)
            for item in read_items(list(mail.lines)):
                informational = isinstance(item, Command) and item.spec.informational
                watching = informational
                run_one(ctx, item)
                watching = False
                if informational:
                    assert isinstance(item, Command)
                    ran.add(item.spec.words)
                    if "PRIVACY" in item.text:
                        written[:] = [w for w in written if "daily_counts" not in w]
                    assert not written, (item.text, written)
            assert all(a.ok for a in ctx.answers if a.text.startswith("SIGNON")), ctx.answers
    # every informational command of the registry was run (a new one must be added above)
    assert ran == {spec.words for spec in all_commands() if spec.informational}
