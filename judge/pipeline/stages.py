"""What happens to one stored message, in a few short transactions.

1. Outside any write lock (:meth:`Pipeline._read`): read the mail, drop robots and mail whose
   sender is no usable address (each deliberately unanswered, the reason in the row's note),
   keep at most ``[limits] commands_per_mail`` lines, and do the slow password work
   (judge.commands.prepare).
2. The first write transaction decides the reply cap: mail that signs on with the right
   password from the role's own address is always executed and answered; any other mail
   counts against its sender's daily cap (higher for the master of a game in play).  Over the
   cap it gets one last notice, then silence.
3. The commands run in transactions of at most ``[limits] batch_seconds`` each; each commits
   the commands done, their mail, and the progress (``inbound.progress``), so a crash never
   executes a command twice and no mail holds the store for long.
4. The last transaction runs the finishers, queues the one reply that answers every line, and
   marks the message done.
"""

from __future__ import annotations

import json
import logging
import time
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from judge.basics.utc import utcnow
from judge.commands.context import Answer, Context
from judge.commands.execute import overflow_answer, run_finishers, run_items
from judge.commands.parse import Item, JudgeLine, mask_passwords, names_a_command
from judge.commands.prepare import Overflow, Preparation, plan, prepare
from judge.basics.config import Config
from judge.pipeline.ordered_handoff import DONE, NOT_YET, InOrder
from judge.basics.addresses import AddressError, checked_address
from judge.mail.writing.compose import Composer
from judge.mail.guards.dead_addresses import Returned, heard_again, read_returned, record_returned
from judge.mail.writing.game_mail import judge_date, outgoing_for, queue_outgoing
from judge.mail.sending.outbox import enqueue
from judge.mail.writing.attached_maps import attachment_text
from judge.mail.reading.message import ReadMail, read_message
from judge.mail.guards.recipients import heard_from, screen
from judge.mail.guards.reply_cap import Verdict, take_reply
from judge.mail.writing.subjects import bare_subject
from judge.pipeline.worker import mark_processed
from judge.service.faults import tell_masters
from judge.service.clock import game_clock as clock
from judge.service.games import games_named, variant_title
from judge.service.access.passwords import hashes_computed, precomputed
from judge.store import counters
from judge.store.db import Store
from judge.store.models import (Game, GameState, InboundMessage, InboundStatus, Seat, SeatKind,
                                SeatStatus)
from judge.store.turns import WriteTurns

log = logging.getLogger("judge.pipeline")

PLAYING = (GameState.FORMING, GameState.ACTIVE, GameState.PAUSED)
# Threads that read a batch of mail once it needs password hashes: one per core of the
# machines the judge is made for (two).
READERS = 2


def signed_on_game(ctx: Context) -> dict[str, Any] | None:
    """The game the mail signed on to (the last SIGNON's), as the reply's subject and header
    name it: name, variant, the phase it is at now and its deadline; None without one."""
    game_id = ctx.identity.game_id if ctx.identity is not None else None
    game = ctx.session.get(Game, game_id) if game_id else None
    if game is None:
        return None
    running = game.state == GameState.ACTIVE
    return dict(name=game.name, variant=variant_title(game), phase=game.phase,
                deadline=clock.deadline_of(game) if running else None)


@dataclass
class StoredMail:
    """What the pipeline reads of a stored message, and the two fields its stages write."""

    id: int
    raw: bytes = b""
    envelope_sender: str = ""
    recipients: str = ""  # the envelope's, comma-separated
    progress: str | None = None
    note: str | None = None


@dataclass
class MessageRun:
    """One message on its way through the pipeline."""

    inbound_id: int
    now: datetime
    mail: ReadMail | None = None
    items: list[Item] = field(default_factory=list)
    overflow: Overflow | None = None
    prep: Preparation | None = None
    # Set when the message is deliberately left unanswered: (outcome, note).
    stop: tuple[str, str] | None = None
    # A robot mail read as a bounce, or as mail to a return path (judge.mail.guards.dead_addresses).
    returned: Returned | None = None
    notes: list[str] = field(default_factory=list)


def games_of(context: Context | None) -> str:
    """The games a processed mail touched, for the log: ``-`` when none."""
    names: list[str] = []
    identity = context.identity if context else None
    if identity is not None and identity.game_name:
        names.append(identity.game_name)
    for out in (context.outgoing if context else []):
        if out.game and out.game not in names:
            names.append(out.game)
    return ",".join(names) or "-"


