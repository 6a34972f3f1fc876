"""A reply written below the quoted mail it answers (bottom-posting) is read: the
``On … wrote:`` line and the ``>`` lines are skipped, the commands after them executed, and the
reply says how many quoted lines it skipped.  An original that is not quoted still ends
reading, as before."""

from __future__ import annotations

import pytest

from gamekit import Judge, start_full_game
from judge.mail.reading.message import read_body

ATTRIBUTION = "On Mon, 23 Nov 2026 at 10:00, JUDGE <judge@example.org> wrote:"
QUOTE = "> Signed on as France in war1901.\n>\n> Orders of France in war1901 for S1901M:\n"


def test_a_bottom_posted_reply_is_read_after_the_quote(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    password = j.passwords["FRANCE"]
    body = j.mail(assigned["FRANCE"], f"{ATTRIBUTION}\n{QUOTE}\nSIGNON Fwar1901 {password}\n"
                  "A Par-Bur\n").body
    assert "Your mail had no commands in it." not in body
    assert "Signed on as France in war1901" in body
    assert "> A Par-Bur\nAccepted: A PAR - BUR\n" in body
    # the attribution line is no command: it is not answered at all
    assert "On Mon" not in body and "unknown command" not in body
    assert "2 lines read, 0 errors." in body
    assert ('3 quoted lines were skipped (lines starting with ">"\nare the mail you answered,'
            " not commands).") in body


def test_quotes_between_commands_and_a_quote_alone(judge_in_process: Judge) -> None:
    j = judge_in_process
    body = j.mail("someone@example.org", f"VERSION\n{ATTRIBUTION}\n> LIST\nHELP\n").body
    assert "> VERSION\n" in body and "> HELP\n" in body and "> LIST" not in body
    assert '1 quoted line was skipped (lines starting with ">"' in body
    # only a quote: nothing to do, and the reply says why
    body = j.mail("someone@example.org", f"{ATTRIBUTION}\n> LIST\n> HELP\n").body
    assert "Your mail had no commands in it." in body
    assert '2 quoted lines were skipped (lines starting with ">"' in body
    # nothing quoted: no word about quotes
    body = j.mail("someone@example.org", "VERSION\n").body
    assert "quoted" not in body


@pytest.mark.parametrize("text, lines, quoted, original", [
    # the wrapped attribution (two lines) is skipped whole
    ("On Mon, 23 Nov 2026 at 10:00, JUDGE <\njudge@example.org> wrote:\n> x\nLIST",
     ["LIST"], 1, ""),
    # top-posting: the commands, then the quote; nothing after it
    (f"LIST\n\n{ATTRIBUTION}\n> x\n> y\n", ["LIST"], 2, ""),
    # an original that is not quoted ends reading: its lines are not the writer's, and the
    # reply counts them and names the line it began at
    (f"LIST\n{ATTRIBUTION}\nSigned on as France\nHELP\n", ["LIST"], 3, ATTRIBUTION),
    # an attribution with no quote under it is not skipped over
    (f"LIST\n{ATTRIBUTION}\n\nHELP\n", ["LIST"], 2, ATTRIBUTION),
])
def test_what_is_read_around_an_attribution(text: str, lines: list[str], quoted: int,
                                             original: str) -> None:
    assert read_body(text) == (lines, quoted, original)
