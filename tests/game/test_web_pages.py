"""The web view's pages of a game played by mail: the list, the game page with its map,
earlier phases, tournament standings, time zones, escaping, security headers and ETags."""

from __future__ import annotations

import io
import re

from webkit import G, MASTER, Web, game_played_by_mail, signon, start_full_game

PNG = b"\x89PNG\r\n\x1a\n"


def test_the_list_shows_each_public_game_with_its_phase_deadline_seats_press_and_rules(
        web: Web) -> None:
    j = web.judge
    game_played_by_mail(j)
    assert "created" in j.mail(MASTER, "CREATE forming1 mpw RULES NO_PRESS").body
    assert "You have joined" in j.mail("p@example.org", "JOIN forming1 pw").body
    r = web.get("/")
    assert r.status == 200 and r.headers["Content-Type"] == "text/html; charset=utf-8"
    rows = re.findall(r"<tr>\n(.*?)</tr>", r.text, re.S)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in rows]
    assert cells == [
        ['<a href="/games/forming1">forming1</a>', "Standard", "forming", "", "", "6",
         "none (only to the master)", "NO_PRESS"],
        [f'<a href="/games/{G}">{G}</a>', "Standard", "active", "F1901M", cells[1][4], "",
         "private and public; grey", "none"]]
    assert re.fullmatch(r"\w+day \d+ \w+ \d{4}, \d\d:\d\d UTC", cells[1][4]), cells[1][4]
    assert "2 public games." in r.text


def test_deadlines_are_written_in_the_zone_asked_for(web: Web) -> None:
    game_played_by_mail(web.judge)
    paris = web.get("/?tz=Europe/Paris").text
    assert re.search(r"<td[^>]*>\w+day \d+ \w+ \d{4}, \d\d:\d\d CET</td>", paris)
    assert f'href="/games/{G}?tz=Europe%2FParis"' in paris  # links keep the zone
    assert "Times are in Europe/Paris." in paris
    game = web.get(f"/games/{G}?tz=%2B05:30").text
    assert re.search(r"Deadline: <strong>\w+day \d+ \w+ \d{4}, \d\d:\d\d UTC\+05:30</strong>",
                     game)
    # a zone that is none: UTC, said so
    assert "Times are in UTC" in web.get("/?tz=Mars/Olympus").text


def test_the_list_is_paged(web: Web) -> None:
    j = web.judge
    from judge.web.views import PAGE_SIZE
    with j.store.transaction() as s:
        from judge.service.games import create_game
        from judge.basics.utc import utcnow
        for i in range(PAGE_SIZE + 3):
            create_game(s, f"g{i:03d}", "pw", MASTER, utcnow())
    first = web.get("/").text
    assert f"{PAGE_SIZE + 3} public games, page 1 of 2." in first
    assert first.count('<a href="/games/') == PAGE_SIZE
    second = web.get("/?page=2").text
    assert second.count('<a href="/games/') == 3 and "g052" in second
    assert web.get("/?page=junk").status == 200  # a page that is no number: the first


def test_the_game_page_shows_the_map_centres_results_and_links_to_every_phase(web: Web
                                                                               ) -> None:
    j = web.judge
    game_played_by_mail(j)
    page = web.get(f"/games/{G}").text
    assert f'<img src="/games/{G}/map.png"' in page
    assert "Phase: <strong>Fall of 1901. Movement</strong> (F1901M)." in page
    # centres per power (Spring changes no ownership)
    assert ('<td>France</td><td class="num">3</td><td class="num">3</td><td>playing</td>'
            '<td class="centres">Brest, Marseilles, Paris</td>') in page
    assert "Latest results: Spring of 1901. Movement" in page
    assert "France: Army Paris -&gt; Burgundy." in page
    assert "Russia: Army Warsaw -&gt; Galicia.  (*bounce*)" in page
    assert f'<a href="/games/{G}/phases/S1901M">S1901M</a>' in page
    png = web.get(f"/games/{G}/map.png")
    assert png.status == 200 and png.headers["Content-Type"] == "image/png"
    assert png.body.startswith(PNG)
    # the page gives the picture's own size (its place is kept while it loads)
    from PIL import Image
    size = re.search(rf'<img src="/games/{G}/map.png"[^>]* width="(\d+)" height="(\d+)">', page)
    assert size is not None
    assert Image.open(io.BytesIO(png.body)).size == (int(size[1]), int(size[2]))


