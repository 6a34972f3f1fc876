"""What one mail may make the judge do, through the real pipeline: the same informational
command answered once (until something changes what it would say), passwords never quoted
back, and a refusal that undoes the whole command."""

from __future__ import annotations

from gamekit import Judge, start_full_game

MASTER = "master@example.org"


def answered(body: str) -> list[str]:
    """The first line of the answer to each line the reply quotes, in order."""
    return [chunk.split("\n")[1] for chunk in body.split("\n> ")[1:]]


def test_the_same_question_is_answered_once_until_the_answer_may_change(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    start_full_game(j)
    body = j.mail(MASTER, "LIST war1901\nLIST war1901\nHELP\nhelp\n"
                  "SIGNON Mwar1901 mpw\nLIST war1901\nPAUSE\nLIST war1901\nLIST war1901").body
    same = [n for n, a in enumerate(answered(body), 1) if a.startswith("Same as")]
    # signed on, the master's LIST says more; after PAUSE it may say something else again
    assert same == [2, 4, 9], body
    assert "Same as the answer to line 8 above." in body


def test_passwords_are_never_quoted_back(judge_in_process: Judge) -> None:
    j = judge_in_process
    body = j.mail(MASTER, "CREATE g Sekr1t TOURNAMENT t Tsekr1t\nSET PASSWORD Nsekr1t\n"
                  "SIGNON Mg Sekr1t\nOBSERVE g Osekr1t\nJOIN g Jsekr1t\n"
                  "SIGNON ?g Qsekr1t").body
    assert "sekr1t" not in body.lower()
    assert "> CREATE g **** TOURNAMENT t ****" in body
    assert "> SET PASSWORD ****" in body and "> SIGNON ?g ****" in body


def test_a_huge_line_is_not_mailed_back_whole(judge_in_process: Judge) -> None:
    # Quoted back whole, a stranger's mail of one 250 KB line came back at twice its size, to
    # whatever address the mail claimed.
    j = judge_in_process
    huge = "frobnicate" + "x" * 250_000
    body = j.mail("stranger@example.org", f"VERSION\n{huge}\n{'y' * 300}").body
    assert len(body) < 3_000, len(body)
    assert f"> {huge[:300]}… (250,010 characters, cut here)" in body
    assert 'Error: unknown command "frobnicatexxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…".' in body
    assert f"> {'y' * 300}\n" in body  # a line of the longest length quoted whole is whole
