"""The SQL store's tables as SQLAlchemy 2.0 typed models.

Each change here needs an Alembic revision in ``migrations/versions``; a test checks that the
models and the migrations agree.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (BigInteger, DateTime, Index, Integer, LargeBinary, String, Text,
                        UniqueConstraint)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


# SQLite's rowid needs INTEGER; PostgreSQL gets a 64-bit key.
_Id = BigInteger().with_variant(Integer(), "sqlite")


class InboundMessage(Base):
    """A received message, stored before intake answers 250; processed exactly once."""

    __tablename__ = "inbound"
    __table_args__ = (
        # The same Message-ID delivered twice to the same recipient is one message.
        UniqueConstraint("message_id", "recipient", name="uq_inbound_message_recipient"),
        Index("ix_inbound_status", "status", "id"),
    )

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    message_id: Mapped[str | None] = mapped_column(String(998))
    recipient: Mapped[str] = mapped_column(String(320))
    envelope_sender: Mapped[str] = mapped_column(String(320), default="")
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # new → done | ignored (robot, reply cap) | failed (set aside after max attempts)
    status: Mapped[str] = mapped_column(String(16), default="new")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    processed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    note: Mapped[str | None] = mapped_column(Text)


class OutboxMessage(Base):
    """A mail the judge will send, written in the transaction of the change that caused it."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(_Id, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    message_id: Mapped[str] = mapped_column(String(998))
    mail_from: Mapped[str] = mapped_column(String(320))
    recipients: Mapped[str] = mapped_column(Text)  # comma-separated addr-specs
    subject: Mapped[str] = mapped_column(Text, default="")
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    # pending → sent | failed (permanent, or out of attempts) | dropped (by the operator)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_error: Mapped[str | None] = mapped_column(Text)
    inbound_id: Mapped[int | None] = mapped_column(_Id)


class ReplyCount(Base):
    """How many replies one address has triggered on one (UTC) day: the reply cap."""

    __tablename__ = "reply_count"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)  # YYYY-MM-DD
    count: Mapped[int] = mapped_column(Integer, default=0)