class _Finished(Exception):
    """Another worker finished the message first: what this one wrote is rolled back."""


# The statements run once a message or more, built once and run on the session's connection:
# building them, and the ORM's work around them (a session.get is five times the SELECT),
# cost more than running them.  The ORM's own state is flushed at every savepoint, so
# nothing it holds is missed.
_SEAT_TABLE = Seat.metadata.tables[Seat.__tablename__]
_GAME_TABLE = Game.metadata.tables[Game.__tablename__]
_SEATS, _GAMES = _SEAT_TABLE.c, _GAME_TABLE.c
_INBOUND_TABLE = InboundMessage.metadata.tables[InboundMessage.__tablename__]
_INBOUND = _INBOUND_TABLE.c
# Whether an address is the master of a game in play.
_MASTER_IN_PLAY = (select(_SEATS.id).join_from(_SEAT_TABLE, _GAME_TABLE, _GAMES.id == _SEATS.game_id)
                   .where(_SEATS.address == bindparam("address"), _SEATS.kind == SeatKind.MASTER,
                          _SEATS.status == SeatStatus.ACTIVE, _GAMES.state.in_(PLAYING)).limit(1))
# Claimed messages still new, to be read (the others were finished by another worker).
_NEW_MAIL = (select(_INBOUND.id, _INBOUND.raw, _INBOUND.envelope_sender, _INBOUND.recipients)
             .where(_INBOUND.id.in_(bindparam("ids", expanding=True)),
                    _INBOUND.status == InboundStatus.NEW))
# A message about to be written to, locked where the database can (PostgreSQL).
_LOCK_NEW = (select(_INBOUND.progress, _INBOUND.note)
             .where(_INBOUND.id == bindparam("inbound_id"), _INBOUND.status == InboundStatus.NEW)
             .with_for_update())
_GOES_ON = (update(_INBOUND_TABLE).where(_INBOUND.id == bindparam("inbound_id"))
            .values(progress=bindparam("progress"), note=bindparam("note")))


def stored_mail(session: Session, inbound_ids: list[int]) -> dict[int, StoredMail]:
    """The messages of ``inbound_ids`` that are still new, by id."""
    return {row.id: StoredMail(row.id, row.raw, row.envelope_sender, row.recipients)
            for row in session.connection().execute(_NEW_MAIL, dict(ids=inbound_ids))}


