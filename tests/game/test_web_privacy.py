"""Privacy on the web is the privacy of the mail: no address, no private press, no grey
sender, no vote, no order of the phase in progress is ever shown, and a private game is not
listed and needs its privacy password (a form that gives a signed pass)."""

from __future__ import annotations

import re

from gamekit import observe
from webkit import G, MASTER, Web, game_played_by_mail, signon

PUBLIC_PATHS = ("/", f"/games/{G}", f"/games/{G}/phases/S1901M", "/api/v1/games",
                f"/api/v1/games/{G}", f"/api/v1/games/{G}/phases/S1901M")


def everything(web: Web) -> dict[str, bytes]:
    return {path: web.get(path).body for path in (*PUBLIC_PATHS, f"/games/{G}/map.png")}


def test_no_address_is_ever_shown(web: Web) -> None:
    j = web.judge
    assigned = game_played_by_mail(j)
    observe(j, "watcher@example.org", G)
    addresses = [*assigned.values(), MASTER, "watcher@example.org"]
    for path in PUBLIC_PATHS:
        text = web.get(path).text
        assert not [a for a in addresses if a in text], path
        assert not re.search(r"[\w.]+@example\.org", text.replace("judge@example.org", "")), path


def test_private_press_and_press_to_the_master_are_hidden_and_grey_senders_unnamed(
        web: Web) -> None:
    j = web.judge
    assigned = game_played_by_mail(j)
    reply = j.mail(assigned["FRANCE"], signon(j, "FRANCE") + "\n"
                   "PRESS TO England\nA secret plan.\nENDPRESS\n"
                   "PRESS TO M\nMay I have more time?\nENDPRESS\n"
                   "BROADCAST GREY\nWho am I?\nENDPRESS\n"
                   "BROADCAST\nSigned and public.\nENDPRESS")
    assert reply.body.count("sent to") >= 1 and "Error" not in reply.body, reply.body
    for path in (f"/games/{G}", f"/api/v1/games/{G}", f"/games/{G}/phases/S1901M"):
        text = web.get(path).text
        assert "A secret plan." not in text and "May I have more time?" not in text, path
    page = web.get(f"/games/{G}").text
    heads = re.findall(r'<p class="press-head">(.*?), \w+day', page)
    assert heads == ["F1901M: from someone (grey press) to everyone",
                     "F1901M: from France to everyone"]
    import json
    press = json.loads(web.get(f"/api/v1/games/{G}").body)["press"]
    assert [(p["sender"], p["body"], p["grey"]) for p in press] == [
        ("someone (grey press)", "Who am I?", True), ("France", "Signed and public.", False)]


def test_votes_change_nothing_that_is_shown(web: Web) -> None:
    j = web.judge
    assigned = game_played_by_mail(j)
    before = everything(web)
    reply = j.mail(assigned["AUSTRIA"], signon(j, "AUSTRIA", G) + "\nSET DRAW")
    assert "accepts a draw" in reply.body, reply.body
    assert everything(web) == before
    assert "vote" not in web.get(f"/games/{G}").text.lower()


def test_orders_of_the_phase_in_progress_are_never_shown(web: Web) -> None:
    j = web.judge
    assigned = game_played_by_mail(j)
    before = everything(web)
    reply = j.mail(assigned["FRANCE"], signon(j, "FRANCE") + "\nA BUR-MUN\nF MAO-POR\nA SPA H")
    assert "Every unit has an order." in reply.body, reply.body
    # not a byte of any page, of the API or of the map picture changes
    assert everything(web) == before
    assert web.get(f"/games/{G}/phases/F1901M").status == 404
    assert web.get(f"/api/v1/games/{G}/phases/F1901M").status == 404


def private_game(j) -> None:
    assert "created" in j.mail(MASTER, "CREATE hidden mpw PRIVACY hush").body
    assert "created" in j.mail(MASTER, "CREATE other mpw PRIVACY psst").body


def test_a_private_game_is_not_listed(web: Web) -> None:
    j = web.judge
    private_game(j)
    j.mail(MASTER, "CREATE open mpw")
    page = web.get("/").text
    assert "/games/open" in page and "hidden" not in page and "1 public game." in page
    games = web.get("/api/v1/games").text
    assert '"open"' in games and "hidden" not in games