def test_an_earlier_phase_has_its_map_orders_and_results(web: Web) -> None:
    game_played_by_mail(web.judge)
    r = web.get(f"/games/{G}/phases/S1901M")
    assert r.status == 200
    assert f'<img src="/games/{G}/phases/S1901M/map.png"' in r.text
    assert "Austria: Army Vienna -&gt; Galicia.  (*bounce*)" in r.text
    png = web.get(f"/games/{G}/phases/S1901M/map.png")
    assert png.status == 200 and png.body.startswith(PNG)
    # the picture of the played phase is not the board now
    assert png.body != web.get(f"/games/{G}/map.png").body
    # lower case is read too; a phase not played, or no phase at all, is not found
    assert web.get(f"/games/{G}/phases/s1901m").status == 200
    for path in (f"/games/{G}/phases/F1901M", f"/games/{G}/phases/F1901M/map.png",
                 f"/games/{G}/phases/nonsense", "/games/nosuchgame",
                 "/games/nosuchgame/map.png"):
        assert web.get(path).status == 404, path
    assert "No game named &#39;nosuchgame&#39;." in web.get("/games/nosuchgame").text


def test_announcements_say_how_a_game_ended(web: Web) -> None:
    j = web.judge
    assigned = game_played_by_mail(j)
    for power, address in assigned.items():
        j.mail(address, signon(j, power) + "\nSET DRAW")
    page = web.get(f"/games/{G}").text
    assert ('<p class="announcement">Ended in F1901M in a draw of Austria, England, France, '
            'Germany, Italy, Russia, Turkey.</p>') in page
    assert "finished" in page
    assert "Deadline:" not in page


def test_public_press_is_shown_with_every_value_escaped(web: Web) -> None:
    j = web.judge
    assigned = game_played_by_mail(j)
    hostile = '<script>alert("x")</script> & <img src=x onerror=alert(1)>'
    reply = j.mail(assigned["FRANCE"], signon(j, "FRANCE") + f"\nBROADCAST\n{hostile}\nENDPRESS")
    assert "Error" not in reply.body, reply.body
    page = web.get(f"/games/{G}").text
    assert ("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; "
            "&lt;img src=x onerror=alert(1)&gt;") in page
    assert "<script" not in page and "<img src=x" not in page
    assert "F1901M: from France to everyone" in page


def test_security_headers_on_pages_maps_api_and_errors(web: Web) -> None:
    game_played_by_mail(web.judge)
    for path in ("/", f"/games/{G}", f"/games/{G}/map.png", "/api/v1/games", "/nowhere",
                 "/style.css", "/games/nosuchgame"):
        r = web.get(path)
        csp = r.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src" not in csp, path
        assert "'unsafe-inline'" not in csp
        assert r.headers["X-Content-Type-Options"] == "nosniff", path
        assert r.headers["Referrer-Policy"] == "same-origin", path
    assert web.get("/style.css").headers["Content-Type"] == "text/css; charset=utf-8"


def test_etags_answer_304_until_something_changes(web: Web) -> None:
    j = web.judge
    assigned = game_played_by_mail(j)
    for path in (f"/games/{G}", "/", f"/api/v1/games/{G}", f"/games/{G}/map.png"):
        first = web.get(path)
        etag = first.headers["ETag"]
        again = web.get(path, If_None_Match=etag)
        assert (again.status, again.body, again.headers["ETag"]) == (304, b"", etag), path
        assert web.get(path, If_None_Match='"other"').status == 200
    etag = web.get(f"/games/{G}").headers["ETag"]
    j.mail(assigned["ITALY"], signon(j, "ITALY") + "\nBROADCAST\nNews.\nENDPRESS")
    changed = web.get(f"/games/{G}", If_None_Match=etag)
    assert changed.status == 200 and changed.headers["ETag"] != etag and "News." in changed.text


