"""The web view answers every odd request a stranger can make with a page or a plain refusal,
never a server error: odd game and phase names, odd query values, odd passes, odd headers."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from webkit import G, Web, game_played_by_mail

# (a NUL in a name once made a server error on PostgreSQL, which refuses it in a query)
ODD = ["", " ", "%00", "%01", "a%00b", "%7f", "%2e%2e", "..", "x" * 5000, "%ff%fe", "ü",
       "<script>", "S1901M" * 100, "W1901A", "S1901R", "F9999M", "S0M", "-1", "9" * 40,
       "%0d%0aSet-Cookie:x=y", "null"]


@pytest.fixture
def played(web: Web) -> Web:
    game_played_by_mail(web.judge)
    return web


def test_odd_paths_and_queries_get_a_page_or_a_refusal(played: Web) -> None:
    paths = []
    for odd in ODD:
        q = quote(odd, safe="%")
        paths += [f"/games/{q}", f"/games/{G}/phases/{q}", f"/games/{G}/phases/{q}/map.png",
                  f"/games/{q}/map.png", f"/tournaments/{q}", f"/api/v1/games/{q}",
                  f"/api/v1/games/{G}/phases/{q}", f"/api/v1/tournaments/{q}",
                  f"/?page={q}", f"/api/v1/games?page={q}", f"/games/{G}?tz={q}",
                  f"/games/{G}?pass={q}", f"/api/v1/games/{G}?tz={q}&tz=UTC"]
    for path in paths:
        reply = played.get(path)
        assert reply.status in (200, 303, 304, 400, 403, 404), (path[:120], reply.status,
                                                                reply.body[:300])
        assert b"Traceback" not in reply.body
        assert "set-cookie" not in {k.lower() for k in reply.headers.keys()} or \
            "x=y" not in str(reply.headers)


def test_odd_passes_and_headers_get_a_page_or_a_refusal(played: Web) -> None:
    for odd in ODD:
        reply = played.post_form(f"/games/{G}/pass", {"pass": odd})
        assert reply.status in (200, 303, 400, 403, 404, 413, 429), (odd[:60], reply.status)
        for header in ("If-None-Match", "Cookie", "Accept-Language"):
            value = odd.replace("%0d%0a", " ")
            reply = played.get(f"/games/{G}", **{header.replace("-", "_"): value})
            assert reply.status in (200, 304, 400), (header, odd[:60], reply.status)
