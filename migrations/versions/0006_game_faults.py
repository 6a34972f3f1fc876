"""A game's faults: how often processing it failed in a row, what failed, and when the master
was last told (the scheduler backs off from a failing game instead of retrying it every poll).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("fault_count", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("fault_note", sa.Text(), nullable=True))
        batch.add_column(sa.Column("fault_told_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("fault_told_at")
        batch.drop_column("fault_note")
        batch.drop_column("fault_count")
