"""Double opt-in: a seat's address gets its game's mail only once it has confirmed with a code
mailed to it (``confirmed_at``; a SET ADDRESS's new address waits in ``pending_address``; the
code's hash and when it was sent).  Every seat there is keeps getting mail: it counts as
confirmed when it joined.  A downgrade forgets the observers that never confirmed (the older
judge would mail them) and the new addresses still waiting.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("pending_address", sa.String(320), nullable=True))
        batch.add_column(sa.Column("confirm_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("confirm_asked_at", sa.DateTime(timezone=True),
                                   nullable=True))
    op.execute("UPDATE seats SET confirmed_at = joined_at")
    op.create_index("ix_seats_confirm_hash", "seats", ["confirm_hash"])


def downgrade() -> None:
    op.execute("DELETE FROM seats WHERE confirmed_at IS NULL AND kind = 'observer'")
    op.drop_index("ix_seats_confirm_hash", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("confirm_asked_at")
        batch.drop_column("confirm_hash")
        batch.drop_column("pending_address")
        batch.drop_column("confirmed_at")
