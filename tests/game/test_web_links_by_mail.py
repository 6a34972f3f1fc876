"""With ``[web] url`` set, results mails and LIST replies end with the link to the game's
page (or to the list); without it, they carry none."""

from __future__ import annotations

from dataclasses import replace

from gamekit import Judge, start_full_game
from judge.basics.config import WebSection
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


def private_game_with_results(j: Judge) -> dict[str, str]:
    """A private game (privacy password "hush") with S1901M played; power → address."""
    j.config = replace(j.config, web=WebSection(url=URL))
    assigned = start_full_game(j)
    assert "Error" not in j.mail("master@example.org", f"SIGNON M{G} mpw\nSET PRIVACY hush").body
    for power, lines in SPRING_ORDERS.items():
        j.mail(assigned[power], signon(j, power) + "\n" + "\n".join(lines))
    return assigned


def link_of(j: Judge, address: str) -> str:
    """The link at the end of the S1901M results ``address`` got."""
    [results] = [m for m in j.outbox() if "S1901M Results" in m.subject and address in m.to]
    link = results.body.rstrip("\n").rsplit(" ", 1)[1]
    assert link.startswith(f"{URL}/games/{G}?code="), link
    return link.removeprefix(URL)


def cookie_of(reply) -> str:
    return reply.headers["Set-Cookie"].split(";", 1)[0]


def test_a_private_games_links_carry_a_one_time_code_never_the_pass(judge_in_process: Judge
                                                                    ) -> None:
    from conftest import free_port
    from judge.web.app import WebView
    from webkit import Web, serve_in_thread
    j = judge_in_process
    assigned = private_game_with_results(j)
    france, italy = link_of(j, assigned["FRANCE"]), link_of(j, assigned["ITALY"])
    assert france != italy  # each recipient's own
    listed = j.mail("fan@example.org", f"LIST {G} PRIVACY hush").body
    assert f"{G} on the web: {URL}/games/{G}?code=" in listed
    web = Web(j, free_port())
    for _ in serve_in_thread(WebView(j.store, j.config), web.port, web.served):
        # opening the link (as a mail scanner or a link preview does) spends nothing: it
        # shows a button, and shows it again
        for _ in range(2):
            shown = web.get(france + "&tz=Europe/Paris")
            assert shown.status == 200 and "Set-Cookie" not in shown.headers
            assert f'action="/games/{G}/open"' in shown.text
        # the button spends the code: the page, without the code, in the zone asked for
        code = france.split("code=", 1)[1]
        opened = open_link(web, france, "Europe/Paris")
        assert opened.status == 303
        assert opened.headers["Location"] == f"/games/{G}?tz=Europe%2FParis"
        crumb = cookie_of(opened)
        value = crumb.split("=", 1)[1]
        assert web.get(f"/games/{G}", Cookie=crumb).status == 200
        # the pass is in no address the judge writes: not in mail, not in a redirect
        for m in j.outbox():
            assert value not in m.body
        assert value not in opened.headers["Location"]
        # the code is good once: opened or posted again without the pass, it opens nothing
        again = web.get(france)
        assert again.status == 403 and "Set-Cookie" not in again.headers
        assert "has been opened before, or is out of date" in again.text
        posted = web.post_form(f"/games/{G}/open", {"code": code})
        assert posted.status == 403 and "Set-Cookie" not in posted.headers
        # with the pass, the link goes on to the page
        assert web.get(france, Cookie=crumb).status == 303
        # a made-up code opens nothing and gives no cookie, shown or posted
        made_up = f"0.{2 ** 31}.{'0' * 16}.{'0' * 32}"
        bad = web.get(f"/games/{G}?code={made_up}")
        assert bad.status == 403 and "Set-Cookie" not in bad.headers
        bad = web.post_form(f"/games/{G}/open", {"code": made_up})
        assert bad.status == 403 and "Set-Cookie" not in bad.headers


def open_link(web, link: str, zone: str = ""):
    """What a reader's click on the button of a link from mail gets (the POST it makes)."""
    form = {"code": link.split("code=", 1)[1].split("&", 1)[0]}
    if zone:
        form["tz"] = zone
    return web.post_form(link.split("?", 1)[0] + "/open", form)


def test_a_pass_expires_and_a_departed_players_pass_is_void(judge_in_process: Judge,
                                                            monkeypatch) -> None:
    from datetime import timedelta

    from conftest import free_port
    from judge.basics.utc import utcnow
    from judge.web import app
    from judge.web.app import WebView
    from webkit import Web, serve_in_thread
    j = judge_in_process
    assigned = private_game_with_results(j)
    web = Web(j, free_port())
    for _ in serve_in_thread(WebView(j.store, j.config), web.port, web.served):
        italy = cookie_of(open_link(web, link_of(j, assigned["ITALY"])))
        france = cookie_of(open_link(web, link_of(j, assigned["FRANCE"])))
        russia_link = link_of(j, assigned["RUSSIA"])
        stranger = cookie_of(web.post_form(f"/games/{G}/pass", {"password": "hush"}))
        for crumb in (italy, france, stranger):
            assert web.get(f"/games/{G}", Cookie=crumb).status == 200
        # France resigns: their pass is void at once, the others' are not
        reply = j.mail(assigned["FRANCE"], signon(j, "FRANCE") + "\nRESIGN")
        assert "Error" not in reply.body, reply.body
        assert web.get(f"/games/{G}", Cookie=france).status == 403
        assert web.get(f"/games/{G}", Cookie=italy).status == 200
        # Russia is ejected by the master before opening the link: it opens nothing
        reply = j.mail("master@example.org", f"SIGNON M{G} mpw\nEJECT Russia")
        assert "Error" not in reply.body, reply.body
        assert web.get(russia_link).status == 403
        assert open_link(web, russia_link).status == 403
        # a month later every pass and link is out of date
        later = utcnow() + timedelta(days=j.config.web.pass_days, minutes=1)
        monkeypatch.setattr(app, "utcnow", lambda when=later: when)
        for crumb in (italy, stranger):
            assert web.get(f"/games/{G}", Cookie=crumb).status == 403
        assert web.get(link_of(j, assigned["TURKEY"])).status == 403
        assert open_link(web, link_of(j, assigned["TURKEY"])).status == 403
