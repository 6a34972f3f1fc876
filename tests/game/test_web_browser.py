"""The web view in a real browser: headless Chromium loads the pages of a game played by mail
and the tests check what a person sees: the map is there (the browser fetched it and it is
drawn on the screen), the phase links lead to their phases, no private text appears.

Chromium is an external program (the Debian package ``chromium``; .ci/run installs it): without
it these tests are skipped, saying so.  One browser serves the module (headless.py), each page
in a context of its own that shares no cache with any other."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Iterator

import pytest

from headless import Chromium
from webkit import G, MASTER, Web, game_played_by_mail, signon

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="Chromium is not installed (Debian package chromium)")
SECRET = "Meet me in Munich, tell nobody."


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    assert CHROMIUM is not None
    chromium = Chromium(CHROMIUM, tmp_path_factory.mktemp("chromium"))
    yield chromium
    chromium.close()


def dom(browser: Chromium, url: str) -> str:
    page = browser.open(url, 1000, 800)
    try:
        return page.dom()
    finally:
        page.close()


def screenshot(browser: Chromium, url: str, path: Path, size: str) -> Path:
    width, height = (int(x) for x in size.split(","))
    page = browser.open(url, width, height)
    try:
        return page.screenshot(path)
    finally:
        page.close()


@pytest.fixture
def played(web: Web) -> Web:
    """A game with its first phase played by mail, a broadcast, and private press."""
    j = web.judge
    assigned = game_played_by_mail(j)
    reply = j.mail(assigned["FRANCE"], signon(j, "FRANCE") + "\n"
                   "BROADCAST\nVive la <b>France</b>!\nENDPRESS\n"
                   f"PRESS TO Germany\n{SECRET}\nENDPRESS")
    assert "Error" not in reply.body, reply.body
    return web


def test_the_game_page_shows_the_map_and_no_private_text(played: Web, browser: Chromium,
        tmp_path: Path) -> None:
    from PIL import Image
    url = f"{played.base}/games/{G}"
    page = dom(browser, url)
    assert f"<h1>{G}</h1>" in page
    assert re.search(rf'<img src="/games/{G}/map.png" alt="Map of {G} at Fall of 1901. '
                     'Movement"', page)
    assert "Vive la &lt;b&gt;France&lt;/b&gt;!" in page  # the press as text, not markup
    assert SECRET not in page and "@example.org" not in page.replace("judge@example.org", "")
    played.served.clear()
    shot = screenshot(browser, url, tmp_path / "game.png", "1000,1600")
    # the browser fetched the map and the style sheet, and nothing failed
    assert (f"/games/{G}/map.png", 200) in played.served
    assert ("/style.css", 200) in played.served
    assert all(status in (200, 204) for _, status in played.served), played.served
    with Image.open(shot) as img:
        assert img.size == (1000, 1600)
        # the map is drawn: its part of the screen has the powers' many colours, where text
        # on a plain page has a few dozen greys
        colours = img.convert("RGB").crop((0, 250, 1000, 1100)).getcolors(1 << 20)
        assert colours is not None and len(colours) > 500, len(colours or [])


def test_the_phase_links_lead_to_each_phase_with_its_map(played: Web, browser: Chromium) -> None:
    page = dom(browser, f"{played.base}/games/{G}")
    links = re.findall(rf'<a href="(/games/{G}/phases/\w+)">(\w+)</a>', page)
    assert links == [(f"/games/{G}/phases/S1901M", "S1901M")]
    phase = dom(browser, played.base + links[0][0])
    assert f"<h1>{G}: Spring of 1901. Movement</h1>" in phase
    assert f'<img src="/games/{G}/phases/S1901M/map.png"' in phase
    assert "France: Army Paris -&gt; Burgundy." in phase
    assert SECRET not in phase
    back = re.search(rf'<a href="(/games/{G})">the game now</a>', phase)
    assert back is not None


def test_a_private_game_shows_a_form_and_nothing_of_the_game(web: Web, browser: Chromium) -> None:
    web.judge.mail(MASTER, "CREATE hidden mpw PRIVACY hush")
    page = dom(browser, f"{web.base}/games/hidden")
    assert "<h1>hidden is a private game</h1>" in page
    assert '<input id="password" name="password" type="password"' in page
    assert "forming" not in page and "map.png" not in page
    assert "hidden" not in dom(browser, f"{web.base}/")


def keep(shot: Path) -> None:
    """Copies a screenshot to $JUDGE_WEB_SCREENSHOTS (a folder), to be looked at."""
    folder = os.environ.get("JUDGE_WEB_SCREENSHOTS")
    if folder:
        shutil.copy(shot, Path(folder) / shot.name)


def test_screenshots_for_a_desk_and_a_phone(played: Web, browser: Chromium,
        tmp_path: Path) -> None:
    """Pictures to look at (docs/images/web-game.png is one): the game on a desk and on a
    phone, the list, a phase.  Each is a picture of the whole window asked for."""
    from PIL import Image
    played.judge.mail(MASTER, "CREATE hidden mpw PRIVACY hush")
    for name, path, size in (("game.png", f"/games/{G}", "1000,1900"),
                             ("private.png", "/games/hidden", "390,700"),
                             ("phone.png", f"/games/{G}", "390,2400"),
                             ("list.png", "/", "1000,600"),
                             ("phase.png", f"/games/{G}/phases/S1901M", "1000,1800")):
        shot = screenshot(browser, played.base + path, tmp_path / name, size)
        with Image.open(shot) as img:
            assert img.size == tuple(int(x) for x in size.split(","))
        keep(shot)
    page = dom(browser, f"{played.base}/")
    assert 'name="viewport" content="width=device-width, initial-scale=1"' in page


PHONE = (390, 844)


def test_on_a_phone_the_list_fits_the_screen_and_the_map_opens_at_full_size(
        played: Web, browser: Chromium, tmp_path: Path) -> None:
    """At 390 px the list once hid three columns beyond the right edge, with no sign that it
    scrolled, and the map was too small to read and no link: now each game is a card of
    labelled lines, and the map is a link to the picture at its full size."""
    from judge.service.games import create_game
    from judge.basics.utc import utcnow
    j = played.judge
    with j.store.transaction() as s:
        create_game(s, "longergamename", "pw", MASTER, utcnow())
    page = browser.open(f"{played.base}/", *PHONE)
    try:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE[0], width
        # every game's name, state, phase, deadline, seats and press can be seen on screen
        cells = page.evaluate(
            "Array.from(document.querySelectorAll('table.games td')).filter(td => "
            "td.offsetParent !== null).map(td => [td.innerText, "
            "td.getBoundingClientRect().right])")
        assert all(right <= PHONE[0] for _, right in cells), cells
        texts = [text for text, _ in cells]
        assert G in texts and "private and public; grey" in texts, texts
        assert any(re.fullmatch(r"\w+day \d+ \w+ \d{4}, \d\d:\d\d UTC", t) for t in texts)
        # each line says what it is
        label = page.evaluate("getComputedStyle(document.querySelector("
                              "'td[data-label=Deadline]'), '::before').content")
        assert label == '"Deadline"', label
        keep(page.screenshot(tmp_path / "phone-list.png"))
    finally:
        page.close()
    page = browser.open(f"{played.base}/games/{G}", *PHONE)
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
        link = page.evaluate("document.querySelector('figure.map img').parentElement"
                             ".getAttribute('href')")
        assert link == f"/games/{G}/map.png"
        keep(page.screenshot(tmp_path / "phone-game.png"))
    finally:
        page.close()
    played.served.clear()
    page = browser.open(f"{played.base}{link}", *PHONE)
    try:
        # the picture itself, at its full size (wider than the phone: the reader zooms)
        assert page.evaluate("document.images[0].naturalWidth") > PHONE[0]
    finally:
        page.close()
