"""The standard map data: counts, symmetry, coasts, names."""

from judge.core.maps import ARMY, FLEET, load_map, province_of


def test_counts() -> None:
    m = load_map("standard")
    assert len(m.supply_centers) == 34
    assert len([p for p in m.provinces.values() if p.kind != "impassable"]) == 75
    assert sum(len(p.starting_units) for p in m.powers.values()) == 22
    assert sorted(m.powers) == ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA",
                                "TURKEY"]
    homes = [c for p in m.powers.values() for c in p.home_centers]
    assert len(homes) == 22 and set(homes) <= m.supply_centers


def test_loaded_once() -> None:
    assert load_map("standard") is load_map("standard")


def test_army_adjacency_symmetric_and_on_land() -> None:
    m = load_map()
    for a, adj in m.army_adj.items():
        for b in adj:
            assert a in m.army_adj[b], (a, b)
            assert m.provinces[b].kind in ("land", "coast")


def test_fleet_adjacency_symmetric_per_coast() -> None:
    m = load_map()
    for a, adj in m.fleet_adj.items():
        assert m.provinces[province_of(a)].kind in ("sea", "coast")
        for b in adj:
            assert a in m.fleet_adj[b], (a, b)


def test_split_coasts() -> None:
    m = load_map()
    assert m.locations("STP") == ("STP/NC", "STP/SC")
    assert m.locations("SPA") == ("SPA/NC", "SPA/SC")
    assert m.locations("BUL") == ("BUL/EC", "BUL/SC")
    assert "STP/NC" in m.fleet_adj["BAR"] and "STP/SC" in m.fleet_adj["BOT"]
    assert "BUL/EC" in m.fleet_adj["BLA"] and "BUL/SC" in m.fleet_adj["AEG"]
    assert m.fleet_adj["SPA/NC"] == {"GAS", "MAO", "POR"}
    assert not m.can_hold(FLEET, "STP") and m.can_hold(ARMY, "STP")


def test_well_known_facts() -> None:
    m = load_map()
    assert "STP/NC" in m.fleet_adj["NWY"] and "STP" not in m.fleet_adj["NWY"]
    assert "NWY" in m.army_adj["STP"]
    assert "NAO" in m.fleet_adj["LVP"] and "IRI" not in m.fleet_adj["CLY"]
    assert not m.army_adj["SWI"] and "SWI" not in m.fleet_adj
    assert "KIE" in m.fleet_adj["BER"] and "DEN" in m.fleet_adj["SWE"]


def test_names_and_aliases() -> None:
    m = load_map()
    names = m.names
    for alias, code in [("mid atlantic ocean", "MAO"), ("mid", "MAO"), ("nat", "NAO"),
                        ("north atlantic", "NAO"), ("gulf of lyons", "LYO"), ("gol", "LYO"),
                        ("gulf of lyon", "LYO"), ("st petersburg", "STP"), ("stp", "STP"),
                        ("english channel", "ENG"), ("eng", "ENG")]:
        assert names[alias] == code, alias
    assert m.location_text("STP/NC") == "St Petersburg (north coast)"
