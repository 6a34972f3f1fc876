"""The web view and JSON API as an aiohttp application, served by ``judge serve``.

Pages are rendered on the server from templates/web/ (no script at all), the JSON API lives
under ``/api/v1/`` (docs/web.md).  Every handler does its database reading and rendering in
a thread of the event loop's executor, so that intake (SMTP on the same loop) never waits
for a page.  Responses carry an ETag (a hash of the body; a map's, of the document drawn) and
``If-None-Match`` answers 304, so polling costs a hash, not a transfer (nor a drawing).

Security headers go on every answer: a Content-Security-Policy that allows no script and
nothing from elsewhere, ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Hashable
from urllib.parse import quote, urlencode

import msgspec
from aiohttp import web
from cachetools import TTLCache

from judge import __version__
from judge.basics.utc import utcnow
from judge.basics.config import Config
from judge.mail.writing.compose import make_environment
from judge.store.db import Store
from judge.service.access import passes
from judge.web import views
from judge.web.picture_store import MapStore
from judge.basics.zones import zone_named

log = logging.getLogger("judge.web")

SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; img-src 'self'; style-src 'self'; "
                                "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
HTML = "text/html"
JSON = "application/json"
_encode = msgspec.json.Encoder().encode


@dataclass
class Answer:
    """What a page worker returns to its handler (built in a thread, sent on the loop)."""

    status: int
    body: bytes
    content_type: str = HTML
    cookie: tuple[str, str] | None = None
    location: str | None = None
    etag: str | None = None
    # a private game's: no shared cache (a proxy's) may keep it for others
    private: bool = False
    retry: bool = False  # a 503: come back in a few seconds


def _keepable(answer: Answer) -> bool:
    """Whether an answer is the same for everybody, and so may be kept and shared."""
    return (answer.status == 200 and not answer.private and answer.cookie is None
            and answer.location is None)


def _size(answer: Answer) -> int:
    return len(answer.body) + 256  # the body, and the answer object around it


def etag_of(data: bytes) -> str:
    return '"' + hashlib.blake2b(data, digest_size=12).hexdigest() + '"'


def _matches(request: web.Request, etag: str) -> bool:
    wanted = request.headers.get("If-None-Match", "")
    return any(t.strip() in (etag, "*", f"W/{etag}") for t in wanted.split(","))


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@web.middleware
async def guard(request: web.Request, handler: Callable[..., Any]) -> web.StreamResponse:
    """Security headers on every answer; ETag and 304 on every successful GET.  A name in
    the path holding a control character names nothing (and PostgreSQL refuses a NUL in a
    query): no such page, without asking the store."""
    try:
        if any(_CONTROL.search(value) for value in request.match_info.values()):
            raise web.HTTPNotFound()
        response = await handler(request)
    except web.HTTPException as exc:  # no such route, a wrong method: plain text
        if exc.status >= 300 and exc.status < 400:
            raise
        response = web.Response(status=exc.status, text=f"{exc.status}: {exc.reason}\n",
                                headers={k: v for k, v in exc.headers.items()
                                         if k not in ("Content-Type", "Content-Length")})
    except Exception:  # a fault of the judge's: logged, and nothing of it shown
        log.exception("web view: %s %s failed", request.method, request.path)
        response = web.Response(status=500, text="500: the judge could not show this page\n")
    if (request.method in ("GET", "HEAD") and response.status == 200
            and isinstance(response, web.Response) and response.body is not None):
        etag = response.headers.get("ETag") or etag_of(bytes(response.body))  # type: ignore[arg-type]
        response.headers["ETag"] = etag
        if _matches(request, etag):
            response = web.Response(status=304, headers={"ETag": etag})
    response.headers.update(SECURITY_HEADERS)
    response.headers.setdefault("Cache-Control", "no-cache")
    return response


def _zone(request: web.Request) -> tuple[str, str]:
    """The reader's zone from ``?tz=`` (UTC when absent or not a zone), and the query text
    that keeps it in links."""
    given = request.query.get("tz", "")
    zone = zone_named(given) if given else None
    return zone or "UTC", ("?" + urlencode({"tz": zone}) if zone and zone != "UTC" else "")


def _client(request: web.Request) -> str:
    # behind a proxy the peer is the proxy: nginx passes the client in X-Real-IP (deploy/)
    peer = request.remote or "unknown"
    if peer in ("127.0.0.1", "::1"):
        peer = request.headers.get("X-Real-IP", peer)
    return peer[:64]


class WebView:
    """The application: routes, and the workers that read the store and render.

    A public answer (the same for everybody: a public game's page, the list, the API) is kept
    for ``recent_seconds`` under what the page reads (its route, its names, the zone and page
    numbers it shows; not the rest of the query, nor cookies) and served again as it is: a
    query made up to miss the cache (``?b=1``, ``?b=2`` …) finds it all the same.  Kept
    answers take at most ``[web] cache_bytes``; expired ones are dropped as new ones come in.
    The same answer asked for while it is being made waits for it rather than making it again.
    At most ``[web] max_renders`` answers are being made or waiting for a thread at once; one
    more is answered 503 at once.  Private answers, answers that set a cookie and errors are
    never kept."""

    def __init__(self, store: Store, config: Config, recent_seconds: float = 1.0) -> None:
        self.store = store
        self.config = config
        self.recent_seconds = recent_seconds
        # cachetools: expiry and a bound in bytes, both enforced as entries are added
        self._kept: TTLCache[Hashable, Answer] | None = (
            TTLCache(maxsize=config.web.cache_bytes, ttl=recent_seconds, getsizeof=_size)
            if recent_seconds > 0 and config.web.cache_bytes > 0 else None)
        self._making: dict[Hashable, asyncio.Future[Answer]] = {}
        self.renders = 0  # answers being made or waiting for a thread
        self.maps = MapStore(config.web.map_cache_bytes)
        self.env = make_environment()
        self.style = self.env.loader.get_source(self.env, "web/style.css")[0].encode()  # type: ignore[union-attr]
        self._busy = self.busy_text().encode()

    def busy_text(self) -> str:
        """The words of a 503 (too many connections, or too many answers being made)."""
        return self.env.get_template("web/busy.txt").render()

    def close(self) -> None:
        if self._kept is not None:
            self._kept.clear()

    def application(self) -> web.Application:
        app = web.Application(middlewares=[guard], client_max_size=4096)
        app.add_routes([
            web.get("/", self.games_page),
            web.get("/style.css", self.stylesheet),
            web.get("/favicon.ico", self.no_icon),
            web.get("/games/{name}", self.game_page),
            web.post("/games/{name}/pass", self.take_password),
            web.post("/games/{name}/open", self.open_link),
            web.get("/games/{name}/map.png", self.current_map),
            web.get("/games/{name}/phases/{phase}", self.phase_page),
            web.get("/games/{name}/phases/{phase}/map.png", self.phase_map),
            web.get("/tournaments/{name}", self.tournament_page),
            web.get("/api/v1/", self.api_index),
            web.get("/api/v1/games", self.api_games),
            web.get("/api/v1/games/{name}", self.api_game),
            web.get("/api/v1/games/{name}/phases/{phase}", self.api_phase),
            web.get("/api/v1/tournaments/{name}", self.api_tournament),
        ])
        return app

    # ------------------------------------------------------------------ plumbing

    async def _answer(self, request: web.Request, work: Callable[[], Answer],
                      key: Hashable | None = None) -> web.Response:
        """``work``'s answer (run in a thread), or the one kept under ``key`` (None: an answer
        that is never kept)."""
        if self._kept is None or request.method not in ("GET", "HEAD"):
            key = None
        if key is not None:
            kept = self._kept.get(key) if self._kept is not None else None
            if kept is not None:
                return self._response(kept)
            pending = self._making.get(key)
            if pending is not None:
                answer = await asyncio.shield(pending)
                if _keepable(answer):  # the same for everybody: this reader's too
                    return self._response(answer)
                key = None
        return self._response(await self._make(work, key))

    async def _make(self, work: Callable[[], Answer], key: Hashable | None) -> Answer:
        if self.renders >= self.config.web.max_renders:
            log.warning("web view busy: %d answers being made, the most [web] max_renders "
                        "allows", self.renders)
            return Answer(503, self._busy, "text/plain", retry=True)
        loop = asyncio.get_running_loop()
        making: asyncio.Future[Answer] | None = None
        if key is not None:
            making = self._making[key] = loop.create_future()
        self.renders += 1
        try:
            answer = await loop.run_in_executor(None, work)
        except BaseException as exc:
            if making is not None:
                making.set_exception(exc)
                making.exception()  # retrieved: nobody else may be waiting for it
            raise
        finally:
            self.renders -= 1
            if key is not None:
                del self._making[key]
        if making is not None:
            making.set_result(answer)
        if key is not None and self._kept is not None and _keepable(answer):
            try:
                self._kept[key] = answer
            except ValueError:
                pass  # larger than the whole cache: made for each reader
        return answer

    def _response(self, answer: Answer) -> web.Response:
        if answer.location is not None:
            response = web.Response(status=answer.status, headers={"Location": answer.location})
        else:
            response = web.Response(status=answer.status, body=answer.body,
                                    content_type=answer.content_type, charset="utf-8"
                                    if answer.content_type != "image/png" else None)
        scope = "private" if answer.private else "public"
        if answer.etag:
            response.headers["ETag"] = answer.etag
            response.headers["Cache-Control"] = f"{scope}, max-age=60"
        elif answer.private:
            response.headers["Cache-Control"] = "private, no-cache"
        if answer.retry:
            response.headers["Retry-After"] = "5"
        if answer.cookie is not None:
            name, value = answer.cookie
            response.set_cookie(name, value, path="/", httponly=True, samesite="Strict",
                                secure=self.config.web_url.startswith("https://"),
                                max_age=int(self.config.web.pass_days * 24 * 3600))
        return response

    def render(self, template: str, status: int = 200, **variables: Any) -> Answer:
        text = self.env.get_template(f"web/{template}").render(
            judge_name=self.config.judge.name, judge_address=self.config.judge.address,
            version=__version__, **variables)
        return Answer(status, text.encode())

    def _json(self, value: Any, status: int = 200) -> Answer:
        return Answer(status, _encode(value), JSON)

    def _error(self, api: bool, status: int, message: str, **page: Any) -> Answer:
        if api:
            return self._json({"error": message}, status)
        return self.render("error.html", status, message=message, zone="UTC", tzq="", **page)

    @property
    def pass_lifetime(self) -> timedelta:
        return timedelta(days=self.config.web.pass_days)

    def _visible(self, session: Any, name: str, cookies: dict[str, str]) -> Any:
        """The game, if the reader may see it; NotFound, or a PermissionError."""
        game = views.find_public_game(session, name)
        if not passes.pass_is_good(session, game, cookies.get(passes.cookie_name(game)),
                                   utcnow()):
            raise PermissionError(game.name)
        return game

    def _read(self, request: web.Request, api: bool,
              make: Callable[[Any, Any], Answer]) -> Callable[[], Answer]:
        """A worker that reads the named game (if visible) and answers with ``make``."""
        name = request.match_info["name"]
        cookies = dict(request.cookies)
        code = request.query.get("code")
        if code is not None and not api:
            zone, tzq = _zone(request)
            return lambda: self._open_link(name, code, cookies, request.path + tzq, zone)

        def work() -> Answer:
            with self.store.reading() as session:
                try:
                    game = self._visible(session, name, cookies)
                    answer = make(session, game)
                    answer.private = game.privacy_hash is not None
                    return answer
                except views.NotFound as exc:
                    return self._error(api, 404, f"{exc}.")
                except PermissionError as exc:
                    if api:
                        return self._json({"error": f"{exc.args[0]} is a private game: post "
                                           "its privacy password to /games/"
                                           f"{exc.args[0]}/pass first"}, 403)
                    return self.render("private.html", 403, game=exc.args[0], wrong=False,
                                       zone="UTC", tzq="")
        return work

    def _open_link(self, name: str, code: str, cookies: dict[str, str], page: str,
                   zone: str) -> Answer:
        """A link from mail with a one-time code, opened (GET): a page with one button that
        spends the code (:meth:`open_link`).  Mail scanners and link previews open links to
        look at them; a GET never spends the code, so the reader's own click still works.  A
        reader who holds a good pass already goes straight on to the page."""
        now = utcnow()
        with self.store.reading() as session:
            try:
                game = views.find_public_game(session, name)
            except views.NotFound as exc:
                return self._error(False, 404, f"{exc}.")
            if game.privacy_hash is None or passes.pass_is_good(
                    session, game, cookies.get(passes.cookie_name(game)), now):
                return Answer(303, b"", location=page)
            if not passes.code_is_open(session, game, code[:200], now, self.pass_lifetime):
                return self.render("private.html", 403, game=game.name, wrong=False,
                                   spent=True, zone="UTC", tzq="")
            return self.render("open.html", 200, game=game.name, code=code[:200],
                               page_zone=zone if zone != "UTC" else "", zone="UTC", tzq="")

    async def open_link(self, request: web.Request) -> web.Response:
        """The button of a link from mail (POST): the code spent once for a pass (a cookie),
        and the page, the zone kept."""
        name = request.match_info["name"]
        form = await request.post()
        code = str(form.get("code", ""))[:200]
        given = str(form.get("tz", ""))[:64]
        zone = zone_named(given) if given else None
        query = "?" + urlencode({"tz": zone}) if zone and zone != "UTC" else ""
        now = utcnow()

        def work() -> Answer:
            with self.store.transaction() as session:
                try:
                    game = views.find_public_game(session, name)
                except views.NotFound as exc:
                    return self._error(False, 404, f"{exc}.")
                page = f"/games/{quote(game.name)}{query}"
                if game.privacy_hash is None:
                    return Answer(303, b"", location=page)
                given = passes.use_code(session, game, code, now, self.pass_lifetime)
                if given is not None:
                    return Answer(303, b"", cookie=(passes.cookie_name(game), given),
                                  location=page)
                return self.render("private.html", 403, game=game.name, wrong=False,
                                   spent=True, zone="UTC", tzq="")
        return await self._answer(request, work)

    # ------------------------------------------------------------------ pages

    async def stylesheet(self, request: web.Request) -> web.Response:
        return web.Response(body=self.style, content_type="text/css", charset="utf-8",
                            headers={"Cache-Control": "public, max-age=3600"})

    async def no_icon(self, request: web.Request) -> web.Response:
        """Browsers ask for an icon: there is none (and no 404 in the log for it)."""
        return web.Response(status=204, headers={"Cache-Control": "public, max-age=86400"})

    async def games_page(self, request: web.Request) -> web.Response:
        zone, tzq = _zone(request)
        page = _page_number(request)

        def work() -> Answer:
            with self.store.reading() as session:
                listing = views.list_games(session, page)
            return self.render("games.html", zone=zone, tzq=tzq, **listing)
        return await self._answer(request, work, ("list", zone, page))

    async def game_page(self, request: web.Request) -> web.Response:
        zone, tzq = _zone(request)
        press = _number(request, "press")
        return await self._answer(request, self._read(request, False, lambda session, game:
                                  self.render("game.html", zone=zone, tzq=tzq,
                                              game=views.game_view(session, game, press))),
                                  _page_key(request, "game", zone, press))

    async def phase_page(self, request: web.Request) -> web.Response:
        zone, tzq = _zone(request)
        phase = request.match_info["phase"]
        press = _number(request, "press")
        return await self._answer(request, self._read(request, False, lambda session, game:
                                  self.render("phase.html", zone=zone, tzq=tzq,
                                              view=views.phase_view(session, game, phase,
                                                                    press))),
                                  _page_key(request, "phase", zone, press))

    async def tournament_page(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]

        def work() -> Answer:
            with self.store.reading() as session:
                try:
                    table = views.standings_view(session, name)
                except views.NotFound as exc:
                    return self._error(False, 404, f"{exc}.")
            return self.render("tournament.html", zone="UTC", tzq="", table=table)
        return await self._answer(request, work, _page_key(request, "tournament"))

    async def take_password(self, request: web.Request) -> web.Response:
        """The privacy form: a right password gets a pass (cookie) and goes to the game."""
        name = request.match_info["name"]
        form = await request.post()
        password = str(form.get("password", ""))
        client = _client(request)
        now = utcnow()

        def work() -> Answer:
            with self.store.reading() as session:
                try:
                    game = views.find_public_game(session, name)
                except views.NotFound as exc:
                    return self._error(False, 404, f"{exc}.")
                session.expunge(game)
                if game.privacy_hash is None:
                    return Answer(303, b"", location=f"/games/{game.name}")
            # counted before it is checked: guesses made at once never pass the limits together
            with self.store.transaction() as session:
                allowed = passes.reserve_guess(session, game, client, now)
            if not allowed:
                return self.render("private.html", 429, game=game.name, wrong=False,
                                   too_many=True, zone="UTC", tzq="")
            if passes.password_is_right(game, password):
                with self.store.transaction() as session:
                    passes.take_back_guess(session, game, client, now)
                return Answer(303, b"", cookie=(passes.cookie_name(game), passes.make_pass(
                    game, None, now, self.pass_lifetime)), location=f"/games/{game.name}")
            return self.render("private.html", 403, game=game.name, wrong=True, zone="UTC",
                               tzq="")
        return await self._answer(request, work)

    # ------------------------------------------------------------------ maps

    async def current_map(self, request: web.Request) -> web.Response:
        return await self._map(request, views.current_map_document,
                               _page_key(request, "map"))

    async def phase_map(self, request: web.Request) -> web.Response:
        phase = request.match_info["phase"]
        return await self._map(request, lambda session, game:
                               views.phase_map_document(session, game, phase),
                               _page_key(request, "phase map"))

    async def _map(self, request: web.Request,
                   document: Callable[[Any, Any], dict[str, Any]],
                   key: Hashable | None) -> web.Response:
        """A map picture, drawn only when the reader does not have it already (ETag), and
        then only once for each board (judge.web.picture_store)."""
        def make(session: Any, game: Any) -> Answer:
            doc = document(session, game)
            etag = etag_of(json.dumps(doc, sort_keys=True).encode())
            if _matches(request, etag):
                return Answer(304, b"", etag=etag)
            return Answer(200, self.maps.png(doc), "image/png", etag=etag)
        return await self._answer(request, self._read(request, False, make), key)

    # ------------------------------------------------------------------ the JSON API

    async def api_index(self, request: web.Request) -> web.Response:
        return await self._answer(request, lambda: self._json({
            "version": 1, "judge": self.config.judge.name,
            "games": "/api/v1/games", "game": "/api/v1/games/{name}",
            "phase": "/api/v1/games/{name}/phases/{phase}",
            "tournament": "/api/v1/tournaments/{name}"}), ("api",))

    async def api_games(self, request: web.Request) -> web.Response:
        page = _page_number(request)

        def work() -> Answer:
            with self.store.reading() as session:
                listing = views.list_games(session, page)
            for g in listing["games"]:
                g["deadline"] = views.moment(g["deadline"])
                g["url"] = f"/api/v1/games/{g['name']}"
                del g["variant_title"]
            return self._json(listing)
        return await self._answer(request, work, ("api list", page))

    async def api_game(self, request: web.Request) -> web.Response:
        press = _number(request, "press")

        def make(session: Any, game: Any) -> Answer:
            view = views.game_view(session, game, press)
            view["deadline"] = views.moment(view["deadline"])
            view["board"] = views.current_board_json(game)
            for p in view["press_messages"]:
                p["sent_at"] = views.moment(p["sent_at"])
            view["press"], view["press_setting"] = view.pop("press_messages"), view["press"]
            for p in view["phases"]:
                p["url"] = f"/api/v1/games/{game.name}/phases/{p['phase']}"
            del view["variant_title"], view["phase_title"]
            return self._json(view)
        return await self._answer(request, self._read(request, True, make),
                                  _page_key(request, "api game", press))

    async def api_phase(self, request: web.Request) -> web.Response:
        phase = request.match_info["phase"]
        return await self._answer(request, self._read(
            request, True, lambda session, game: self._json(
                views.phase_json(session, game, phase))), _page_key(request, "api phase"))

    async def api_tournament(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]

        def work() -> Answer:
            with self.store.reading() as session:
                try:
                    return self._json(views.standings_view(session, name))
                except views.NotFound as exc:
                    return self._error(True, 404, f"{exc}.")
        return await self._answer(request, work, _page_key(request, "api tournament"))


def _page_number(request: web.Request) -> int:
    return _number(request, "page") or 1


def _number(request: web.Request, name: str) -> int | None:
    """A page number from the query (None when absent or no number)."""
    text = request.query.get(name, "")
    return int(text) if text.isdigit() and len(text) < 7 else None


def _page_key(request: web.Request, route: str, *read: Any) -> Hashable | None:
    """What a game's (or tournament's) answer is kept under: the route, the names in its path
    as the store looks them up, and what else of the request it reads (``read``).  None for
    a link from mail carrying a code, which is never kept."""
    if "code" in request.query:
        return None
    names = request.match_info
    phase = names.get("phase")
    return (route, names["name"].lower()[:32], phase.upper()[:8] if phase else None, *read)
