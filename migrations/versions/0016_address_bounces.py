"""Bounces: each address the judge writes to gets a return-path token, and its hard bounces
are counted; an address with too many is marked failing until it writes again.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "address_bounces",
        sa.Column("address", sa.String(320), primary_key=True),
        sa.Column("token", sa.String(32), nullable=False, unique=True),
        sa.Column("hard_bounces", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last_bounce_at", sa.DateTime(timezone=True)),
        sa.Column("last_diagnostic", sa.Text()),
        sa.Column("failing_since", sa.DateTime(timezone=True)),
    )


def downgrade() -> None:
    op.drop_table("address_bounces")
