"""The JSON API (``/api/v1/``): games, one game, one played phase in the shape of the
adjudication JSON contract, standings; errors as JSON; versioned in its path."""

from __future__ import annotations

import json

from webkit import G, MASTER, Web, game_played_by_mail, signon


def get_json(web: Web, path: str, status: int = 200) -> dict:
    r = web.get(path)
    assert r.status == status, (path, r.status, r.text)
    assert r.headers["Content-Type"] == "application/json; charset=utf-8"
    return json.loads(r.body)


def test_the_index_names_every_endpoint(web: Web) -> None:
    assert get_json(web, "/api/v1/") == {
        "version": 1, "judge": "JUDGE", "games": "/api/v1/games",
        "game": "/api/v1/games/{name}", "phase": "/api/v1/games/{name}/phases/{phase}",
        "tournament": "/api/v1/tournaments/{name}"}


def test_games(web: Web) -> None:
    game_played_by_mail(web.judge)
    doc = get_json(web, "/api/v1/games")
    assert (doc["page"], doc["pages"], doc["total"]) == (1, 1, 1)
    [game] = doc["games"]
    deadline = game.pop("deadline")
    assert deadline.endswith("+00:00") and deadline.startswith("20")
    assert game == {"name": G, "variant": "standard", "state": "active", "phase": "F1901M",
                    "open_seats": 0, "press": "private and public; grey", "rules": [],
                    "url": f"/api/v1/games/{G}"}


def test_one_game(web: Web) -> None:
    j = web.judge
    assigned = game_played_by_mail(j)
    j.mail(assigned["ITALY"], signon(j, "ITALY") + "\nBROADCAST\nCiao.\nENDPRESS")
    doc = get_json(web, f"/api/v1/games/{G}")
    assert {k: doc[k] for k in ("name", "variant", "state", "phase", "private", "tournament",
                                "announcements", "press_setting")} == {
        "name": G, "variant": "standard", "state": "active", "phase": "F1901M",
        "private": False, "tournament": None, "announcements": [],
        "press_setting": "private and public; grey"}
    assert doc["board"]["phase"] == "F1901M"
    assert doc["board"]["units"]["FRANCE"] == ["A BUR", "A SPA", "F MAO"]
    assert doc["board"]["centers"]["FRANCE"] == ["BRE", "MAR", "PAR"]
    assert "orders" not in doc["board"]
    france = next(p for p in doc["powers"] if p["power"] == "FRANCE")
    assert france == {"power": "FRANCE", "name": "France", "adjective": "French",
                      "centres": 3, "centre_names": ["Brest", "Marseilles", "Paris"],
                      "units": 3, "status": "playing"}
    assert doc["phases"] == [{"seq": 1, "phase": "S1901M", "title": "Spring of 1901. Movement",
                              "url": f"/api/v1/games/{G}/phases/S1901M"}]
    assert doc["latest"]["phase"] == "S1901M"
    [press] = doc["press"]
    assert (press["phase"], press["sender"], press["body"], press["grey"]) == (
        "F1901M", "Italy", "Ciao.", False)


def test_a_phase_in_the_adjudication_contract_shape(web: Web) -> None:
    from judge.core.jsonio import adjudicate_document
    game_played_by_mail(web.judge)
    doc = get_json(web, f"/api/v1/games/{G}/phases/S1901M")
    assert (doc["game"], doc["variant"], doc["phase"]) == (G, "standard", "S1901M")
    given = doc["input"]
    assert given["phase"] == "S1901M" and given["units"]["FRANCE"] == ["A MAR", "A PAR",
                                                                       "F BRE"]
    assert given["orders"]["FRANCE"] == ["A MAR - SPA", "A PAR - BUR", "F BRE - MAO"]
    out = doc["output"]
    assert out["next_phase"] == "F1901M"
    assert {"order": "A WAR - GAL", "result": "bounce"} in out["results"]["RUSSIA"]
    # the input, adjudicated again by `judge adjudicate`, gives the same output
    assert adjudicate_document(given) == out


def test_errors_are_json(web: Web) -> None:
    game_played_by_mail(web.judge)
    assert get_json(web, "/api/v1/games/nosuch", 404) == {"error": "no game named 'nosuch'."}
    assert get_json(web, f"/api/v1/games/{G}/phases/F1901M", 404) == {
        "error": f"F1901M has not been played in {G}."}
    assert get_json(web, "/api/v1/tournaments/nocup", 404) == {
        "error": "no tournament named 'nocup'."}
    web.judge.mail(MASTER, "CREATE hidden mpw PRIVACY hush")
    assert get_json(web, "/api/v1/games/hidden", 403) == {
        "error": "hidden is a private game: post its privacy password to /games/hidden/pass "
                 "first"}
    # the version is in the path: no other version answers
    assert web.get("/api/v2/games").status == 404
