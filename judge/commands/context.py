"""What a command handler works with while one mail is executed, and what it leaves behind."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from sqlalchemy.orm import Session

from judge.config import Config
from judge.mail.reading import ReadMail


@dataclass
class Answer:
    """The reply's answer to one line of the mail."""

    line_no: int
    text: str
    response: str
    ok: bool = True
    # A note the judge adds after the lines (e.g. a power's full order set), not a line read.
    note: bool = False


@dataclass
class Outgoing:
    """A mail other than the reply (a broadcast, results, press), rendered after execution."""

    template: str
    to: list[str]
    subject: str
    variables: dict[str, Any] = field(default_factory=dict)
    game: str | None = None


@dataclass
class Context:
    session: Session
    config: Config
    mail: ReadMail
    now: datetime
    render: Callable[..., str]
    answers: list[Answer] = field(default_factory=list)
    outgoing: list[Outgoing] = field(default_factory=list)
    # Who the mail has signed on as; set by SIGNON (later issues).
    identity: Any = None
    # Set when an error must stop the rest of the mail (a failed SIGNON).
    halted: str | None = None
    # Registered addresses of the roles signed on: they get the reply too.
    reply_also: list[str] = field(default_factory=list)
    # Work to do once every line is executed, by key so it is done once per mail (the order
    # summary of a power, the check whether a phase can be processed), in the order added.
    finishers: dict[str, Callable[["Context"], None]] = field(default_factory=dict)

    def answer(self, line_no: int, text: str, response: str, ok: bool = True) -> None:
        self.answers.append(Answer(line_no, text, response.rstrip("\n"), ok))

    def note(self, text: str, response: str) -> None:
        self.answers.append(Answer(0, text, response.rstrip("\n"), True, note=True))

    def finish_with(self, key: str, work: Callable[["Context"], None]) -> None:
        self.finishers.setdefault(key, work)

    def template_vars(self) -> dict[str, Any]:
        from judge import __version__
        return {"judge_address": self.config.judge.address, "judge_name": self.config.judge.name,
                "version": __version__}