class Pipeline:
    """The worker's processor: ``process(store, inbound_id)`` runs the message's stages."""

    def __init__(self, config: Config, composer: Composer | None = None) -> None:
        self.config = config
        self.composer = composer or Composer(config)
        self._purged_at = 0.0
        self._helpers = ThreadPoolExecutor(READERS, thread_name_prefix="judge-read")

    # ------------------------------------------------------------------ the stages

    def process(self, store: Store, inbound_id: int) -> bool:
        """Process one claimed message; True when this call finished it."""
        run = MessageRun(inbound_id, utcnow())
        with store.reading() as session:
            row = stored_mail(session, [inbound_id]).get(inbound_id)
            if row is None:
                return False
            self._read(run, session, row)
        return self._finish(store, run)

    def _finish(self, store: Store, run: MessageRun) -> bool:
        """The write stages of a message that has been read, each in its own transaction."""
        while True:
            with store.transaction() as session:
                done = self._write_step(session, run)
                if done is None:
                    continue  # a batch committed; go on in a new transaction
                if not done:
                    session.rollback()
                return done

    def _write_step(self, session: Session, run: MessageRun) -> bool | None:
        """One write stage in the caller's transaction: True when it finished the message,
        None when the message goes on in another transaction, False when another worker
        finished it (the caller must roll back what this wrote)."""
        found = session.connection().execute(_LOCK_NEW, dict(inbound_id=run.inbound_id)).first()
        if found is None:
            return False  # someone else finished it
        row = StoredMail(run.inbound_id, progress=found.progress, note=found.note)
        outcome = self._step(run, session, row)
        if outcome is None:
            session.connection().execute(_GOES_ON, dict(inbound_id=row.id, progress=row.progress,
                                                        note=row.note))
            return None
        # Conditional on still being new: with two workers only one commit can win.
        return mark_processed(session, run.inbound_id, outcome, row.note)

    def process_batch(self, store: Store, inbound_ids: list[int], seconds: float,
                      turns: WriteTurns | None = None) -> tuple[int, list[tuple[int, Exception]]]:
        """Process claimed messages, many to a write transaction: one commit (one disk flush)
        for all the messages finished within ``seconds``, so the write lock is held at most
        about that long at a time.  Each message's stages run in a savepoint of their own: one
        that fails is rolled back alone, and returned with its error for the worker to record.
        Returns how many messages this call finished, and the failures.  With ``turns``, a
        transaction also ends early when intake waits for the write lock, and the next one
        lets it commit first (judge.store.turns).

        The messages are written in arrival order, each as soon as it has been read: while
        helper threads still compute the password hashes of later ones (:meth:`_read_all`),
        this thread writes those already read, so both cores work.  A transaction is only
        opened, and the write lock taken, once a message is ready for it; when the next one is
        not, the transaction ends rather than hold the lock while it waits.

        Each message is still done exactly once: its effects, its mail and its ``done`` mark
        commit together.  A message that needs more than one transaction (``[limits]
        batch_seconds``) ends the shared transaction and goes on alone."""
        reads = self._read_all(store, inbound_ids)
        failures: list[tuple[int, Exception]] = []
        taken = iter(inbound_ids)

        def next_run(block: bool) -> MessageRun | object:
            """The next message read, in order; NOT_YET (block=False) or DONE."""
            while True:
                got = reads.take(block)
                if got is NOT_YET or got is DONE:
                    return got
                inbound_id = next(taken)
                outcome = got[1] if isinstance(got, tuple) else got  # or NotRead
                if isinstance(outcome, MessageRun):
                    return outcome
                if isinstance(outcome, Exception):
                    failures.append((inbound_id, outcome))
                # None: another worker finished it before it was read

        finished = 0
        run = next_run(block=True)
        while isinstance(run, MessageRun):
            goes_on: MessageRun | None = None
            if turns is not None:
                turns.wait_turn()
            until = time.monotonic() + seconds
            with store.transaction() as session:
                while isinstance(run, MessageRun):
                    current, run = run, NOT_YET
                    try:
                        with session.begin_nested():
                            done = self._write_step(session, current)
                            if done is False:
                                raise _Finished()
                    except _Finished:
                        done = False  # another worker's: rolled back
                    except Exception as exc:
                        failures.append((current.inbound_id, exc))
                        done = False
                    if done is None:
                        goes_on = current
                        break
                    finished += bool(done)
                    if time.monotonic() >= until or (turns and turns.asked_for()):
                        break
                    run = next_run(block=False)
            if goes_on is not None:
                try:
                    finished += self._finish(store, goes_on)
                except Exception as exc:
                    failures.append((goes_on.inbound_id, exc))
            if not isinstance(run, MessageRun) and run is not DONE:
                run = next_run(block=True)  # outside any transaction
        return finished, failures

    def _read_all(self, store: Store, inbound_ids: list[int]
                  ) -> InOrder[tuple[int, MessageRun | Exception | None]]:
        """Start reading and preparing claimed messages (the slow password work: no write
        lock held): slot ``i`` gets ``(id, outcome)`` for ``inbound_ids[i]``, the outcome a
        run, the exception that stopped its reading, or None when it is no longer new.

        This thread reads until a message needs a password hash (a scrypt of tens of
        milliseconds, computed without the interpreter's lock), which is when it returns,
        handing the rest of the batch to two helper threads with sessions of their own, taking
        messages from the same list: two hashes then run at once, one on each core, while the
        caller writes what is read.  For mail of players signed on minutes ago (no hash) this
        thread reads the whole batch before it returns: helpers would only take turns with it at
        the interpreter."""
        with store.reading() as session:
            stored = stored_mail(session, inbound_ids)
        waiting = iter(enumerate(inbound_ids))
        taking = threading.Lock()
        reads: InOrder[tuple[int, MessageRun | Exception | None]] = InOrder(len(inbound_ids))

        def take() -> tuple[int, int] | None:
            with taking:
                return next(waiting, None)

        def read_on(session: Session, first: bool) -> bool:
            """Read messages until none is left; True when the first reader hands over."""
            while (item := take()) is not None:
                index, inbound_id = item
                hashed = hashes_computed()
                run = MessageRun(inbound_id, utcnow())
                try:
                    row = stored.get(inbound_id)
                    if row is None:
                        reads.put(index, (inbound_id, None))
                        continue
                    self._read(run, session, row)
                    reads.put(index, (inbound_id, run))
                except Exception as exc:
                    reads.put(index, (inbound_id, exc))
                # More than the counting call itself: this message needed a hash.
                if first and hashes_computed() - hashed > 1:
                    return True
            return False

        def helper() -> None:
            try:
                with store.reading() as session:
                    read_on(session, False)
            except Exception:
                log.exception("a reader of a batch stopped")
            finally:
                reads.reader_ended()

        reads.reader_started()
        try:
            with store.reading() as session:
                handed_over = read_on(session, True)
            if handed_over:
                for _ in range(READERS):
                    reads.reader_started()
                    self._helpers.submit(helper)
        finally:
            reads.reader_ended()
        return reads

    def _read_mail(self, raw: bytes, envelope_sender: str) -> ReadMail:
        """The stored message read, its subject with any password the judge can recognise
        there masked: the subject is never read for commands, but it is written again (the
        reply's subject, the outbox's, the log, the notice of a mail set aside)."""
        mail = read_message(raw, envelope_sender=envelope_sender,
                            judge_address=self.config.judge.address,
                            limits=self.config.limits)
        return replace(mail, subject=mask_passwords(mail.subject))

    def _read(self, run: MessageRun, session: Session, row: StoredMail) -> None:
        mail = self._read_mail(row.raw, row.envelope_sender)
        run.notes.extend(mail.problems)
        # At debug: every mail gets its line at info when it ends (done, ignored, or failed
        # with its traceback), which names the message and the sender as well.
        log.debug("inbound %s: message %s from %s", row.id, mail.message_id, mail.sender)
        # None of an unreadable mail is read as commands (its lines are empty): it is answered
        # so, unless it is a robot's, or cannot be told from one, or has no address to answer.
        not_read = (f"could not be read: {self._unreadable_reason(mail)}; "
                    if mail.unreadable is not None else "")
        if not mail.robot_checked:
            run.stop = ("ignored", f"{not_read}not answered: its headers could not be read, so"
                                   " it could not be told from a robot's")
            run.mail = mail
            return
        if mail.robot_reason:
            run.stop = ("ignored", f"{not_read}robot mail, not answered: {mail.robot_reason}")
            run.mail = mail
            run.returned = read_returned(row.raw, row.recipients, self.config)
            return
        try:
            mail = replace(mail, sender=checked_address(mail.sender))
        except AddressError as exc:
            run.stop = ("ignored", f"{not_read}no usable address to answer ({mail.sender!r}: "
                                   f"{exc}); not executed, not answered")
            run.mail = mail
            return
        if not_read:
            run.notes.append(not_read + "nothing in it executed")
        run.mail = mail
        run.items, run.overflow = plan(mail.lines, self.config.limits.commands_per_mail)
        run.prep = prepare(session, self.config, mail, run.items, run.now)

    def _step(self, run: MessageRun, session: Session, row: StoredMail) -> str | None:
        """One write transaction: the outcome when the message is finished, None when it
        goes on in another."""
        mail = run.mail
        assert mail is not None
        if run.stop is not None:
            outcome, note = run.stop
            if run.returned is not None:
                note += "; " + record_returned(session, self.config, self.composer, run.returned,
                                               run.inbound_id, run.now)
            row.note = note
            log.info("inbound %s %s: message %s from %s: %s", row.id, outcome, mail.message_id,
                     mail.sender or row.envelope_sender, note)
            return outcome
        progress: dict[str, Any] = json.loads(row.progress) if row.progress else {}
        if not progress:
            self._forget_old_counts(session)
            heard_from(session, mail.sender, run.now)
            heard_again(session, mail.sender)  # its mail arrives again, if it had bounced
            stopped = self._cap(run, session, row, progress)
            if stopped is not None:
                return stopped
        assert run.prep is not None
        ctx = Context(session=session, config=self.config, mail=mail, now=run.now,
                      render=self.composer.render, refusals=run.prep.refusals)
        if "context" in progress:
            ctx.resume(progress["context"])
        with precomputed(run.prep.passwords):
            until = time.monotonic() + self.config.limits.batch_seconds
            done = run_items(ctx, run.items, int(progress.get("next", 0)), until)
            if done < len(run.items):
                self._queue(ctx, session, run)
                row.progress = json.dumps(dict(progress, next=done, context=ctx.saved()))
                return None
            if run.overflow is not None:
                overflow_answer(ctx, run.overflow)
            run_finishers(ctx)
        self._queue(ctx, session, run)
        self._reply(ctx, session, run)
        if ctx.withheld:
            run.notes.append("not written to (never wrote to the judge, told once already): "
                             + ", ".join(ctx.withheld))
        row.note = "; ".join(run.notes) or None
        row.progress = None
        answers = [a for a in ctx.answers if not a.note]
        log.info("inbound %s done: message %s from %s, game %s: %d command(s), %d refused",
                 row.id, mail.message_id, mail.sender, games_of(ctx), len(answers),
                 sum(1 for a in answers if not a.ok))
        return "done"

    # ------------------------------------------------------------------ the reply cap

    def _cap(self, run: MessageRun, session: Session, row: StoredMail,
             progress: dict[str, Any]) -> str | None:
        """Decide whether the mail is executed; the outcome when it is not."""
        mail = run.mail
        assert mail is not None and run.prep is not None
        if run.prep.authenticated:
            progress["verdict"] = "reply"
            return None
        verdict = take_reply(session, mail.sender, run.now, self.config.judge.replies_per_day,
                             raised=lambda: self._cap_for(session, mail.sender))
        if verdict is Verdict.REPLY:
            progress["verdict"] = "reply"
            return None
        limit = self._cap_for(session, mail.sender)
        if verdict is Verdict.SILENCE:
            row.note = (f"reply cap of {limit} a day reached for {mail.sender}; not executed,"
                        " not answered")
            log.info("inbound %s ignored: message %s from %s: %s", row.id, mail.message_id,
                     mail.sender, row.note)
            return "ignored"
        body = self.composer.render("cap_notice.txt", **self._reply_vars(mail, limit))
        self._enqueue_reply(session, run, [mail.sender], body)
        run.notes.append("reply cap reached: last notice sent, mail not executed")
        row.note = "; ".join(run.notes)
        return "done"

    def _cap_for(self, session: Session, address: str) -> int:
        """The master of a game in play may need more replies (LIST every phase)."""
        master = session.connection().execute(_MASTER_IN_PLAY, dict(address=address)).first()
        judge = self.config.judge
        return max(judge.master_replies_per_day, judge.replies_per_day) if master \
            else judge.replies_per_day

    # ------------------------------------------------------------------ mail out

    def _reply_vars(self, mail: ReadMail, limit: int) -> dict[str, Any]:
        return dict(judge_name=self.config.judge.name, judge_address=self.config.judge.address,
                    mail=mail, limit=limit)

    def _queue(self, ctx: Context, session: Session, run: MessageRun) -> None:
        """Queue the mail the commands so far caused, in this transaction."""
        queue_outgoing(session, self.composer, self.config, ctx.outgoing, run.now,
                       inbound_id=run.inbound_id, withheld=ctx.withheld, mail=run.mail,
                       limit=self.config.judge.replies_per_day)
        ctx.outgoing.clear()

    def _reply(self, ctx: Context, session: Session, run: MessageRun) -> None:
        mail = run.mail
        assert mail is not None
        game = signed_on_game(ctx)
        # The sender was marked heard from in this mail's first transaction (heard_from).
        to = screen(session, [mail.sender, *ctx.reply_also], run.now, ctx.withheld,
                    heard={mail.sender})
        for recipient in to:
            # the sender reads every answer; a role's registered address, those given as it
            answers = ctx.answers if recipient == mail.sender else ctx.answers_for(recipient)
            whole = len(answers) == len(ctx.answers)
            refused = any(not a.ok for a in answers if not a.note) or mail.unreadable is not None
            # MAP pictures are drawn when the reply is sent (judge.mail.writing.attached_maps)
            self._enqueue_reply(session, run, [recipient], self._reply_body(run, answers, game),
                                attachment_text(ctx.pictures) if ctx.pictures and whole
                                else None, game=game, error=refused)

    def _unreadable_reason(self, mail: ReadMail) -> str:
        """Why ``mail`` could not be read, in the words of templates/unreadable_reasons.txt."""
        why = mail.unreadable
        assert why is not None
        reasons = self.composer.env.get_template("unreadable_reasons.txt").module
        return " ".join(str(getattr(reasons, why.code)(**why.facts)).split())

    def _reply_body(self, run: MessageRun, answers: list[Answer], game: dict[str, Any] | None) -> str:
        mail = run.mail
        assert mail is not None
        if mail.unreadable is not None:
            return self.composer.render("unreadable.txt", why=mail.unreadable,
                                        **self._reply_vars(mail, 0))
        # a mail with no command in its body whose subject begins like one: say where
        # commands go
        commands_in_subject = not answers and names_a_command(
            bare_subject(self.config.judge.name, mail.subject))
        # the judge's own lines pasted back: never executed, but the writer is told
        pasted = [item for item in run.items if isinstance(item, JudgeLine)]
        body = self.composer.render("reply.txt", answers=answers, problems=mail.problems,
                                    game=game, judge_date=judge_date, quoted=mail.quoted,
                                    commands_in_subject=commands_in_subject,
                                    original=mail.original, pasted=pasted,
                                    **self._reply_vars(mail, self.config.judge.replies_per_day))
        limit = self.config.limits.reply_bytes
        if len(body.encode("utf-8")) > limit:
            cut = body.encode("utf-8")[:limit].decode("utf-8", "ignore").rpartition("\n")[0]
            body = cut + "\n" + self.composer.render("reply_cut.txt", limit=limit)
            if f"reply cut at {limit} bytes" not in run.notes:
                run.notes.append(f"reply cut at {limit} bytes")
        return body

    def _enqueue_reply(self, session: Session, run: MessageRun, to: list[str], body: str,
                       attachment: str | None = None, game: dict[str, Any] | None = None,
                       error: bool = False) -> None:
        mail = run.mail
        assert mail is not None
        # One copy each, as for every other mail: the sender and a role's registered address
        # may be different players' (a master signed on as a power), and neither's address is
        # the other's business.
        for recipient in to:
            reply = self.composer.reply_mail(to=recipient, original_subject=mail.subject,
                                             original_id=mail.message_id,
                                             references=mail.references, body=body, now=run.now,
                                             game=game["name"] if game else None,
                                             phase=game["phase"] if game else None, error=error)
            enqueue(session, reply, inbound_id=run.inbound_id, attachment=attachment)

    # ------------------------------------------------------------------ mail set aside

    def set_aside(self, session: Session, row: InboundMessage) -> None:
        """The mail failed every attempt and is set aside: say so rather than stay silent.

        The sender gets a reply (unless a robot sent it, its address is unusable, or its
        reply cap is reached) saying nothing in the mail was done and that it is kept; the
        masters of the games it names hear of it (judge.service.faults, at most once a day per
        game).  The keeper can run it again with ``judge inbound retry`` once it is fixed.
        """
        now = utcnow()
        if not row.raw:
            return
        try:
            mail = self._read_mail(row.raw, row.envelope_sender)
            sender = checked_address(mail.sender) if mail.robot_checked and \
                not mail.robot_reason else None
        except AddressError:
            sender = None
        events = []
        for game in games_named(session, mail.lines):
            events += tell_masters(session, game, now, f"a mail from {mail.sender or '?'} "
                                   f"about {game.name}", row.note or "unknown failure")
        queue_outgoing(session, self.composer, self.config,
                       outgoing_for(events, self.config.judge.name), now, inbound_id=row.id)
        if sender is None:
            return
        if take_reply(session, sender, now, self._cap_for(session, sender)) is not Verdict.REPLY:
            return
        body = self.composer.render("set_aside.txt", **self._reply_vars(mail, 0))
        run = MessageRun(row.id, now, mail=replace(mail, sender=sender))
        self._enqueue_reply(session, run, screen(session, [sender], now, []), body)

    def _forget_old_counts(self, session: Session) -> None:
        """Now and then (hourly), drop the daily counts of days gone."""
        if time.monotonic() - self._purged_at < 3600:
            return
        self._purged_at = time.monotonic()
        counters.forget_old(session, utcnow())
