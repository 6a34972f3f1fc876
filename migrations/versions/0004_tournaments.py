"""Tournaments: a named series of games with a director; games may belong to one.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-08
"""
from alembic import op
import sqlalchemy as sa

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", _Id, primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("director", sa.String(320), nullable=False),
        sa.Column("created_at", _When, nullable=False),
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("tournament_id", _Id, nullable=True))
        batch.create_foreign_key("fk_games_tournament", "tournaments", ["tournament_id"],
                                 ["id"], ondelete="SET NULL")
        batch.create_index("ix_games_tournament", ["tournament_id"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_tournament")
        batch.drop_constraint("fk_games_tournament", type_="foreignkey")
        batch.drop_column("tournament_id")
    op.drop_table("tournaments")
