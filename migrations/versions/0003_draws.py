"""Draws: the NoDIAS flag of a game, the votes of the current phase, and game results.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_When = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("nodias", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "draw_votes",
        sa.Column("game_id", _Id, sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("power", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("cast_at", _When, nullable=False),
    )
    op.create_table(
        "game_results",
        sa.Column("game_id", _Id, sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("result", sa.String(16), nullable=False),
        sa.Column("members", sa.Text(), nullable=False),
        sa.Column("phase", sa.String(8), nullable=False),
        sa.Column("year", sa.Integer(), nullable=False),
        sa.Column("centers", sa.Text(), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("eliminated", sa.Text(), nullable=False),
        sa.Column("ended_at", _When, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("game_results")
    op.drop_table("draw_votes")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("nodias")
