"""Map pictures: a seat's choice to get them (SET MAP ON/OFF), and the pictures a queued mail
carries (drawn when it is sent).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("map_pictures", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("attachment", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("attachment")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("map_pictures")
