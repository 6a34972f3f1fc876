"""A line that is no command and does not begin like an order is answered as an unknown
command (never as an unknown province), with the nearest command when one is near, and for a
known first word (SET) the words that may follow it; before and after a SIGNON alike."""

from __future__ import annotations

from gamekit import Judge, signon, start_full_game

HELP_LINE = "Send HELP for the list of commands.\n"
def _set_options() -> str:
    """What may follow SET, from the command registry, as the answer wraps it."""
    import textwrap

    import judge.commands.handlers  # noqa: F401  (registers the commands)
    from judge.commands.registry import all_commands
    words = sorted(" ".join(c.words[1:]) for c in all_commands()
                   if c.words[0] == "SET" and len(c.words) > 1)
    return textwrap.fill(", ".join(words), 72) + "."


SET_OPTIONS = _set_options()


def test_unknown_commands_after_a_signon(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    body = j.mail(assigned["FRANCE"], "\n".join([
        signon(j, "FRANCE"), "SET VACATION 2026-12-24", "STATUS", "WHOIS bob", "LSIT war1901",
        "SET PASWORD secret", "A Par-Bur", "Par-Pic", "A Urk-War"])).body
    assert "unknown province 'set'" not in body and "unknown province 'status'" not in body
    assert ('> SET VACATION 2026-12-24\nError: "SET VACATION" is no command. SET is followed'
            f" by one of:\n{SET_OPTIONS}\n{HELP_LINE}") in body
    assert f'> STATUS\nError: unknown command "STATUS".\n{HELP_LINE}' in body
    assert f'> WHOIS bob\nError: unknown command "WHOIS".\n{HELP_LINE}' in body
    assert (f'> LSIT war1901\nError: unknown command "LSIT".\nDid you mean LIST?\n'
            f"{HELP_LINE}") in body
    # the command meant takes a password: it is not quoted back
    assert ('> SET PASWORD ****\nError: "SET PASWORD" is no command. SET is followed by one'
            f" of:\n{SET_OPTIONS}\nDid you mean SET PASSWORD?\n{HELP_LINE}") in body
    assert "secret" not in body
    # orders are still orders: with or without the unit type, and a misspelt province
    assert "> A Par-Bur\nAccepted: A PAR - BUR" in body
    assert "> Par-Pic\nAccepted: A PAR - PIC" in body
    assert "> A Urk-War\nError: unknown province 'urk'.\n" in body
    assert "9 lines read, 6 errors." in body


def test_formal_orders_are_not_taken_for_commands(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    body = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nDeclare War On Germany\n").body
    assert ('> Declare War On Germany\nError: "Declare War On Germany" is a Formal Diplomacy'
            " order (GET FORMAL), but war1901 is a Standard game.") in body


def test_unknown_commands_before_a_signon(judge_in_process: Judge) -> None:
    j = judge_in_process
    body = j.mail("someone@example.org", "SIGNOM Fwar1901 pw\nSET VACATION\nfrobnicate\n"
                  "JION war1901 hunter2\n").body
    tail = "Send HELP for the list of commands (orders are read only after a SIGNON).\n"
    assert f'> SIGNOM Fwar1901 ****\nError: unknown command "SIGNOM".\nDid you mean SIGNON?\n' \
        f"{tail}" in body
    assert f'> SET VACATION\nError: "SET VACATION" is no command. SET is followed by one of:\n' \
        f"{SET_OPTIONS}\n{tail}" in body
    assert f'> frobnicate\nError: unknown command "frobnicate".\n{tail}' in body
    assert f'> JION war1901 ****\nError: unknown command "JION".\nDid you mean JOIN?\n{tail}' \
        in body
    assert "hunter2" not in body and " pw\n" not in body
