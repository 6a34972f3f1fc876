"""The command language's parser and executor: line numbers, comments, longest command match,
SIGNOFF, and one answer per line, in order, with clear errors."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterator

import pytest

from conftest import JUDGE_ADDRESS, make_mail
from judge import __version__
from judge.commands import registry
from judge.commands.context import Context
from judge.commands.execute import execute
from judge.commands.parse import Command, OtherLine, mask_passwords, read_items, strip_comment
from judge.basics.config import Config, JudgeSection
from judge.mail.writing.compose import Composer
from judge.mail.reading.message import read_message
from judge.store.db import Store
from judge.store.schema import ensure_schema

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=timezone.utc)


def describe(items: list) -> list[tuple]:
    out = []
    for item in items:
        if isinstance(item, Command):
            out.append((item.line_no, item.spec.name, item.args))
        else:
            out.append((item.line_no, "OTHER", item.text))
    return out


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A private copy of the registry: commands registered in a test vanish after it."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_MAX_WORDS", registry._MAX_WORDS)
    yield


def noop(ctx: Context, cmd: Command) -> None:
    ctx.answer(cmd.line_no, cmd.text, f"did {cmd.spec.name}")


# --------------------------------------------------------------------------- parsing


def test_line_numbers_comments_and_blank_lines() -> None:
    items = read_items([
        "help   // what can I do?",
        "",
        "   ",
        "// just a comment",
        "A Par-Bur",
        "\tversion",
    ])
    assert describe(items) == [(1, "HELP", ()), (5, "OTHER", "A Par-Bur"), (6, "VERSION", ())]
    assert items[0].text == "help"  # the comment is not part of the line


def test_strip_comment() -> None:
    assert strip_comment("  A PAR H // hold, please ") == "A PAR H"
    assert strip_comment("// all comment") == ""


def test_unknown_words_are_other_lines() -> None:
    items = read_items(["FROBNICATE now", "F Lon S A Yor-Nwy", "gets draws"])
    assert all(isinstance(i, OtherLine) for i in items)
    assert [i.text for i in items] == ["FROBNICATE now", "F Lon S A Yor-Nwy", "gets draws"]


def test_command_words_are_case_insensitive_and_args_kept() -> None:
    (item,) = read_items(["gEt   Draws"])
    assert isinstance(item, Command)
    assert item.spec.name == "GET"
    assert item.args == ("Draws",)
    assert item.rest == "Draws"


def test_longest_multi_word_command_wins(scratch_registry: None) -> None:
    registry.command("SET", syntax="SET <what>")(noop)
    registry.command("SET", "DRUM", syntax="SET DRUM [<beats>]")(noop)
    items = read_items(["set drum AEF", "SET COLOUR", "Set Drumming", "SET   DRUM"])
    assert describe(items) == [
        (1, "SET DRUM", ("AEF",)),
        (2, "SET", ("COLOUR",)),
        (3, "SET", ("Drumming",)),
        (4, "SET DRUM", ()),
    ]
    assert items[0].rest == "AEF"


def test_scratch_registrations_do_not_leak() -> None:
    assert registry.lookup(["SET", "DRUM"]) is None


def test_a_registered_command_name_cannot_be_taken_twice(scratch_registry: None) -> None:
    with pytest.raises(ValueError):
        registry.command("HELP")(noop)


def test_block_command_swallows_its_lines() -> None:
    # PRESS is a real block command (judge.commands.handlers.press)
    items = read_items(["PRESS TO E", "HELP me, England", "// not a comment here",
                         "  endpress ", "VERSION"])
    assert describe(items) == [(1, "PRESS", ("TO", "E")), (5, "VERSION", ())]
    assert items[0].block == ("HELP me, England", "// not a comment here")
    assert not items[0].unterminated
    (lone,) = read_items(["PRESS", "never ended"])
    assert lone.unterminated and lone.block == ("never ended",)


def test_signoff_stops_parsing() -> None:
    items = read_items(["VERSION", "SIGNOFF", "HELP", "A Par-Bur"])
    assert describe(items) == [(1, "VERSION", ()), (2, "SIGNOFF", ())]


# --------------------------------------------------------------------------- executing


@pytest.fixture
def config() -> Config:
    return Config(judge=JudgeSection(address=JUDGE_ADDRESS, name="XJUDGE"))


_STORE: list[Store] = []


@pytest.fixture(autouse=True)
def _store(migrated_db_url: str) -> Iterator[None]:
    """Commands run in savepoints of a real store's transaction."""
    store = Store(migrated_db_url)
    ensure_schema(store.engine)
    _STORE.append(store)
    yield
    _STORE.remove(store)
    store.dispose()


