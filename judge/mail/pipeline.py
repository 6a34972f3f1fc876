"""What happens to one stored message, as an ordered list of small steps.

read → drop robots → reply cap → execute commands → compose the reply and other mail → outbox.
Each step may end the pipeline with an outcome (``done`` or ``ignored``) and a note saying why;
everything runs inside the worker's transaction, so a failure anywhere changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from judge.clock import utcnow
from judge.commands.context import Context
from judge.commands.execute import execute
from judge.config import Config
from judge.mail.compose import Composer
from judge.mail.game_mail import queue_outgoing
from judge.mail.outbox import enqueue
from judge.mail.reading import ReadMail, read_message
from judge.mail.replycap import Verdict, take_reply
from judge.store.models import InboundMessage

log = logging.getLogger("judge.pipeline")


@dataclass
class Run:
    session: Session
    row: InboundMessage
    mail: ReadMail | None = None
    context: Context | None = None
    verdict: Verdict = Verdict.REPLY
    notes: list[str] = field(default_factory=list)


def games_of(run: Run) -> str:
    """The games a processed mail touched, for the log: ``-`` when none."""
    names: list[str] = []
    identity = run.context.identity if run.context else None
    if identity is not None and getattr(identity, "game_name", None):
        names.append(identity.game_name)
    for out in (run.context.outgoing if run.context else []):
        if out.game and out.game not in names:
            names.append(out.game)
    return ",".join(names) or "-"


class Stop(Exception):
    def __init__(self, outcome: str, note: str) -> None:
        super().__init__(note)
        self.outcome, self.note = outcome, note


class Pipeline:
    def __init__(self, config: Config, composer: Composer | None = None) -> None:
        self.config = config
        self.composer = composer or Composer(config)
        self.steps = [self.read, self.drop_robots, self.cap_replies, self.run_commands,
                      self.send_replies]

    def __call__(self, session: Session, row: InboundMessage) -> str:
        run = Run(session, row)
        try:
            for step in self.steps:
                step(run)
        except Stop as stop:
            row.note = stop.note
            log.info("inbound %s %s: message %s from %s: %s", row.id, stop.outcome,
                     row.message_id, run.mail.sender if run.mail else row.envelope_sender,
                     stop.note)
            return stop.outcome
        row.note = "; ".join(run.notes) or None
        assert run.mail is not None
        answers = run.context.answers if run.context else []
        log.info("inbound %s done: message %s from %s, game %s: %d command(s), %d refused",
                 row.id, run.mail.message_id, run.mail.sender, games_of(run),
                 len(answers), sum(1 for a in answers if not a.ok))
        return "done"

    def read(self, run: Run) -> None:
        run.mail = read_message(run.row.raw, envelope_sender=run.row.envelope_sender,
                                judge_address=self.config.judge.address)
        run.notes.extend(run.mail.problems)
        log.info("inbound %s: message %s from %s", run.row.id, run.mail.message_id, run.mail.sender)

    def drop_robots(self, run: Run) -> None:
        assert run.mail is not None
        if run.mail.robot_reason:
            raise Stop("ignored", f"robot mail, not answered: {run.mail.robot_reason}")

    def cap_replies(self, run: Run) -> None:
        assert run.mail is not None
        run.verdict = take_reply(run.session, run.mail.sender, utcnow(),
                                 self.config.judge.replies_per_day)
        if run.verdict is Verdict.SILENCE:
            raise Stop("ignored", f"reply cap of {self.config.judge.replies_per_day} a day "
                                  f"reached for {run.mail.sender}; not executed, not answered")

    def run_commands(self, run: Run) -> None:
        assert run.mail is not None
        if run.verdict is Verdict.LAST_NOTICE:
            return  # over the cap: the mail is not executed, only the notice goes out
        run.context = execute(Context(session=run.session, config=self.config, mail=run.mail,
                                      now=utcnow(), render=self.composer.render))

    def send_replies(self, run: Run) -> None:
        mail, now = run.mail, utcnow()
        assert mail is not None
        variables = dict(judge_name=self.config.judge.name, judge_address=self.config.judge.address,
                         mail=mail, limit=self.config.judge.replies_per_day)
        if run.context is None:
            body = self.composer.render("cap_notice.txt", **variables)
            run.notes.append("reply cap reached: last notice sent, mail not executed")
        else:
            body = self.composer.render("reply.txt", answers=run.context.answers,
                                        problems=mail.problems, **variables)
        also = run.context.reply_also if run.context else []
        reply = self.composer.reply(to=[mail.sender, *also], original_subject=mail.subject,
                                    original_id=mail.message_id, references=mail.references,
                                    body=body, now=now)
        enqueue(run.session, reply, inbound_id=run.row.id)
        queue_outgoing(run.session, self.composer, self.config,
                       run.context.outgoing if run.context else [], now,
                       inbound_id=run.row.id, mail=mail, limit=self.config.judge.replies_per_day)
