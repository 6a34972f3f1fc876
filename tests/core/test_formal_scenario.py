"""Formal Diplomacy: a three-year game from the standard opening, one row per phase.

Each row gives the orders of a phase and what must hold afterwards: the phase that comes
next, the wars, the spheres and the victory points of France, Germany and England (the other
powers hold and never score).  Read it top to bottom like a game report.
"""

from judge.core import initial_position, load_map
from judge.core.formal import adjudicate_formal, initial_formal_state, status_lines, turn_lines

M = load_map("standard")

# (phase, orders, next phase, wars, spheres, VP of France/Germany/England, note)
GAME = [
    ("S1901M", {"FRANCE": ["A Par-Pic", "A Mar-Bur", "F Bre-MAO"],
                "GERMANY": ["A Mun-Ruh", "A Ber-Kie", "F Kie-Hol"],
                "ENGLAND": ["F Lon-Nth", "F Edi-Nwg", "A Lvp-Yor"]},
     "F1901M", set(), {}, (0, 0, 0), "openings into empty, unowned provinces need no war"),
    ("F1901M", {"FRANCE": ["A Pic SOI Bel", "A Bur S A Pic SOI Bel", "F MAO-Por"],
                "GERMANY": ["A Ruh SOI Bel", "A Kie-Den"],
                "ENGLAND": ["F Nth-Nwy"]},
     "W1901A", set(), {"BEL": "FRANCE"}, (1, 2, 1),
     "supported French claim beats the German one; Fall: +1 per centre outside home"),
    ("W1901A", {}, "S1902M", set(), {"BEL": "FRANCE"}, (1, 2, 1), "builds waived"),
    ("S1902M", {"GERMANY": ["DWO France", "A Ruh-Bel", "F Hol S A Ruh-Bel"],
                "FRANCE": ["A Bur-Mun", "A Pic H"]},
     "F1902M", {("FRANCE", "GERMANY")}, {}, (0, 1, 1),
     "declaring costs Germany 1; the war lets Germany enter the French sphere (France -1) "
     "and France take empty Munich in the same turn"),
    ("F1902M", {"FRANCE": ["SUR", "A Mun H"], "ENGLAND": ["F Nwy-StP/NC"]},
     "W1902A", {("FRANCE", "GERMANY")}, {}, (2, 3, 2),
     "France may not surrender from Munich; England's move on Russian St Petersburg is void; "
     "Fall: France +2 (Por, Mun), Germany +3 -1 (Hol, Den, Bel; Mun lost)"),
    ("W1902A", {}, "S1903M", {("FRANCE", "GERMANY")}, {}, (2, 3, 2), "builds waived"),
    ("S1903M", {"GERMANY": ["SUR"], "FRANCE": ["DWO Germany", "A Mun-Ber"],
                "ENGLAND": ["F Nwy SOI Nwy"]},
     "F1903M", {("FRANCE", "GERMANY")}, {"NWY": "ENGLAND"}, (2, 2, 2),
     "Germany surrenders (-1, France +1), then France declares again (-1) and enters Berlin; "
     "England claims its own centre"),
    ("F1903M", {"FRANCE": ["A Ber H"], "GERMANY": ["A Bel-Pic"]},
     "W1903A", {("FRANCE", "GERMANY")}, {"NWY": "ENGLAND"}, (5, 3, 3),
     "last year: France +3 (Por, Mun, Ber), Germany +3 -2, England +1; France wins"),
]


def test_formal_game_table():
    pos, st = initial_position(M), initial_formal_state(M, turns=3)
    for phase, orders, nxt, wars, spheres, vp, note in GAME:
        assert str(pos.phase) == phase, note
        res = adjudicate_formal(pos, st, orders)
        pos, st = res.position, res.state
        assert str(pos.phase) == nxt, note
        assert {tuple(sorted(w)) for w in st.wars} == wars, note
        assert dict(st.spheres) == spheres, note
        assert (st.points("FRANCE"), st.points("GERMANY"), st.points("ENGLAND")) == vp, note
        assert all(st.points(p) == 0 for p in ("AUSTRIA", "ITALY", "RUSSIA", "TURKEY")), note
    assert res.game_over and res.winners == ("FRANCE",)
    assert turn_lines(M, res)[-1] == "The game is over: France wins."


def test_formal_game_reports():
    """The results text of the F1902 and S1903 turns, line by line where it matters."""
    pos, st = initial_position(M), initial_formal_state(M, turns=3)
    texts = {}
    for phase, orders, *_ in GAME[:7]:
        res = adjudicate_formal(pos, st, orders)
        texts[phase] = turn_lines(M, res) + status_lines(M, res.state)
        pos, st = res.position, res.state
    f1902 = texts["F1902M"]
    assert any(line.startswith("  France: SUR.  (*refused*)  refused: your unit is in Munich")
               for line in f1902)
    assert any("England: Fleet Norway -> St Petersburg (north coast).  (*void: not at "
                   "war with Russia (Russia's fleet is in St Petersburg; St Petersburg is a "
                   "supply centre of Russia)*)"
               in line for line in f1902)
    s1903 = texts["S1903M"]
    assert s1903[:4] == ["Declarations of war:", "  France declares war on Germany.",
                         "Surrenders:", "  Germany surrenders to France."]
    assert "  England: Fleet Norway claims Norway (strength 1): established." in s1903
    assert "  Norway (NWY): England" in s1903
