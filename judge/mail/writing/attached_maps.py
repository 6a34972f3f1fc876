"""Map pictures in mail: which picture a mail carries, and attaching it when it is sent.

A mail that should carry a map keeps, in its outbox row, the *map documents* to draw
(:mod:`judge.pictures.document`): facts fixed when the mail was written (the board, the orders
and their results), never a reference to a game that may have moved on.  The sender draws
them just before sending (:func:`with_pictures`) -- outside the transaction that processed
the phase -- and a document drawn once serves every copy of the mail.

A role that chose ``SET MAP OFF`` gets its copies without the picture.
"""

from __future__ import annotations

import json
import logging
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.core import adjudicate
from judge.pictures.document import results_by_power
from judge.service.processing import snapshots
from judge.service.positions import load_position
from judge.store.models import Game, PhaseSnapshot, Seat

log = logging.getLogger("judge.pictures")

# a mail carries at most this many pictures (MAP lines beyond it are refused)
MAX_PER_MAIL = 3


def _formal(variant_state: str | None) -> dict[str, Any] | None:
    if not variant_state:
        return None
    state = json.loads(variant_state).get("formal")
    if not state:
        return None
    return {"spheres": state.get("spheres", {}), "wars": state.get("wars", []),
            "points": state.get("vp", {})}


def _board(text: str) -> dict[str, Any]:
    board = json.loads(text)
    return {k: board[k] for k in ("phase", "units", "centers", "dislodged") if k in board}


def phase_document(game: Game, snap: PhaseSnapshot) -> dict[str, Any]:
    """The picture of a played phase: the board before it, its orders and what became of
    them, the units it dislodged, the centres after it."""
    doc: dict[str, Any] = {"variant": game.variant, **_board(snap.position_before),
                           "game": game.name}
    facts = json.loads(snap.results)
    after = json.loads(snap.position_after)
    results = facts.get("order_results")
    if results is None:  # kept before pictures existed: the plain adjudication says it
        before = load_position(game.variant, snap.position_before)
        orders = {p: list(o.values()) for p, o in json.loads(snap.orders).items()}
        results = results_by_power(adjudicate(before, orders).results)
    doc["outcome"] = {"results": results, "centers": after.get("centers", {}),
                      "dislodged": after.get("dislodged", {})
                      if after.get("phase", "").endswith("R") else {}}
    formal = _formal(snap.variant_after)
    if formal is not None:
        doc["formal"] = formal
    return doc


def board_document(game: Game, orders: dict[str, list[str]] | None = None,
                   note: str = "") -> dict[str, Any]:
    """The picture of the board as it stands, with ``orders`` given so far if any."""
    doc: dict[str, Any] = {"variant": game.variant, **_board(game.position), "game": game.name}
    if orders:
        doc["orders"] = orders
    if note:
        doc["note"] = note
    formal = _formal(game.variant_state)
    if formal is not None:
        doc["formal"] = formal
    return doc


def played_snapshot(session: Session, game: Game, phase: str) -> PhaseSnapshot | None:
    found = [s for s in snapshots(session, game) if s.phase == phase]
    return found[-1] if found else None


def attachment_text(docs: list[dict[str, Any]]) -> str | None:
    """What an outbox row keeps of the pictures it carries (None: no picture)."""
    if not docs:
        return None
    return json.dumps({"maps": [{"name": _file_name(d), "document": d} for d in docs]},
                      sort_keys=True)


def _file_name(doc: dict[str, Any]) -> str:
    safe = "".join(c for c in str(doc.get("game", "")) if c.isalnum() or c in "-_") or "map"
    return f"{safe}-{doc.get('phase', 'board')}.png"


def results_attachment(session: Session, game_name: str | None, phase: str) -> str | None:
    """The picture a results mail of ``phase`` carries, from the phase's snapshot."""
    if not game_name:
        return None
    game = session.scalars(select(Game).where(Game.name_key == game_name.lower())).first()
    if game is None:
        return None
    snap = played_snapshot(session, game, phase)
    return attachment_text([phase_document(game, snap)]) if snap is not None else None


def pictures_off(session: Session, game_name: str | None) -> set[str]:
    """The addresses of a game's roles that asked for no pictures (SET MAP OFF)."""
    if not game_name:
        return set()
    rows = session.execute(
        select(Seat.address).join(Game, Game.id == Seat.game_id)
        .where(Game.name_key == game_name.lower(), Seat.map_pictures.is_(False)))
    return {address for (address,) in rows}


def with_pictures(raw: bytes, attachment: str) -> bytes:
    """The queued mail ``raw`` with its pictures drawn and attached after the text.

    The text stays the first part; each picture follows as an inline ``image/png`` part.
    If a picture cannot be drawn the mail goes without it: its text says everything.
    """
    try:
        items = json.loads(attachment).get("maps", [])
        from judge.pictures import png_of_document
        pngs = [(item["name"], png_of_document(item["document"])) for item in items]
    except Exception:  # a picture must never hold a mail back
        log.exception("could not draw the pictures of a mail; it goes without them")
        return raw
    msg = message_from_bytes(raw, policy=policy.SMTP)
    assert isinstance(msg, EmailMessage)
    for name, png in pngs:
        msg.add_attachment(png, maintype="image", subtype="png", filename=name,
                           disposition="inline")
    for part in msg.iter_parts():
        del part["MIME-Version"]  # the message has it; a part needs none
    return msg.as_bytes(policy=policy.SMTP)
