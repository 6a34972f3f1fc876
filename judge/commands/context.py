"""What a command handler works with while one mail is executed, and what it leaves behind.

A long mail is executed in several transactions (judge.pipeline.stages): everything a later
transaction needs from the earlier ones -- the answers so far, who the mail has signed on as,
the work left for the end -- is plain data, saved with :meth:`Context.saved` and given back
with :meth:`Context.resume`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Callable

from sqlalchemy.orm import Session

from judge.commands.identity import Identity
from judge.basics.config import Config
from judge.mail.writing.mail_to_others import Outgoing
from judge.mail.reading.message import ReadMail
from judge.mail.writing.times import written
from judge.store.models import Seat



@dataclass
class Answer:
    """The reply's answer to one line of the mail."""

    line_no: int
    text: str
    response: str
    ok: bool = True
    # A note the judge adds after the lines (e.g. a power's full order set), not a line read.
    note: bool = False
    # The seat of the role it was given as (a note: the seat it is about), None before any
    # SIGNON: a role's registered address is copied only its own role's answers.
    seat: int | None = None


@dataclass
class Context:
    session: Session
    config: Config
    mail: ReadMail
    now: datetime
    render: Callable[..., str]
    answers: list[Answer] = field(default_factory=list)
    outgoing: list[Outgoing] = field(default_factory=list)
    # Who the mail has signed on as; set by SIGNON (or CREATE, for the master).
    identity: Identity | None = None
    # Set when an error must stop the rest of the mail (a failed SIGNON).
    halted: str | None = None
    # Registered addresses of the roles signed on: they get the reply too, each only the
    # answers given as the roles (seat ids) it is registered for (reply_seats).
    reply_also: list[str] = field(default_factory=list)
    reply_seats: dict[str, list[int]] = field(default_factory=dict)
    # Work to do once every line is executed, once per mail whatever asked for it: the order
    # summary of a power (``orders:<seat id>``), the copy of a power's orders the master
    # gave to its player (``copy:<seat id>``), the check whether a game's phase can be
    # processed (``ready:<game id>``), in the order asked (judge.commands.execute runs them).
    finishers: list[str] = field(default_factory=list)
    # Refusals decided before execution, by line (too many passwords in one mail).
    refusals: dict[int, str] = field(default_factory=dict)
    # Informational commands answered so far: what was asked → the line that answered it.
    seen: dict[str, int] = field(default_factory=dict)
    # Copies of mail this mail has caused to others (not the games' members), the addresses
    # it has made the judge write to that had never written to it, and the bytes of mail to
    # others its commands have caused (those that keep a game moving aside).
    mail_to_others: int = 0
    new_recipients: list[str] = field(default_factory=list)
    mail_bytes: int = 0
    # Addresses the judge did not write to: it has written to them once, never heard back.
    withheld: list[str] = field(default_factory=list)
    # map documents (judge.pictures.document) whose pictures the reply carries (MAP)
    pictures: list[dict[str, Any]] = field(default_factory=list)
    # seat id → the order keys this mail has stored for it so far (NO_CHECK keeps a unit's
    # different orders given in one mail; a later mail replaces them)
    order_keys: dict[int, set[str]] = field(default_factory=dict)

    def answer(self, line_no: int, text: str, response: str, ok: bool = True,
               sender_only: bool = False) -> None:
        """The answer to a line; ``sender_only``: not copied to the registered address of
        the role the mail signed on as (it is the sender's alone, a code mailed to it)."""
        seat = None if sender_only else getattr(self.identity, "seat_id", None)
        self.answers.append(Answer(line_no, text, response.rstrip("\n"), ok, seat=seat))

    def note(self, text: str, response: str, seat: int | None = None) -> None:
        self.answers.append(Answer(0, text, response.rstrip("\n"), True, note=True, seat=seat))

    def copy_to(self, address: str, seat_id: int) -> None:
        """``address``, registered for the role ``seat_id``, gets a copy of the reply: the
        answers given as that role (so that its player sees what was done in its name)."""
        if address not in self.reply_also:
            self.reply_also.append(address)
        seats = self.reply_seats.setdefault(address, [])
        if seat_id not in seats:
            seats.append(seat_id)

    def answers_for(self, address: str) -> list[Answer]:
        """What the copy of the reply to a role's registered address shows: the answers
        given as its roles, and the notes about none (a game's phase processed).  Nothing
        said to another role (a master's LIST, with every address) reaches it."""
        seats = set(self.reply_seats.get(address, ()))
        return [a for a in self.answers if a.seat in seats or (a.note and a.seat is None)]

    def finish_with(self, kind: str, ident: int) -> None:
        key = f"{kind}:{ident}"
        if key not in self.finishers:
            self.finishers.append(key)

    @property
    def signed_on(self) -> Identity:
        """Who this mail signed on as, for a command only a signed-on role may use (the
        executor checks the role before the command runs)."""
        if self.identity is None:
            raise AssertionError("a command for signed-on roles ran without a SIGNON")
        return self.identity

    @property
    def zone(self) -> str | None:
        """The zone the reply writes times in: that of the role signed on (SET ZONE)."""
        seat_id = self.identity.seat_id if self.identity is not None else None
        seat = self.session.get(Seat, seat_id) if seat_id else None
        return seat.zone if seat is not None else None

    def when(self, moment: datetime | None) -> str:
        """A moment as the reply writes it, in the reader's zone (judge.mail.writing.times)."""
        return written(moment, self.zone)

    @property
    def reply_size(self) -> int:
        return sum(len(a.text) + len(a.response) + 4 for a in self.answers)

    def template_vars(self) -> dict[str, Any]:
        from judge import __version__
        return {"judge_address": self.config.judge.address, "judge_name": self.config.judge.name,
                "version": __version__, "limits": self.config.limits,
                "replies_per_day": self.config.judge.replies_per_day, "zone": self.zone,
                "web_url": self.config.web_url}

    # ------------------------------------------------------------------ between transactions

    def saved(self) -> dict[str, Any]:
        """The plain-data state a later transaction resumes from."""
        identity = self.identity.saved() if self.identity is not None else None
        return dict(answers=[asdict(a) for a in self.answers], identity=identity,
                    halted=self.halted, reply_also=list(self.reply_also),
                    reply_seats={k: list(v) for k, v in self.reply_seats.items()},
                    finishers=list(self.finishers), seen=dict(self.seen),
                    mail_to_others=self.mail_to_others,
                    new_recipients=list(self.new_recipients), mail_bytes=self.mail_bytes,
                    withheld=list(self.withheld), pictures=list(self.pictures),
                    order_keys={str(k): sorted(v) for k, v in self.order_keys.items()})

    def resume(self, state: dict[str, Any]) -> None:
        self.answers = [Answer(**a) for a in state["answers"]]
        self.identity = (Identity.restored(state["identity"], self.session)
                         if state["identity"] else None)
        self.halted = state["halted"]
        self.reply_also = list(state["reply_also"])
        self.reply_seats = {k: list(v) for k, v in state.get("reply_seats", {}).items()}
        self.finishers = list(state["finishers"])
        self.seen = dict(state["seen"])
        self.mail_to_others = int(state["mail_to_others"])
        self.new_recipients = list(state["new_recipients"])
        self.mail_bytes = int(state.get("mail_bytes", 0))
        self.withheld = list(state["withheld"])
        self.pictures = list(state.get("pictures", []))
        self.order_keys = {int(k): set(v) for k, v in state.get("order_keys", {}).items()}
