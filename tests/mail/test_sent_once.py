"""Outbound delivery is at-least-once, with the window kept as small as the relay allows: the
judge records a mail as sent as soon as the relay has accepted it, before the QUIT.  A relay
that takes the mail and then never answers QUIT, and a SIGKILL then, cost no second copy."""

from __future__ import annotations

import asyncio
import collections
import signal
import time
from typing import Any, Iterator

import pytest
from aiosmtpd.controller import Controller

from conftest import free_port, make_mail


class SlowToSayGoodbye:
    """A relay that takes every mail at once and never answers QUIT."""

    def __init__(self) -> None:
        self.received: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append(envelope.original_content or b"")
        return "250 2.0.0 queued"

    async def handle_QUIT(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.Event().wait()  # until the client gives up and hangs up
        return "221 bye"

    def replies_to(self, msgid: str) -> int:
        return sum(1 for raw in self.received if f"In-Reply-To: {msgid}".encode() in raw)


@pytest.fixture
def relay() -> Iterator[tuple[SlowToSayGoodbye, int]]:
    handler, port = SlowToSayGoodbye(), free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    controller.stop()


def wait_for(what, timeout: float = 20) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.05)


def test_a_mail_the_relay_took_is_recorded_before_quit_and_not_sent_again(judge_factory, relay):
    handler, port = relay
    judge = judge_factory(JUDGE_OUTBOUND_TRANSPORT=f"smtp://127.0.0.1:{port}")
    judge.send(make_mail("VERSION", msgid="<first@example.org>"))
    wait_for(lambda: handler.replies_to("<first@example.org>") == 1)
    # Recorded while the relay still holds the QUIT.
    wait_for(lambda: judge.sql("SELECT status FROM outbox") == [("sent",)])
    judge.proc.send_signal(signal.SIGKILL)
    judge.proc.wait(10)

    judge.start()
    judge.send(make_mail("VERSION", msgid="<second@example.org>"))
    wait_for(lambda: handler.replies_to("<second@example.org>") == 1)
    # The second is recorded once the relay took it (a moment later: wait for the record).
    wait_for(lambda: judge.sql("SELECT count(*) FROM outbox WHERE status = 'pending'")
             == [(0,)])
    # Rows go out in order: had the first been waiting, it would have gone out again by now.
    counts = collections.Counter(s for (s,) in judge.sql("SELECT status FROM outbox"))
    assert counts == {"sent": 2}
    assert handler.replies_to("<first@example.org>") == 1
