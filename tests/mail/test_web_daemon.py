"""``judge serve`` answers HTTP on ``[web] listen`` from a process of its own beside SMTP
intake, and refuses, in one line, a web address it cannot listen on."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time

from conftest import JUDGE_EXE, free_port, judge_env, make_mail


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def test_the_daemon_serves_the_games_it_was_mailed(judge_factory) -> None:
    web_port = free_port()
    judge = judge_factory(JUDGE_WEB_LISTEN=f"127.0.0.1:{web_port}")
    judge.send(make_mail("CREATE webgame mpw", sender="gm@example.org"))
    judge.wait_replies(1)
    status, body = get(web_port, "/")
    assert status == 200 and b'<a href="/games/webgame">webgame</a>' in body
    status, body = get(web_port, "/api/v1/games/webgame")
    assert status == 200 and json.loads(body)["state"] == "forming"
    assert judge.stop() == 0
    # stopped: the web port is closed too
    try:
        socket.create_connection(("127.0.0.1", web_port), timeout=1).close()
        raise AssertionError("the web view still answers after the daemon stopped")
    except OSError:
        pass


def test_a_web_port_in_use_is_one_line(tmp_path, db_url) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = judge_env(tmp_path, free_port(), db_url, JUDGE_WEB_LISTEN=f"127.0.0.1:{port}")
        result = subprocess.run([JUDGE_EXE, "serve"], env=env, cwd=tmp_path,
                                capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        f"judge: cannot listen on 127.0.0.1:{port} ([web] listen): Address already in use")


def test_no_web_view_when_listen_is_empty(judge_factory) -> None:
    judge = judge_factory()  # the suite's default: JUDGE_WEB_LISTEN=""
    assert "web view on" not in judge.log()
    time.sleep(0.2)
    assert judge.stop() == 0


PROCESS_PROBE = """
import asyncio, sys
from types import SimpleNamespace
from judge.basics.config import load_config
from judge.daemon.intake_process import Daemon
from judge.daemon.web_process import WebProcess

class Started(Exception):
    pass

def start(self):
    raise Started(sorted(m for m in ("judge.web.app", "aiohttp", "jinja2") if m in sys.modules))

WebProcess.start = start
office = SimpleNamespace(wake=lambda: None, ask_lock=lambda: None, verbose=False)
try:
    asyncio.run(Daemon(load_config(None), office).run())
except Started as seen:
    print("the daemon has imported:", seen.args[0])
"""


def test_the_web_view_runs_in_a_process_of_its_own(tmp_path, migrated_db_url) -> None:
    """The daemon imports nothing of the web view (an import on its loop held up intake for
    ~0.2 s): it opens the web's socket and starts its process, which serves it."""
    env = judge_env(tmp_path, free_port(), migrated_db_url,
                    JUDGE_WEB_LISTEN=f"127.0.0.1:{free_port()}")
    result = subprocess.run([sys.executable, "-c", PROCESS_PROBE], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "the daemon has imported: []", result.stderr


def test_a_web_process_that_dies_is_started_again_and_mail_goes_on(judge_factory) -> None:
    """A crash of the web view's process (a picture that could not be drawn, say) takes
    nothing else down: mail is accepted and answered meanwhile, and the web comes back on the
    same port (connections made meanwhile wait in its queue)."""
    import os
    import re
    import signal

    from conftest import polls
    web_port = free_port()
    judge = judge_factory(JUDGE_WEB_LISTEN=f"127.0.0.1:{web_port}")
    judge.wait_log("web view serving")
    [pid] = re.findall(r"web view process started \(pid (\d+)\)", judge.log())
    os.kill(int(pid), signal.SIGKILL)
    judge.send(make_mail("VERSION", sender="after@example.org"))
    judge.wait_replies(1)
    assert get(web_port, "/")[0] == 200  # served by the process started again
    for _ in polls(20):
        if "the web view's process ended with exit code -9; starting it again" in judge.log():
            break
    assert len(re.findall(r"web view process started", judge.log())) == 2
    assert judge.stop() == 0
