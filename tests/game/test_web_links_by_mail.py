"""With ``[web] url`` set, results mails and LIST replies end with the link to the game's
page (or to the list); without it, they carry none."""

from __future__ import annotations

from dataclasses import replace

from gamekit import Judge, start_full_game
from judge.config import WebSection
from webkit import G, SPRING_ORDERS, signon

URL = "https://judge.example.org"


def test_results_and_list_link_to_the_game(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.config = replace(j.config, web=WebSection(url=URL + "/"))
    assigned = start_full_game(j)
    for power, lines in SPRING_ORDERS.items():
        j.mail(assigned[power], signon(j, power) + "\n" + "\n".join(lines))
    [results] = [m for m in j.last_broadcasts if "S1901M Results" in m.subject]
    assert results.body.endswith(f"\n{G} on the web, with the map: {URL}/games/{G}\n"), \
        results.body[-300:]
    listing = j.mail("fan@example.org", "LIST").body
    assert f"The games on the web: {URL}/\n" in listing
    game = j.mail("fan@example.org", f"LIST {G}").body
    assert f"{G} on the web: {URL}/games/{G}\n" in game


def test_no_link_without_a_web_url(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    for power, lines in SPRING_ORDERS.items():
        j.mail(assigned[power], signon(j, power) + "\n" + "\n".join(lines))
    [results] = [m for m in j.last_broadcasts if "S1901M Results" in m.subject]
    assert "on the web" not in results.body
    assert "on the web" not in j.mail("fan@example.org", "LIST").body
    assert "on the web" not in j.mail("fan@example.org", f"LIST {G}").body


def test_a_private_games_link_carries_its_pass_and_opens_the_page(judge_in_process: Judge
                                                                  ) -> None:
    from conftest import free_port
    from judge.web.app import WebView
    from webkit import Web, serve_in_thread
    j = judge_in_process
    j.config = replace(j.config, web=WebSection(url=URL))
    assigned = start_full_game(j)
    assert "Error" not in j.mail("master@example.org", f"SIGNON M{G} mpw\nSET PRIVACY hush").body
    for power, lines in SPRING_ORDERS.items():
        j.mail(assigned[power], signon(j, power) + "\n" + "\n".join(lines))
    [results] = [m for m in j.last_broadcasts if "S1901M Results" in m.subject]
    link = results.body.rstrip("\n").rsplit(" ", 1)[1]
    assert link.startswith(f"{URL}/games/{G}?pass=")
    listed = j.mail("fan@example.org", f"LIST {G} PRIVACY hush").body
    assert f"{G} on the web: {link}\n" in listed
    web = Web(j, free_port())
    for _ in serve_in_thread(WebView(j.store, j.config), web.port, web.served):
        path = link.removeprefix(URL)
        opened = web.get(path)
        assert opened.status == 303 and opened.headers["Location"] == f"/games/{G}"
        crumb = opened.headers["Set-Cookie"].split(";", 1)[0]
        assert web.get(f"/games/{G}", Cookie=crumb).status == 200
        # a made-up pass opens nothing and gives no cookie
        bad = web.get(f"/games/{G}?pass={'0' * 64}")
        assert bad.status == 403 and "Set-Cookie" not in bad.headers
