"""Draw and concession votes (judge.core.draws): the seed's five examples, every mode's edge
cases, the NoDIAS closed form against brute force, and the vote parsers."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.core.draws import (STANDARD_POWERS, NoDiasVote, Outcome, Proposal, VoteError,
                              approved_draws, approves, draw_mode, evaluate_concession,
                              evaluate_dias, evaluate_no_dias, evaluate_nodias,
                              evaluate_proposal, make_proposal, parse_no_dias_vote, parse_power,
                              parse_power_list)

A, E, F, G, I, R, T = STANDARD_POWERS
NAME = {p[0]: p for p in STANDARD_POWERS}


def powers(letters: str) -> frozenset[str]:
    return frozenset(NAME[c] for c in letters)


def members(letters: str) -> tuple[str, ...]:
    return tuple(sorted(powers(letters)))


# ------------------------------------------------- the five worked examples of the Judge's draw rules

NODRAW = None
SEED_EXAMPLES = [
    # (France, England, Austria) as the seed lists them, then the result
    ({F: "AEF", E: "AEF", A: "AEF"}, Outcome("draw", members("AEF"))),
    ({F: "AE", E: "AEF", A: "AEF"}, Outcome("draw", members("AEF"))),
    ({F: "AE", E: "AEF", A: "AE"}, Outcome("draw", members("AE"))),
    ({F: "AEF", E: "AE", A: "AE"}, Outcome("none")),
    ({F: "A", E: "A", A: NODRAW}, Outcome("concession", members("A"))),
]


def _lists(votes: dict[str, str | None]) -> dict[str, frozenset[str] | None]:
    return {p: None if v is None else powers(v) for p, v in votes.items()}


@pytest.mark.parametrize("number", range(1, 6))
def test_seed_example_under_every_voting_order(number: int) -> None:
    votes, expected = SEED_EXAMPLES[number - 1]
    survivors = [A, E, F]
    for order in itertools.permutations(votes):
        lists = {p: _lists(votes)[p] for p in order}
        for survivor_order in itertools.permutations(survivors):
            got = evaluate_nodias(survivor_order, lists)
            assert (got.kind, got.members) == (expected.kind, expected.members), (order,
                                                                                  survivor_order)
            brute = approved_draws(survivor_order, lists)
            assert (brute[0] if brute else ()) == expected.members


def test_seed_examples_from_the_parser() -> None:
    survivors = powers("AEF")
    for votes, expected in SEED_EXAMPLES:
        lists = {p: None if v is None else parse_power_list(v, survivors)
                 for p, v in votes.items()}
        got = evaluate_nodias(frozenset(random.Random(1).sample(sorted(survivors), 3)), lists)
        assert (got.kind, got.members) == (expected.kind, expected.members)


# ----------------------------------------------------------------------------------- DIAS


@pytest.mark.parametrize("survivors, approvals, kind, result", [
    ("AEF", "AEF", "draw", "AEF"),
    ("AEF", "AE", "none", ""),
    ("AEF", "", "none", ""),
    ("AEFT", "AEFTG", "draw", "AEFT"),   # a non-survivor's approval is ignored
    ("AEF", "AEG", "none", ""),
    ("A", "A", "concession", "A"),       # a single survivor's own draw is a concession
    ("A", "", "none", ""),
    ("", "AE", "none", ""),
])
def test_dias(survivors: str, approvals: str, kind: str, result: str) -> None:
    for order in itertools.permutations(powers(approvals)):
        got = evaluate_dias(powers(survivors), order)
        assert (got.kind, got.members) == (kind, members(result))


# --------------------------------------------------------------------------------- NoDIAS


@pytest.mark.parametrize("survivors, votes, kind, result", [
    # a non-voter counts as SET NODRAW: only a concession to himself
    ("AEF", {A: "AEF", E: "AEF"}, "none", ""),
    ("AE", {A: "E"}, "concession", "E"),
    # everybody NODRAW: no draw (each insists on himself alone)
    ("AEF", {A: NODRAW, E: NODRAW, F: NODRAW}, "none", ""),
    # a list with only other powers: willing to be left out, or to share
    ("AEF", {A: "EF", E: "AEF", F: "AEF"}, "draw", "AEF"),
    ("AEF", {A: "EF", E: "EF", F: "EF"}, "draw", "EF"),
    # an insisting voter excluded by someone else: no draw
    ("AEF", {A: "AE", E: "AEF", F: "AEF"}, "none", ""),
    # everybody concedes to France, France insists on himself: concession
    ("AEFT", {A: "F", E: "F", T: "F", F: NODRAW}, "concession", "F"),
    # France lists the others only: she may be left out, AE is the largest
    ("AEF", {A: "AE", E: "AE", F: "AE"}, "draw", "AE"),
    # single survivor, no vote: the only result is himself
    ("A", {}, "concession", "A"),
    # nobody in common
    ("AEF", {A: "A", E: "E", F: "AEF"}, "none", ""),
    # a voter who is not a survivor is ignored
    ("AE", {A: "AE", E: "AE", G: "G"}, "draw", "AE"),
    # an empty list behaves like NODRAW
    ("AE", {A: "", E: "A"}, "concession", "A"),
    ("AE", {A: "", E: "AE"}, "none", ""),
    ("AE", {A: NODRAW, E: "AE"}, "none", ""),
    ("", {A: "A"}, "none", ""),
])
def test_nodias_edges(survivors: str, votes: dict, kind: str, result: str) -> None:
    lists = _lists(votes)
    got = evaluate_nodias(powers(survivors), lists)
    assert (got.kind, got.members) == (kind, members(result))
    brute = approved_draws(powers(survivors), lists)
    assert (brute[0] if brute else ()) == members(result)


def test_approves_follows_the_seed_wording() -> None:
    # "if Austria issued SET DRAW AEG, he is approving AEG, AG, AE, or A"
    every = [frozenset(c) for n in range(1, 8) for c in itertools.combinations(STANDARD_POWERS, n)]
    assert {d for d in every if approves(A, powers("AEG"), d)} == {
        powers(x) for x in ("AEG", "AG", "AE", "A")}
    # "SET DRAW FT: he is approving FT, F, T, AFT, AF, AT, or A"
    assert {d for d in every if approves(A, powers("FT"), d)} == {
        powers(x) for x in ("FT", "F", "T", "AFT", "AF", "AT", "A")}
    assert {d for d in every if approves(A, None, d)} == {powers("A")}


survivor_sets = st.sets(st.sampled_from(STANDARD_POWERS), min_size=1, max_size=7)


@st.composite
def nodias_votes(draw):  # type: ignore[no-untyped-def]
    survivors = draw(survivor_sets)
    lists = {}
    for power in sorted(survivors):
        choice = draw(st.sampled_from(["none", "nodraw", "list", "list"]))
        if choice == "nodraw":
            lists[power] = None
        elif choice == "list":
            lists[power] = frozenset(draw(st.sets(st.sampled_from(sorted(survivors)),
                                                  min_size=1)))
    order = draw(st.permutations(sorted(lists)))
    return frozenset(survivors), {p: lists[p] for p in order}


@settings(max_examples=400, deadline=None)
@given(nodias_votes())
def test_closed_form_equals_brute_force(case) -> None:  # type: ignore[no-untyped-def]
    survivors, lists = case
    got = evaluate_nodias(survivors, lists)
    brute = approved_draws(survivors, lists)
    if not brute:
        assert got.kind == "none" and got.members == ()
        return
    # Ties are impossible: the approved draws form an interval closed under union, so the
    # largest is unique and contains every other approved draw.
    assert len(brute) == 1 or len(brute[1]) < len(brute[0])
    assert all(set(d) <= set(brute[0]) for d in brute)
    assert got.members == brute[0]
    assert got.kind == ("concession" if len(brute[0]) == 1 else "draw")
    # and the order of survivors and votes does not matter
    reordered = dict(reversed(list(lists.items())))
    assert evaluate_nodias(sorted(survivors, reverse=True), reordered) == got


# ---------------------------------------------------------------------------- concessions


@pytest.mark.parametrize("survivors, concessions, kind, result", [
    ("AEF", {E: A, F: A}, "concession", "A"),
    ("AEF", {E: A, F: A, A: A}, "concession", "A"),   # a self-vote changes nothing
    ("AEF", {E: A, F: A, A: None}, "concession", "A"),
    ("AEF", {E: A}, "none", ""),                      # France has not conceded
    ("AEF", {E: A, F: E}, "none", ""),
    ("AEF", {E: A, F: A, A: E}, "none", ""),          # the winner conceded to another
    ("AE", {A: E, E: A}, "none", ""),                 # mutual: nobody wins
    ("AE", {A: A, E: E}, "none", ""),                 # self-votes only
    ("AEF", {E: G, F: G, A: G}, "none", ""),          # to a non-survivor: nothing
    ("AEF", {E: A, F: A, G: E}, "concession", "A"),   # non-survivors ignored
    ("A", {}, "concession", "A"),
    ("", {}, "none", ""),
])
def test_concession(survivors: str, concessions: dict, kind: str, result: str) -> None:
    for order in itertools.permutations(concessions):
        got = evaluate_concession(powers(survivors), {p: concessions[p] for p in order})
        assert (got.kind, got.members) == (kind, members(result))


# --------------------------------------------------------------------------- PROPOSE_DIAS


def test_proposal_all_yes_passes_a_draw() -> None:
    alive = powers("AEFT")
    proposal = make_proposal(alive, A, "dias")
    assert proposal == Proposal("dias", A, None)
    assert evaluate_proposal(alive, proposal, {}).kind == "pending"
    assert evaluate_proposal(alive, proposal, {E: True, F: True}).kind == "pending"
    got = evaluate_proposal(alive, proposal, {E: True, F: True, T: True})
    assert (got.kind, got.members) == ("draw", members("AEFT"))


def test_proposal_one_no_rejects() -> None:
    alive = powers("AEFT")
    proposal = make_proposal(alive, A, "dias")
    assert isinstance(proposal, Proposal)
    for answers in ({E: False}, {E: True, F: True, T: False}, {E: True, F: False}):
        got = evaluate_proposal(alive, proposal, answers)
        assert (got.kind, got.members) == ("rejected", ())


def test_proposal_of_concession() -> None:
    alive = powers("AEF")
    proposal = make_proposal(alive, E, "concede", F)
    assert isinstance(proposal, Proposal)
    # France, the power conceded to, answers too
    assert evaluate_proposal(alive, proposal, {A: True}).kind == "pending"
    got = evaluate_proposal(alive, proposal, {A: True, F: True})
    assert (got.kind, got.members) == ("concession", (F,))
    # proposing a concession to oneself
    own = make_proposal(alive, F, "concede", F)
    assert isinstance(own, Proposal)
    assert evaluate_proposal(alive, own, {A: True, E: True}).members == (F,)


def test_proposal_ignores_the_proposer_and_non_survivors() -> None:
    alive = powers("AE")
    proposal = make_proposal(alive, A, "dias")
    assert isinstance(proposal, Proposal)
    assert evaluate_proposal(alive, proposal, {A: False, G: False}).kind == "pending"
    assert evaluate_proposal(alive, proposal, {A: False, E: True}).kind == "draw"


def test_proposal_refusals() -> None:
    alive = powers("AEF")
    pending = Outcome("pending")
    assert isinstance(make_proposal(alive, E, "dias", current=pending), VoteError)
    # after a rejection or with no proposal yet, a new one may be made
    assert isinstance(make_proposal(alive, E, "dias", current=Outcome("rejected")), Proposal)
    assert isinstance(make_proposal(alive, E, "dias", current=None), Proposal)
    assert isinstance(make_proposal(alive, G, "dias"), VoteError)          # not a survivor
    assert isinstance(make_proposal(alive, A, "concede", G), VoteError)    # to a non-survivor
    assert isinstance(make_proposal(alive, A, "concede", None), VoteError)


def test_single_survivor_proposal_passes_at_once() -> None:
    proposal = make_proposal({A}, A, "dias")
    assert isinstance(proposal, Proposal)
    assert evaluate_proposal({A}, proposal, {}).kind == "concession"
    assert evaluate_proposal({A, E}, None, {E: True}).kind == "none"


# -------------------------------------------------------------------------------- NO_DIAS

SOLO, LOSS = NoDiasVote(1), NoDiasVote(None)


def n(limit: int) -> NoDiasVote:
    return NoDiasVote(limit)


@pytest.mark.parametrize("survivors, votes, kind, result", [
    # help text example: five survivors, R and T vote 2, the rest LOSS
    ("AEIRT", {R: n(2), T: n(2), A: LOSS, E: LOSS, I: LOSS}, "draw", "RT"),
    ("AEIRT", {R: n(3), T: n(2), A: LOSS, E: LOSS, I: LOSS}, "draw", "RT"),
    ("AEIRT", {R: n(2), T: n(2), A: LOSS, E: LOSS, I: n(3)}, "none", ""),
    # SOLO while all others vote LOSS: a concession
    ("AEF", {A: SOLO, E: LOSS, F: LOSS}, "concession", "A"),
    # a number voter left alone gets a concession (VOTE 1 is SOLO)
    ("AEF", {A: n(2), E: LOSS, F: LOSS}, "concession", "A"),
    ("AEF", {A: n(1), E: LOSS, F: LOSS}, "concession", "A"),
    # two SOLO voters, or SOLO with a number voter: no result
    ("AEF", {A: SOLO, E: SOLO, F: LOSS}, "none", ""),
    ("AEF", {A: SOLO, E: n(3), F: LOSS}, "none", ""),
    # everybody votes a number large enough: a draw of all
    ("AEF", {A: n(3), E: n(7), F: n(3)}, "draw", "AEF"),
    ("AEF", {A: n(3), E: n(2), F: n(3)}, "none", ""),
    # everybody votes LOSS: DPjudge's rule, a draw of all survivors
    ("AEF", {A: LOSS, E: LOSS, F: LOSS}, "draw", "AEF"),
    ("A", {A: LOSS}, "concession", "A"),
    # not everybody has voted: nothing
    ("AEF", {A: n(2), E: n(2)}, "none", ""),
    ("AEF", {A: LOSS, E: LOSS}, "none", ""),
    # votes of non-survivors are ignored
    ("AE", {A: n(2), E: n(2), G: LOSS}, "draw", "AE"),
    ("", {}, "none", ""),
])
def test_no_dias(survivors: str, votes: dict, kind: str, result: str) -> None:
    rng = random.Random(5)
    orders = list(itertools.permutations(votes)) if len(votes) <= 4 else [
        rng.sample(sorted(votes), len(votes)) for _ in range(30)]
    for order in orders:
        alive = sorted(powers(survivors))
        rng.shuffle(alive)
        got = evaluate_no_dias(alive, {p: votes[p] for p in order})
        assert (got.kind, got.members) == (kind, members(result))


@pytest.mark.parametrize("text, expected", [
    ("SOLO", NoDiasVote(1)), ("solo", NoDiasVote(1)), ("LOSS", NoDiasVote(None)),
    (" loss ", NoDiasVote(None)), ("2", NoDiasVote(2)), ("7", NoDiasVote(7)),
    ("1", NoDiasVote(1)),
])
def test_parse_no_dias_vote(text: str, expected: NoDiasVote) -> None:
    assert parse_no_dias_vote(text) == expected


@pytest.mark.parametrize("text", ["0", "8", "-2", "YES", "", "2.5", "DRAW"])
def test_parse_no_dias_vote_errors(text: str) -> None:
    got = parse_no_dias_vote(text)
    assert isinstance(got, VoteError) and got.message


def test_no_dias_vote_text() -> None:
    assert [v.text() for v in (SOLO, LOSS, n(3))] == ["SOLO", "LOSS", "3"]


# -------------------------------------------------------------------------------- parsers

ALIVE = powers("AEFIRT")  # Germany eliminated


@pytest.mark.parametrize("text", [
    "AEF", "aef", "AeF", "A E F", "a e f", "A,E,F", "A, E, F", "A ,E ,F", "FEA",
    "Austria England France", "AUSTRIA ENGLAND FRANCE", "austria,england,france",
    "Austria, England, France", "Austria EF", "A England f", "  AE  F  ",
])
def test_power_list_accepted_forms(text: str) -> None:
    assert parse_power_list(text, ALIVE) == powers("AEF")


def test_power_list_single_and_all() -> None:
    assert parse_power_list("T", ALIVE) == {T}
    assert parse_power_list("turkey", ALIVE) == {T}
    assert parse_power_list("AEFGIRT", STANDARD_POWERS) == frozenset(STANDARD_POWERS)


@pytest.mark.parametrize("text, words", [
    ("", ["empty"]),
    ("  , ", ["empty"]),
    ("AEX", ['"X"', "not a power"]),
    ("Austria Prussia", ['"Prussia"', "not a power"]),
    ("A1", ["not a power"]),
    ("AEG", ["Germany", "eliminated"]),
    ("Germany", ["Germany", "eliminated"]),
    ("AEA", ["Austria", "twice"]),
    ("Austria A", ["Austria", "twice"]),
    ("A,E,a", ["Austria", "twice"]),
])
def test_power_list_errors(text: str, words: list[str]) -> None:
    got = parse_power_list(text, ALIVE)
    assert isinstance(got, VoteError)
    for word in words:
        assert word in got.message


def test_parse_power() -> None:
    assert parse_power("f", ALIVE) == F
    assert parse_power("France", ALIVE) == F
    for bad in ("", "AE", "G", "X"):
        assert isinstance(parse_power(bad, ALIVE), VoteError)


def test_initials_shared_by_two_powers_are_not_accepted() -> None:
    variant = ("FRANCE", "FLANDERS", "SPAIN")
    assert parse_power_list("S Flanders", variant, variant) == {"SPAIN", "FLANDERS"}
    assert isinstance(parse_power_list("FS", variant, variant), VoteError)


# ---------------------------------------------------------------------------------- modes


def test_draw_mode() -> None:
    assert draw_mode() == "DIAS"
    assert draw_mode((), nodias=True) == "NODIAS"
    assert draw_mode(["PROPOSE_DIAS"]) == "PROPOSE_DIAS"
    assert draw_mode(["no_dias", "NO_PRESS"], nodias=True) == "NO_DIAS"
    with pytest.raises(ValueError):
        draw_mode(["NO_DIAS", "PROPOSE_DIAS"])


def test_outcome_ends_game() -> None:
    assert Outcome("draw", (A, E)).ends_game and Outcome("concession", (A,)).ends_game
    assert not any(Outcome(k).ends_game for k in ("none", "pending", "rejected"))
