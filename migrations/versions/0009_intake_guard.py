"""Received mail is stored once per message: a key made from a hash of the whole Message-ID
(``dedupe_key``, unique) replaces the (Message-ID, recipient) pair, and the row lists all the
judge addresses it was for (``recipients``).

Rows stored before keep their message: the first row of each Message-ID gets the hash key,
any other row (the same message for another judge address, or one without Message-ID) a key
of its own.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""
import hashlib
from typing import Iterator

from alembic import op
import sqlalchemy as sa

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_CHUNK = 1000


def _rows(conn: sa.Connection, columns: str) -> Iterator[sa.Row]:
    """Every inbound row's ``columns``, read by chunks of ids (the table may be large)."""
    last = 0
    while True:
        chunk = conn.execute(sa.text(f"SELECT id, {columns} FROM inbound WHERE id > :last "
                                     f"ORDER BY id LIMIT {_CHUNK}"), {"last": last}).all()
        if not chunk:
            return
        yield from chunk
        last = chunk[-1][0]


def upgrade() -> None:
    with op.batch_alter_table("inbound") as batch:
        batch.add_column(sa.Column("dedupe_key", sa.String(64), nullable=True))
        batch.alter_column("recipient", new_column_name="recipients",
                           existing_type=sa.String(320), type_=sa.Text(),
                           existing_nullable=False)
    conn = op.get_bind()
    seen: set[str] = set()
    update = sa.text("UPDATE inbound SET dedupe_key = :key WHERE id = :id")
    for row_id, message_id in list(_rows(conn, "message_id")):
        if message_id is None or message_id in seen:
            key = f"legacy:{row_id}"
        else:
            seen.add(message_id)
            key = hashlib.sha256(message_id.encode("utf-8", "surrogatepass")).hexdigest()
        conn.execute(update, {"key": key, "id": row_id})
    with op.batch_alter_table("inbound") as batch:
        batch.drop_constraint("uq_inbound_message_recipient", type_="unique")
        batch.alter_column("dedupe_key", existing_type=sa.String(64), nullable=False)
        batch.create_unique_constraint("uq_inbound_dedupe_key", ["dedupe_key"])


def downgrade() -> None:
    conn = op.get_bind()
    update = sa.text("UPDATE inbound SET recipients = :first, message_id = :mid WHERE id = :id")
    seen: set[tuple[str, str]] = set()
    for row_id, message_id, recipients in list(_rows(conn, "message_id, recipients")):
        first = (recipients or "").split(",")[0][:320]
        # The old key was (Message-ID, recipient): a second row with the same pair keeps no id.
        if message_id is not None and (message_id, first) in seen:
            message_id = None
        elif message_id is not None:
            seen.add((message_id, first))
        conn.execute(update, {"first": first, "mid": message_id, "id": row_id})
    with op.batch_alter_table("inbound") as batch:
        batch.drop_constraint("uq_inbound_dedupe_key", type_="unique")
        batch.drop_column("dedupe_key")
        batch.alter_column("recipients", new_column_name="recipient", existing_type=sa.Text(),
                           type_=sa.String(320), existing_nullable=False)
        batch.create_unique_constraint("uq_inbound_message_recipient",
                                       ["message_id", "recipient"])