def test_tournament_standings_with_tie_breaks_and_no_addresses(web: Web) -> None:
    j = web.judge
    director = "director@example.org"
    a, b = "a@example.org", "b@example.org"

    def game(name: str, board: str, phase: str) -> None:
        assert "created" in j.mail(director, f"CREATE {name} mpw RULES POWER_CHOICE "
                                             "START_MASTER TOURNAMENT cup cuppw").body
        j.mail(a, f"JOIN {name} pw France")
        j.mail(b, f"JOIN {name} pw Germany")
        reply = j.mail(director, f"SIGNON M{name} mpw\nSTART\nPAUSE\nPOSITION {phase}\n"
                                 f"{board}\nENDPOSITION\nRESUME").body
        assert "running again" in reply, reply

    board = "France: A Par; centers Par\nGermany: A Ber; centers Ber"
    game("t1", board, "S1906M")
    j.mail(b, "SIGNON Gt1 pw\nSET CONCEDE F")
    game("t2", board, "S1907M")
    j.mail(a, "SIGNON Ft2 pw\nSET DRAW")
    j.mail(b, "SIGNON Gt2 pw\nSET DRAW")
    mail = j.mail("fan@example.org", "STANDINGS cup").body
    # by mail, a stranger's table numbers the players (addresses are private)
    assert "1         1.500  player 1" in mail and "a@example.org" not in mail
    r = web.get("/tournaments/cup")
    assert r.status == 200
    assert "Scoring system: draw-size; tie-breaks: head-to-head, common-denominator." in r.text
    assert "Games scored: t1, t2." in r.text
    rows = re.findall(r"<tr>\n<td>(.*?)</td>\n<td class=\"num\">(.*?)</td>\n<td>(.*?)</td>",
                      r.text)
    assert rows == [("1", "1.500", "France in t1; France in t2"),
                    ("2", "0.500", "Germany in t1; Germany in t2")]
    assert "@" not in r.text.replace("judge@example.org", "")
    api = web.get("/api/v1/tournaments/cup")
    assert "@" not in api.text
    assert web.get("/tournaments/nocup").status == 404


def test_the_game_page_links_to_its_tournament(web: Web) -> None:
    j = web.judge
    j.mail(MASTER, "CREATE t9 mpw TOURNAMENT cup cuppw")
    assert 'in the tournament <a href="/tournaments/cup">cup</a>' in web.get("/games/t9").text


def test_a_fault_is_a_plain_500_with_the_same_headers(web: Web, monkeypatch) -> None:
    from judge.web import views

    def broken(*args: object) -> None:
        raise RuntimeError("secret detail of the fault")

    web.judge.mail(MASTER, "CREATE g1 mpw")
    monkeypatch.setattr(views, "game_view", broken)
    r = web.get("/games/g1")
    assert (r.status, r.text) == (500, "500: the judge could not show this page\n")
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert web.get("/").status == 200  # the rest goes on


def test_a_formal_diplomacy_game_has_its_pages_and_map(web: Web) -> None:
    j = web.judge
    start_full_game(j, "fd1", "VARIANT formal")
    page = web.get("/games/fd1")
    assert page.status == 200 and "Formal game, active." in page.text
    png = web.get("/games/fd1/map.png")
    assert png.status == 200 and png.body.startswith(PNG)
    assert web.get("/api/v1/games/fd1").status == 200


def test_public_pages_are_kept_briefly_and_private_ones_never(judge_in_process) -> None:
    """At a few hundred requests a second a public page is rendered once and served again
    for its keeping time, under what the page reads: a query or a cookie made up to miss the
    kept page finds it all the same.  A private game's page is never kept."""
    from conftest import free_port
    from webkit import serve_in_thread

    from judge.web.app import WebView
    j = judge_in_process
    assigned = game_played_by_mail(j)
    web = Web(j, free_port())
    for _ in serve_in_thread(WebView(j.store, j.config, recent_seconds=3600), web.port,
                             web.served):
        before = web.get(f"/games/{G}").text
        j.mail(assigned["ITALY"], signon(j, "ITALY") + "\nBROADCAST\nNews.\nENDPRESS")
        for path, headers in ((f"/games/{G}", {}), (f"/games/{G}?b=1", {}),
                              (f"/games/{G.upper()}?b=2&page=9", {}),
                              (f"/games/{G}?tz=UTC", {}),
                              (f"/games/{G}", {"Cookie": "judge_pass_0=x; b=3"})):
            assert web.get(path, **headers).text == before, (path, headers)
        # what the page reads is another page: another zone, another page of press
        assert "News." in web.get(f"/games/{G}?tz=Europe/Paris").text
        assert "News." not in before
        # a private game: its form is an answer that is never kept
        j.mail(MASTER, f"SIGNON M{G} mpw\nSET PRIVACY secret")
        assert web.get(f"/games/{G}").status == 200  # still the kept public page
        for _ in range(2):
            r = web.get(f"/games/{G}?tz=Asia/Tokyo")
            assert r.status == 403 and "privacy password" in r.text.lower()
            assert "News." not in r.text
