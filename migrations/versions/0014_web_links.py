"""Links from mail to a private game's page are good once: the nonces of those opened, kept
until the link would have expired anyway (judge.service.access.passes).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""
import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_link_uses",
        sa.Column("nonce", sa.String(32), primary_key=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_web_link_uses_expires", "web_link_uses", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_web_link_uses_expires", table_name="web_link_uses")
    op.drop_table("web_link_uses")