def test_a_private_game_needs_its_password_on_every_page(web: Web) -> None:
    j = web.judge
    private_game(j)
    for path in ("/games/hidden", "/games/hidden/map.png", "/games/hidden/phases/S1901M",
                 "/api/v1/games/hidden", "/api/v1/games/hidden/phases/S1901M"):
        r = web.get(path)
        assert r.status == 403, path
        assert b"hush" not in r.body and b"Standard" not in r.body, path
    form = web.get("/games/hidden").text
    assert '<form method="post" action="/games/hidden/pass">' in form
    assert 'name="password" type="password"' in form
    assert "forming" not in form


def test_the_right_password_gives_a_pass_for_that_game_only(web: Web) -> None:
    j = web.judge
    private_game(j)
    wrong = web.post_form("/games/hidden/pass", {"password": "guess"})
    assert wrong.status == 403 and "Wrong privacy password for hidden." in wrong.text
    assert "Set-Cookie" not in wrong.headers
    right = web.post_form("/games/hidden/pass", {"password": "hush"})
    assert right.status == 303 and right.headers["Location"] == "/games/hidden"
    cookie = right.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    crumb = cookie.split(";", 1)[0]
    page = web.get("/games/hidden", Cookie=crumb)
    assert page.status == 200 and "Standard game, forming, private." in page.text
    assert web.get("/api/v1/games/hidden", Cookie=crumb).status == 200
    assert web.get("/games/hidden/map.png", Cookie=crumb).status == 200
    # the pass opens no other game, and a made-up one opens nothing
    name, value = crumb.split("=", 1)
    other_id = int(name.rsplit("_", 1)[1]) + 1
    assert web.get("/games/other", Cookie=f"judge_pass_{other_id}={value}").status == 403
    assert web.get("/games/hidden", Cookie=f"{name}={'0' * 64}").status == 403
    # still not listed, pass or not
    assert "hidden" not in web.get("/", Cookie=crumb).text


def test_a_new_privacy_password_voids_every_pass(web: Web) -> None:
    j = web.judge
    private_game(j)
    crumb = web.post_form("/games/hidden/pass", {"password": "hush"}).headers[
        "Set-Cookie"].split(";", 1)[0]
    assert web.get("/games/hidden", Cookie=crumb).status == 200
    reply = j.mail(MASTER, "SIGNON Mhidden mpw\nSET PRIVACY newword")
    assert "Error" not in reply.body, reply.body
    assert web.get("/games/hidden", Cookie=crumb).status == 403


def test_wrong_guesses_are_limited_as_by_mail(web: Web) -> None:
    from judge.service.access.privacy import PER_SENDER
    j = web.judge
    private_game(j)
    for _ in range(PER_SENDER):
        assert web.post_form("/games/hidden/pass", {"password": "guess"}).status == 403
    stopped = web.post_form("/games/hidden/pass", {"password": "hush"})
    assert stopped.status == 429 and "Too many wrong privacy passwords" in stopped.text
    assert "Set-Cookie" not in stopped.headers
    # another client (behind the proxy) is not held up
    assert web.post_form("/games/hidden/pass", {"password": "hush"},
                         X_Real_IP="192.0.2.7").status == 303


def test_a_private_games_answers_are_kept_by_no_shared_cache(web: Web) -> None:
    j = web.judge
    private_game(j)
    j.mail(MASTER, "CREATE open mpw")
    crumb = web.post_form("/games/hidden/pass", {"password": "hush"}).headers[
        "Set-Cookie"].split(";", 1)[0]
    assert web.get("/games/hidden", Cookie=crumb).headers["Cache-Control"] == "private, no-cache"
    assert web.get("/games/hidden/map.png", Cookie=crumb).headers["Cache-Control"] == \
        "private, max-age=60"
    assert web.get("/api/v1/games/hidden", Cookie=crumb).headers["Cache-Control"] == \
        "private, no-cache"
    assert web.get("/games/open/map.png").headers["Cache-Control"] == "public, max-age=60"
    assert web.get("/games/open").headers["Cache-Control"] == "no-cache"