def run(config: Config, body: str) -> Context:
    mail = read_message(make_mail(body).as_bytes(), envelope_sender="alice@example.org",
                        judge_address=config.judge.address)
    with _STORE[-1].transaction() as session:
        ctx = Context(session=session, config=config, mail=mail, now=NOW,
                      render=Composer(config).render)
        return execute(ctx)


def test_every_line_is_answered_in_order(config: Config) -> None:
    ctx = run(config, "VERSION\n\nfrobnicate the judge\nGET nonsense\nhelp // please\n")
    assert [(a.line_no, a.text, a.ok) for a in ctx.answers] == [
        (1, "VERSION", True),
        (3, "frobnicate the judge", False),
        (4, "GET nonsense", False),
        (5, "help", True),
    ]
    assert ctx.answers[0].response == f"XJUDGE is judge version {__version__}."


def test_an_unknown_command_is_an_error_naming_the_word(config: Config) -> None:
    (answer,) = run(config, "Frobnicate all units\n").answers
    assert not answer.ok
    assert answer.response.startswith("Error:")
    assert '"Frobnicate"' in answer.response
    assert "HELP" in answer.response


def test_an_order_before_signon_is_refused_not_lost(config: Config) -> None:
    answers = run(config, "A Par-Bur\nVERSION\n").answers
    assert [a.ok for a in answers] == [False, True]
    assert "SIGNON" in answers[0].response


def test_get_with_an_unknown_topic_names_the_topics(config: Config) -> None:
    (answer,) = run(config, "GET nonsense\n").answers
    assert not answer.ok
    assert '"nonsense"' in answer.response
    for topic in ("COMMANDS", "DRAWS", "FORMAL", "INFO", "ORDERS", "RULES"):
        assert topic in answer.response
    assert "INDEX" not in answer.response


def test_get_without_a_topic_names_the_topics(config: Config) -> None:
    (answer,) = run(config, "GET\n").answers
    assert not answer.ok and "DRAWS" in answer.response


def test_get_draws_renders_the_draws_help(config: Config) -> None:
    (answer,) = run(config, "get draws\n").answers
    assert answer.ok
    assert answer.response.startswith("DRAWS AND CONCESSIONS ON XJUDGE")
    assert "SET DRAW" in answer.response
    assert "{{" not in answer.response


def test_help_renders_the_index(config: Config) -> None:
    (answer,) = run(config, "HELP\n").answers
    assert answer.ok
    assert answer.response.startswith("XJUDGE - a Diplomacy judge by email")
    assert JUDGE_ADDRESS in answer.response
    assert "{{" not in answer.response


def test_signoff_ends_the_mail_and_is_answered(config: Config) -> None:
    answers = run(config, "VERSION\nSIGNOFF\nHELP\n").answers
    assert [a.text for a in answers] == ["VERSION", "SIGNOFF"]
    assert "rest of the mail was not read" in answers[1].response


def test_list_answers_even_without_games(config: Config, migrated_db_url: str) -> None:
    from judge.store.db import Store
    from judge.store.schema import ensure_schema
    store = Store(migrated_db_url)
    ensure_schema(store.engine)
    mail = read_message(make_mail("LIST\nLIST war1901\n").as_bytes(),
                        envelope_sender="alice@example.org", judge_address=config.judge.address)
    with store.transaction() as session:
        answers = execute(Context(session=session, config=config, mail=mail, now=NOW,
                                  render=Composer(config).render)).answers
    store.dispose()
    assert "no games on this judge" in answers[0].response
    assert answers[0].ok
    assert not answers[1].ok and '"war1901"' in answers[1].response


@pytest.mark.parametrize("text,masked", [
    ("SIGNON Fwar1901 secret", "SIGNON Fwar1901 ****"),
    ("Re: AW: signon Fwar1901 secret", "Re: AW: signon Fwar1901 ****"),
    ("my orders, SIGNON Fwar1901 secret", "my orders, SIGNON Fwar1901 ****"),
    ("LIST war1901 PRIVACY secret", "LIST war1901 PRIVACY ****"),
    ("CREATE g secret TOURNAMENT cup other", "CREATE g **** TOURNAMENT cup ****"),
    # no password the judge can recognise: unchanged, spacing and all
    ("wrong  password", "wrong  password"),
    ("SIGNON problems", "SIGNON problems"),
    ("", ""),
])
def test_passwords_in_a_text_that_is_no_command_line_are_masked(text: str, masked: str) -> None:
    assert mask_passwords(text) == masked


@pytest.mark.parametrize("before", ["x " * 5000, "LIST a " * 5000, "SIGNON " * 300])
def test_a_password_after_a_long_text_is_masked_too(before: str) -> None:
    masked = mask_passwords(before + "SIGNON Fwar1901 secret")
    assert "secret" not in masked and masked.endswith("****")
