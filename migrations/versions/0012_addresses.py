"""Players' addresses are private unless the master makes them public for a game (SET
ADDRESSES PUBLIC): one flag per game, off for every game there is.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("addresses_public", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("addresses_public")
