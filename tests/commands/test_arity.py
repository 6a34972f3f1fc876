"""How many words a command takes is declared in the registry and checked before its handler
runs: a wrong number is refused with the command's own answer, and nothing is done."""

from __future__ import annotations

from judge.commands.registry import all_commands, lookup


def spec(*words: str):  # type: ignore[no-untyped-def]
    found = lookup(list(words))
    assert found is not None
    return found[0]


def test_a_wrong_number_of_words_gets_the_commands_own_answer() -> None:
    assert spec("BECOME").args_problem(()) == "BECOME needs a power."
    assert spec("BECOME").args_problem(("France", "now")) == "BECOME needs a power."
    assert spec("BECOME").args_problem(("France",)) is None
    assert spec("ROLLBACK").args_problem(()) is None
    assert spec("ROLLBACK").args_problem(("S1902M",)) is None
    assert spec("ROLLBACK").args_problem(("S1902M", "x")) == \
        "ROLLBACK takes at most a phase, e.g. ROLLBACK S1902M."
    assert spec("CREATE").args_problem(("game1",)) == "CREATE needs a game name and a password."
    assert spec("CREATE").args_problem(("game1", "pw", "VARIANT", "standard")) is None
    assert spec("SET", "NODRAW").args_problem(("now",)) == "SET NODRAW takes nothing after it."
    assert spec("SET", "DIAS").args_problem(("x",)) == "SET DIAS takes nothing after it."


def test_a_switch_takes_one_of_its_words_in_any_case() -> None:
    for words, good in ((("SET", "MAP"), ("on", "OFF")), (("SET", "DRAWS"), ("On", "off")),
                        (("SET", "ADDRESSES"), ("public", "PRIVATE"))):
        for given in good:
            assert spec(*words).args_problem((given,)) is None
        for bad in ((), ("maybe",), (good[0], good[1])):
            assert spec(*words).args_problem(bad) == spec(*words).wrong_args, (words, bad)
    assert spec("SET", "MAP").wrong_args == "SET MAP takes ON or OFF."


def test_every_declaration_is_sound() -> None:
    declared = [s for s in all_commands() if s.args is not None]
    assert len(declared) >= 15
    for s in declared:
        least, most = s.args  # type: ignore[misc]
        assert 0 <= least and (most is None or least <= most), s.name
        assert s.wrong_args and s.args_problem(("x",) * (least - 1 if least else 99)), s.name


def test_a_command_without_a_message_of_its_own_answers_with_its_syntax() -> None:
    from dataclasses import replace

    bare = replace(spec("BECOME"), wrong_args="")
    assert bare.args_problem(()) == "BECOME is written BECOME <power>."
