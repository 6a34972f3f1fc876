"""No mail the judge writes quotes a password back: every command that carries one (the
registry's ``secrets``) shows it as ``****`` in the reply and in every copy of it, and no
other mail (broadcasts, notices, HISTORY) carries it either.

Each command is sent on its own, well-formed and then mistyped (a password of two words, a
missing word), and every mail queued after it is searched for the password's text.  The list
of commands tested is checked against the registry, so a new command with a password cannot
be added without a case here."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from sqlalchemy import select

from conftest import run_cli
from gamekit import Judge, code_in, player
from judge.commands import execute  # noqa: F401  (registers every command)
from judge.commands import registry
from judge.commands.parse import MASK, read_items
from judge.commands.registry import all_commands
from judge.store.models import OutboxMessage

MASTER = "master@example.org"
STRANGER = "stranger@example.org"


def secret(n: int) -> str:
    """A password no mail could contain by chance."""
    return f"Zq{n}x7Secret"


def without(j: Judge, sender: str, body: str, *words: str, subject: str = "orders") -> str:
    """Send ``body``; assert that no mail queued for it contains any of ``words``; the
    reply."""
    reply = j.mail(sender, body, subject=subject)
    for mail in [reply, *j.last_broadcasts]:
        for word in words:
            assert word not in mail.body and word not in mail.subject, (body, mail.body)
    return reply.body


# Every command with a password, and the lines that give one (with mistakes): the test below
# checks that this covers the registry.
CASES = {
    "CREATE": ["CREATE g {m} RULES POWER_CHOICE START_MASTER TOURNAMENT cup {t} PRIVACY {p}",
               "CREATE h {a}", "CREATE k {a} TOURNAMENT cup {b}", "CREATE i {a} {b}"],
    "JOIN": ["JOIN g {a} France PRIVACY {p}", "JOIN g {a} PRIVACY {b}", "JOIN g {a} {b} {c}"],
    "OBSERVE": ["OBSERVE g {a} PRIVACY {p}", "OBSERVE g {a} PRIVACY {b}", "OBSERVE g {a} {b}"],
    "SIGNON": ["SIGNON ?g {a} PRIVACY {p}", "SIGNON ?g {a} PRIVACY {b}", "SIGNON Mg {a}",
               "SIGNON Mg {a} {b}", "SIGNON Mg {m} {a}"],
    "LIST": ["LIST g PRIVACY {a}", "LIST g PRIVACY {p}"],
    "HISTORY": ["HISTORY g PRIVACY {a}", "HISTORY g S1901M PRIVACY {p}"],
    "SUMMARY": ["SUMMARY g PRIVACY {a}", "SUMMARY g PRIVACY {p}"],
    "MAP": ["MAP g PRIVACY {a}", "MAP g PRIVACY {p}"],
    # signed on as the master first (the password {m} is then also checked for)
    "SET PASSWORD": ["SET PASSWORD {a} {b}", "SET PASSWORD {m}"],
    "SET PRIVACY": ["SET PRIVACY {a} {b}", "SET PRIVACY {p}"],
    "REPLACE": ["REPLACE France new@example.org {a}", "REPLACE France new@example.org {a} {b}",
                "REPLACE France nowhere {a}"],
}
MASTER_COMMANDS = {"SET PASSWORD", "SET PRIVACY", "REPLACE"}


def test_every_command_with_a_password_is_covered() -> None:
    assert {s.name for s in all_commands() if s.secrets} == set(CASES)


def test_every_password_of_the_registry_is_masked_when_parsed() -> None:
    # the registry's syntax, every <...password...> and <new> filled with a secret
    for spec in all_commands():
        words, hidden = [], []
        for n, word in enumerate(spec.syntax.replace("[", " ").replace("]", " ")
                                 .replace("<privacy password>", "<privacy-password>").split()):
            if "|" in word or word == "...":
                break
            if word.startswith("<"):
                if "password" in word or word == "<new>":
                    hidden.append(secret(n))
                    word = secret(n)
                else:
                    word = {"<game>": "g", "<X><game>": "Fg", "<power>": "France",
                            "<address>": "a@example.org"}.get(word, "x")
            words.append(word)
        line = " ".join(words)
        (item,) = read_items([line])
        for word in hidden:
            assert word not in item.text, (spec.name, item.text)
        assert item.text.count(MASK) == len(hidden), (spec.name, item.text)
        assert bool(hidden) == bool(spec.secrets), spec.name


def test_no_mail_quotes_a_password(judge_in_process: Judge) -> None:
    j = judge_in_process
    m, p, t = secret(1), secret(2), secret(3)
    a, b, c = secret(4), secret(5), secret(6)
    filled = dict(m=m, p=p, t=t, a=a, b=b, c=c)
    # the game g (private, in tournament cup) exists once the first CREATE has run
    for name in ["CREATE", "JOIN", "OBSERVE", "SIGNON", "LIST", "HISTORY", "SUMMARY", "MAP"]:
        for line in CASES[name]:
            without(j, STRANGER if name != "CREATE" else MASTER, line.format(**filled),
                    m, p, t, a, b, c)
    # France has a player: start the game so that REPLACE has a power to give
    j.mail(player(0), f"JOIN g {a} France PRIVACY {p}")
    reply = without(j, MASTER, f"SIGNON Mg {m}\nSTART", m, p, a)
    assert "g has started." in reply
    for name in sorted(MASTER_COMMANDS):
        for line in CASES[name]:
            body = f"SIGNON Mg {m}\n{line.format(**filled)}"
            reply = without(j, MASTER, body, m, p, t, a, b, c)
            if "SET PASSWORD" in line and "Your password has been changed." in reply:
                m = line.split()[-1].format(**filled)  # the master's password now
    # the lines were read and answered, with **** where the passwords were
    reply = without(j, MASTER, f"SIGNON Mg {m}\nHISTORY g\nLIST g", m, p, a)
    assert "> SIGNON Mg ****" in reply and "Error" not in reply


def test_replies_show_where_the_passwords_were(judge_in_process: Judge) -> None:
    j = judge_in_process
    m, p, a, b = secret(1), secret(2), secret(3), secret(4)
    reply = without(j, MASTER, f"CREATE g {m} PRIVACY {p}\nSET PASSWORD {a} {b}", m, p, a, b)
    assert "> CREATE g **** PRIVACY ****\n" in reply
    assert "> SET PASSWORD **** ****\nError: SET PASSWORD needs one word" in reply
    reply = without(j, STRANGER, f"SIGNON ?g {a} PRIVACY {p}", m, p, a)
    assert "> SIGNON ?g **** PRIVACY ****\nYou have joined g" in reply
    reply = without(j, STRANGER, f"SIGNON Mg {a} {b}", a, b)
    assert "> SIGNON Mg **** ****\nError: SIGNON <X><game> <password>" in reply


def test_only_the_password_given_is_masked_not_the_same_word_elsewhere(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    j.mail(MASTER, f"CREATE g {secret(1)}")
    observer = "observer@example.org"
    # an observer whose password is a word of the answer reads the answer whole
    reply = without(j, observer, "OBSERVE g mail")
    assert "> OBSERVE g ****\nYou have asked to observe g. To get its mail, answer" in reply
    j.mail(observer, f"CONFIRM {code_in(reply)}")  # its own address: every try is checked
    for password in ("wrong", "password", "Og"):
        reply = j.mail(observer, f"SIGNON Og {password}").body
        assert "> SIGNON Og ****\nError: wrong password for Og." in reply, reply
    # where the answer quotes a word of the line that is a password, it quotes ****
    reply = without(j, MASTER, f"CREATE h {secret(2)} {secret(3)}", secret(3))
    assert '> CREATE h **** ****\nError: "****" is not understood here' in reply
    reply = j.mail(MASTER, "CREATE k pw understood").body
    assert '> CREATE k **** ****\nError: "****" is not understood here' in reply
    # a password of two words is not taken for a power (which the refusal would quote)
    j.mail(MASTER, f"CREATE c {secret(4)} RULES POWER_CHOICE")
    reply = without(j, player(1), f"JOIN c {secret(5)} {secret(6)}", secret(5), secret(6))
    assert "> JOIN c **** ****\nError: JOIN needs a game name and a password" in reply
    # a word of the line that is no password is quoted as written
    reply = j.mail(MASTER, "CREATE k pw VARIANT standard here").body
    assert '> CREATE k **** VARIANT standard here\nError: "here" is not understood here' in reply


# --------------------------------------------------------------------------- the subject

def test_a_password_in_the_subject_is_written_nowhere(judge_in_process: Judge,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    j = judge_in_process
    j.mail(MASTER, f"CREATE g {secret(1)}")
    word = secret(7)
    # no command in the body: the subject is not read, and the reply says where commands go
    reply = without(j, STRANGER, "", word, subject=f"SIGNON Mg {word}")
    assert "The judge does not read the subject of a mail" in reply
    # commands in the body are answered; the subject's password is masked all the same,
    # behind other mail programs' prefixes, or after other words
    reply = j.mail(STRANGER, "VERSION", subject=f"AW: Re: JOIN g {word} France")
    assert reply.subject == "Re: JOIN g **** France", reply.subject
    assert "subject" not in reply.body
    reply = j.mail(STRANGER, "VERSION", subject=f"my orders SIGNON Mg {word}")
    assert reply.subject == "Re: my orders SIGNON Mg ****"
    reply = j.mail(STRANGER, "VERSION", subject="Re: SIGNON Fwar1901 secret")
    assert reply.subject == "Re: SIGNON Fwar1901 ****"  # docs/mail-format.md's example
    # an ordinary subject is left alone, and said nothing of
    reply = j.mail(STRANGER, "", subject="wrong password")
    assert reply.subject == "Re: wrong password" and "subject" not in reply.body
    # a line of the body that is no command but holds one is quoted masked too
    reply = without(j, STRANGER, f"please SIGNON Mg {word}", word)
    assert "> please SIGNON Mg ****\n" in reply
    # the answer to a mail set aside names its subject
    spec = registry._REGISTRY[("LIST",)]
    monkeypatch.setitem(registry._REGISTRY, ("LIST",), replace(spec, handler=lambda *a: 1 / 0))
    reply = without(j, STRANGER, "LIST g", word, subject=f"SIGNON Mg {word}")
    assert "(subject: SIGNON Mg ****)" in reply
    monkeypatch.undo()
    # nor is it in what the judge stores of the mail it wrote, or lists
    with j.store.transaction() as s:
        for subject, raw in s.execute(select(OutboxMessage.subject, OutboxMessage.raw)):
            assert word not in subject and word.encode() not in raw, subject
    for listing in (["outbox", "list"], ["inbound", "list", "--status", "all"]):
        shown = run_cli(listing, env={**os.environ, "JUDGE_DATABASE_URL": j.store.url})
        assert shown.returncode == 0 and word not in shown.stdout, shown.stdout
        if listing[0] == "outbox":
            assert "Re: SIGNON Mg ****" in shown.stdout, shown.stdout
