"""A game's privacy password (hashed): without it strangers may not see or join a private game.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("privacy_hash", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("privacy_hash")
