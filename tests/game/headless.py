"""One headless Chromium for many pages: the browser tests' driver.

Starting Chromium costs more than a second of CPU; the browser tests load a dozen pages, and
each used to start a browser of its own (``--dump-dom`` or ``--screenshot``).  Here one browser
runs for a module and is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages, each ended by a NUL byte, written to the browser's fd 3 and read from its fd 4),
with the standard library only.  Each page is opened in a browser context of its own, which
shares no cache, cookies or storage with any other page: what a fresh profile gave before.

Only what the tests use: load a page at a window size and wait for its load event (images and
style sheets loaded), read its DOM, measure what it shows, take a picture of the window.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

TIMEOUT = 60


class BrowserError(RuntimeError):
    pass


def _high(fd: int) -> int:
    """``fd`` moved to a number of 10 or more (not inherited)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Chromium:
    def __init__(self, executable: str, scratch: Path) -> None:
        profile = tempfile.mkdtemp(prefix="profile-", dir=scratch)
        # The browser reads commands on its fd 3 and writes answers on its fd 4.  Our ends of
        # the pipes are moved to 10 and up first, so that bash, which gives them to the
        # browser as 3 and 4, can never overwrite one with the other.
        commands, self._to_browser = (_high(fd) for fd in os.pipe())
        self._from_browser, answers = (_high(fd) for fd in os.pipe())
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{commands} 4>&{answers}', executable,
             "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--hide-scrollbars", f"--user-data-dir={profile}", "--remote-debugging-pipe",
             "about:blank"],
            pass_fds=(commands, answers), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(commands)
        os.close(answers)
        self._buffer = b""
        self._next_id = 0

    # ----------------------------------------------------------------------- the protocol

    def _send(self, method: str, params: dict[str, Any] | None = None,
              session: str | None = None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _receive(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise BrowserError(f"Chromium went away (exit {self.process.poll()})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        """Send a command and wait for its answer (events meanwhile are dropped)."""
        wanted = self._send(method, params, session)
        while True:
            message = self._receive()
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})

    def _until_event(self, method: str, session: str) -> None:
        while True:
            message = self._receive()
            if message.get("method") == method and message.get("sessionId") == session:
                return

    # ----------------------------------------------------------------------- pages

    def open(self, url: str, width: int, height: int) -> "Page":
        """A tab in a context of its own, ``width`` × ``height`` CSS pixels, loaded."""
        context = self.call("Target.createBrowserContext")["browserContextId"]
        target = self.call("Target.createTarget", {"url": "about:blank",
                                                   "browserContextId": context})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session)
        self.call("Page.enable", session=session)
        self.call("Page.navigate", {"url": url}, session)
        self._until_event("Page.loadEventFired", session)
        return Page(self, context, session)

    def close(self) -> None:
        try:
            self._send("Browser.close")
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        finally:
            os.close(self._to_browser)
            os.close(self._from_browser)


class Page:
    def __init__(self, browser: Chromium, context: str, session: str) -> None:
        self.browser, self.context, self.session = browser, context, session

    def dom(self) -> str:
        """The document as the browser holds it once loaded (what ``--dump-dom`` printed)."""
        result = self.browser.call("Runtime.evaluate",
                                   {"expression": "document.documentElement.outerHTML",
                                    "returnByValue": True}, self.session)
        return str(result["result"]["value"])

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the loaded page (measuring what is shown:
        the page itself runs no script)."""
        result = self.browser.call("Runtime.evaluate", {"expression": expression,
                                                        "returnByValue": True}, self.session)
        return result["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        """A PNG of the window."""
        data = self.browser.call("Page.captureScreenshot", {"format": "png"},
                                 self.session)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        self.browser.call("Target.disposeBrowserContext", {"browserContextId": self.context})
