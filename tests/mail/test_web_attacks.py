"""Attacks on the web view of a running ``judge serve``, made over HTTP while mail goes on over
SMTP: slow and silent connections, more connections than the process has descriptors for,
queries made up to miss the kept pages, map pictures asked for again and again, more pages
at once than may be made, and wrong privacy passwords guessed all at once.  None of them may
keep mail out, and each meets its limit."""

from __future__ import annotations

import http.client
import re
import select
import signal
import socket
import subprocess
import threading
import zoneinfo
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator
from urllib.parse import urlencode

import pytest

from conftest import (JUDGE_EXE, RunningJudge, body_of, free_port, judge_env, make_mail, polls)

# Much of this module's time is spent waiting (time limits): it runs first (tests/conftest.py).
pytestmark = pytest.mark.waits_long

GM = "gm@example.org"


def get(port: int, path: str, **headers: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def body(port: int, path: str, **headers: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def post(port: int, path: str, form: dict[str, str], **headers: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", path, urlencode(form), {
            "Content-Type": "application/x-www-form-urlencoded",
            **{k.replace("_", "-"): v for k, v in headers.items()}})
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


def mailed(judge: RunningJudge, text: str, sender: str = GM) -> str:
    """Mail ``text`` over SMTP and return the reply's body (mail flows)."""
    msg = make_mail(text, sender=sender)
    judge.send(msg)
    return body_of(judge.reply_to(msg["Message-ID"], timeout=60))


def closed_by_server(sock: socket.socket, keep_talking: bytes = b"") -> bool:
    """Whether the server closes ``sock`` (within the test's generous bound), while the
    client sends ``keep_talking`` every 0.2 s."""
    sock.settimeout(0.2)
    for _ in polls(20):
        try:
            if sock.recv(4096) == b"":
                return True
        except socket.timeout:
            pass
        except OSError:
            return True
        if keep_talking:
            try:
                sock.sendall(keep_talking)
            except OSError:
                return True
    return False


@pytest.fixture(scope="module")
def web_judge(tmp_path_factory: pytest.TempPathFactory, _head_template: str,
              _pg_databases) -> Iterator[tuple[RunningJudge, int]]:
    """A daemon with its web view on, short time limits, two answers made at a time, pages
    kept for an hour in a cache of 60 kB; and a game with a map."""
    import shutil
    tmp = tmp_path_factory.mktemp("web-attacks")
    if _pg_databases is None:
        shutil.copyfile(_head_template, tmp / "judge.db")
        url = f"sqlite:///{tmp / 'judge.db'}"
    else:
        url = _pg_databases.create()
        _pg_databases.refill(url, _head_template)
    port, web_port = free_port(), free_port()
    env = judge_env(tmp, port, url, JUDGE_WEB_LISTEN=f"127.0.0.1:{web_port}",
                    JUDGE_WEB_HEADER_TIMEOUT="1", JUDGE_WEB_IDLE_TIMEOUT="2",
                    JUDGE_WEB_REQUEST_TIMEOUT="5", JUDGE_WEB_MAX_RENDERS="2",
                    JUDGE_WEB_KEEP_SECONDS="3600", JUDGE_WEB_CACHE_BYTES="60000")
    judge = RunningJudge(tmp, port, env).start()
    yield judge, web_port
    if judge.proc and judge.proc.poll() is None:
        judge.proc.send_signal(signal.SIGKILL)
        judge.proc.wait(10)
    if _pg_databases is not None:
        _pg_databases.release(url)


# --------------------------------------------------------------------------- connections

def test_slow_silent_and_idle_connections_are_closed(web_judge) -> None:
    judge, web_port = web_judge
    silent = socket.create_connection(("127.0.0.1", web_port))
    slow = socket.create_connection(("127.0.0.1", web_port))
    slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    idle = http.client.HTTPConnection("127.0.0.1", web_port, timeout=30)
    idle.request("GET", "/style.css")
    assert idle.getresponse().read()  # answered, kept alive, then silent
    # a header line every 0.2 s: the head never ends, and the connection must
    assert closed_by_server(slow, b"X-Slow: 1\r\n")
    assert closed_by_server(silent)
    assert idle.sock is not None and closed_by_server(idle.sock)
    for s in (silent, slow):
        s.close()
    idle.close()
    assert "judge version" in mailed(judge, "VERSION")


def answered(socks: list[socket.socket], expected: int) -> list[bytes]:
    """What the server said on each of ``socks`` that it answered: once ``expected`` have
    been answered, and none more in the half second after."""
    told: dict[socket.socket, bytes] = {}
    for _ in polls(30):
        waiting = [s for s in socks if s not in told]
        for s in select.select(waiting, [], [], 0.5 if len(told) >= expected else 0.05)[0]:
            told[s] = s.recv(4096)
        if len(told) >= expected and not select.select(
                [s for s in socks if s not in told], [], [], 0.5)[0]:
            break
    return list(told.values())


def start_limited(tmp: Path, db_url: str, files: int, **overrides: str) -> RunningJudge:
    """``judge serve`` started under ``ulimit -n files`` (the shell execs the judge)."""
    port = free_port()
    judge = RunningJudge(tmp, port, judge_env(tmp, port, db_url, **overrides))
    log = open(judge.log_path, "ab")
    judge.proc = subprocess.Popen(["sh", "-c", f'ulimit -n {files} && exec "$0" serve',
                                   JUDGE_EXE], env=judge.env, cwd=tmp, stdout=log, stderr=log)
    for _ in polls(30):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return judge
        except OSError:
            pass
    raise AssertionError(judge.log())


def test_web_connections_beyond_the_cap_get_503_and_smtp_goes_on(tmp_path: Path,
                                                                 migrated_db_url: str) -> None:
    """With 160 descriptors, 150 connections held open once left SMTP none ("Too many open
    files"); the web's cap is fitted to its own process's limit, and the rest are told 503."""
    web_port = free_port()
    judge = start_limited(tmp_path, migrated_db_url, 160,
                          JUDGE_WEB_LISTEN=f"127.0.0.1:{web_port}",
                          JUDGE_WEB_HEADER_TIMEOUT="60")
    try:
        judge.wait_log("web view serving")
        held = []
        for _ in range(150):
            held.append(socket.create_connection(("127.0.0.1", web_port), timeout=20))
        cap = 160 - 64 - 2 * 16 - 16  # judge.web.server: the reserve, accepts, 503s
        told = answered(held, 150 - cap)
        assert len(told) == 150 - cap, len(told)
        assert all(t.startswith(b"HTTP/1.1 503 Service Unavailable\r\n") for t in told), told[:3]
        assert all(t.endswith(b"503: the judge is busy; try again in a few seconds.\n")
                   for t in told)
        # while the web's connections are all taken, a mail is accepted and answered
        assert "judge version" in mailed(judge, "VERSION")
        for s in held:
            s.close()
        # and once they are gone the web answers again
        for _ in polls(20):
            if body(web_port, "/style.css")[0] == 200:
                break
    finally:
        judge.proc.send_signal(signal.SIGKILL)
        judge.proc.wait(10)
    log = judge.log()
    assert f"[web] max_connections lowered to {cap}" in log
    assert "Too many open files" not in log and "out of system resource" not in log


# --------------------------------------------------------------------------- pages and maps

def test_queries_and_cookies_made_up_to_miss_the_kept_page_find_it(web_judge) -> None:
    judge, web_port = web_judge
    assert "created" in mailed(judge, "CREATE kept1 mpw")
    first = body(web_port, "/games/kept1")
    assert first[0] == 200 and b"forming" in first[1]
    reply = mailed(judge, "SIGNON Mkept1 mpw\nSET NOGREY")
    assert "Error" not in reply, reply
    assert b"Press: private and public; grey." in first[1]
    for n in range(50):
        again = body(web_port, f"/games/KEPT1?b={n}&page={n}", Cookie=f"judge_pass_{n}=x; b={n}")
        assert again == first, n  # the kept page: not made again
    # what the page reads makes another page: here, another zone
    status, other = body(web_port, "/games/kept1?tz=Europe/Paris")
    assert status == 200 and b"Press: private and public." in other


def test_the_kept_pages_are_bounded_in_bytes(web_judge) -> None:
    """60 kB hold a few pages: the first one asked for is dropped as others come in, and
    made again (with what changed since) when it is asked for again."""
    judge, web_port = web_judge
    assert "created" in mailed(judge, "CREATE kept2 mpw")
    first = body(web_port, "/games/kept2")
    assert "Error" not in mailed(judge, "SIGNON Mkept2 mpw\nSET NOGREY")
    assert body(web_port, "/games/kept2") == first  # kept
    size = len(first[1])
    zones = sorted(z for z in zoneinfo.available_timezones() if z.startswith("America/"))
    for zone in zones[:2 + 60000 // size]:  # more pages than 60 kB hold
        assert body(web_port, f"/games/kept2?tz={zone}")[0] == 200
    status, now = body(web_port, "/games/kept2")
    assert status == 200 and b"Press: private and public." in now


def test_a_map_is_drawn_once_however_often_it_is_asked_for(web_judge) -> None:
    """Twenty games' maps asked for in turn, again and again, by many readers at once (the
    pictures are too large for the kept pages here): each is drawn once."""
    judge, web_port = web_judge
    names = [f"map{i:02d}" for i in range(20)]
    for n, chunk in enumerate((names[:8], names[8:16], names[16:])):
        reply = mailed(judge, "\n".join(f"CREATE {g} mpw" for g in chunk),
                       sender=f"gm{n}@example.org")
        assert reply.count("created") == len(chunk), reply
    paths = [f"/games/{g}/map.png" for g in names] * 3 + \
            [f"/games/{g.upper()}/map.png?n={i}" for i, g in enumerate(names)]

    def fetch(path: str) -> int:
        for _ in polls(60):
            status, data = body(web_port, path)
            if status != 503:  # two drawings at a time here: the rest are told to come back
                assert data.startswith(b"\x89PNG"), (path, status)
                return status
        raise AssertionError(path)

    with ThreadPoolExecutor(6) as pool:
        assert set(pool.map(fetch, paths)) == {200}
    drawn = re.findall(r"drew the map of (map\d\d) at", judge.log())
    assert sorted(drawn) == names


def test_answers_beyond_the_bound_are_told_503_and_mail_goes_on(web_judge) -> None:
    """Two answers may be made at once here: ten distinct maps asked for at once (each a
    tenth of a second of drawing) find the two places taken."""
    judge, web_port = web_judge
    names = [f"busy{i}" for i in range(10)]
    assert mailed(judge, "\n".join(f"CREATE {g} mpw" for g in names),
                  sender="gm9@example.org").count("created") == 10
    start = threading.Barrier(10)

    def fetch(game: str) -> tuple[int, str | None]:
        start.wait()
        r = get(web_port, f"/games/{game}/map.png")
        return r.status, r.getheader("Retry-After")

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(fetch, names))
    assert (200, None) in answers and (503, "5") in answers, answers
    assert {a for a in answers} <= {(200, None), (503, "5")}
    assert "judge version" in mailed(judge, "VERSION")
    # asked for again one at a time, each is drawn
    assert {get(web_port, f"/games/{g}/map.png").status for g in names} == {200}


def test_a_games_press_is_paged(web_judge) -> None:
    """A game with 120 broadcasts (written straight into the store: by mail, one mail may
    cause only so many copies) shows 50 at a time, the newest by default."""
    import json
    judge, web_port = web_judge
    assert "created" in mailed(judge, "CREATE talky mpw")
    [(game_id,)] = judge.sql("SELECT id FROM games WHERE name_key = 'talky'")
    for n in range(1, 121):
        judge.sql("INSERT INTO press (game_id, phase, sender, recipients, broadcast, grey, "
                  "body, sent_at) VALUES (:g, 'S1901M', 'FRANCE', '', :b, :grey, :body, "
                  "'2026-01-01 00:00:00+00:00')", g=game_id, b=True, grey=n % 7 == 0,
                  body=f"Message number {n}.")
    judge.sql("INSERT INTO press (game_id, phase, sender, recipients, broadcast, grey, body, "
              "sent_at) VALUES (:g, 'S1901M', 'FRANCE', 'ENGLAND', :b, :grey, 'Private!', "
              "'2026-01-01 00:00:00+00:00')", g=game_id, b=False, grey=False)
    text = body(web_port, "/games/talky")[1].decode()
    shown = [int(n) for n in re.findall(r"Message number (\d+)\.", text)]
    assert shown == list(range(101, 121))  # the last page: the newest, oldest first
    assert "120 messages, page 3 of 3" in text and "Private!" not in text
    assert 'href="/games/talky?press=2">earlier press</a>' in text
    assert "from someone (grey press) to everyone" in text
    second = body(web_port, "/games/talky?press=2&tz=UTC")[1].decode()
    assert [int(n) for n in re.findall(r"Message number (\d+)\.", second)] == \
        list(range(51, 101))
    api = json.loads(body(web_port, "/api/v1/games/talky")[1])
    assert [p["body"] for p in api["press"]] == [f"Message number {n}." for n in
                                                 range(101, 121)]
    assert (api["press_page"], api["press_pages"], api["press_total"]) == (3, 3, 120)
    first = json.loads(body(web_port, "/api/v1/games/talky?press=1")[1])
    assert first["press"][0]["body"] == "Message number 1." and len(first["press"]) == 50
    assert first["press"][6]["sender"] == "someone (grey press)"


# --------------------------------------------------------------------------- privacy guesses

def guess_all_at_once(web_port: int, game: str, clients: list[str], password: str
                      ) -> list[int]:
    start = threading.Barrier(len(clients))

    def guess(client: str) -> int:
        start.wait()
        return post(web_port, f"/games/{game}/pass", {"password": password},
                    X_Real_IP=client)[0]

    with ThreadPoolExecutor(len(clients)) as pool:
        return list(pool.map(guess, clients))


def test_wrong_privacy_passwords_guessed_at_once_never_pass_the_limits(judge_factory) -> None:
    """40 wrong guesses at once from one client once had 10 checked against a limit of 5, and
    the game-wide limit of 50 let 55 through: each guess is now counted before it is checked,
    on SQLite and PostgreSQL alike, and the mail's guesses count with the web's."""
    from judge.service.access.privacy import PER_GAME, PER_SENDER
    web_port = free_port()
    judge = judge_factory(JUDGE_WEB_LISTEN=f"127.0.0.1:{web_port}", JUDGE_WEB_MAX_RENDERS="100")
    assert "created" in mailed(judge, "CREATE secret1 mpw PRIVACY hush")
    answers = guess_all_at_once(web_port, "secret1", ["192.0.2.1"] * 40, "guess")
    assert answers.count(403) == PER_SENDER and answers.count(429) == 40 - PER_SENDER, answers
    # that client's right password is not even checked now
    assert post(web_port, "/games/secret1/pass", {"password": "hush"},
                X_Real_IP="192.0.2.1")[0] == 429
    # another client's right password is, and takes no guess away
    assert post(web_port, "/games/secret1/pass", {"password": "hush"},
                X_Real_IP="192.0.2.2")[0] == 303
    # from everybody: 55 clients at once, after the 5 above, and two guesses by mail
    assert "wrong privacy password for secret1" in mailed(judge, "LIST secret1 PRIVACY nope",
                                               sender="s1@example.org")
    clients = [f"198.51.100.{n}" for n in range(1, 56)]
    answers = guess_all_at_once(web_port, "secret1", clients, "guess")
    assert answers.count(403) == PER_GAME - PER_SENDER - 1, answers
    assert answers.count(429) == 55 - (PER_GAME - PER_SENDER - 1)
    # and by mail, the game's guesses are spent too: the right password is not checked
    reply = mailed(judge, "LIST secret1 PRIVACY hush", sender="s2@example.org")
    assert "too many wrong privacy passwords for secret1 today" in reply, reply
