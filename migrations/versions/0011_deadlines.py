"""Deadlines a player can rely on: a game's deadline clock (time of day, weekdays, zone), the
deadline the clock gave before absences moved it, the longest absence a player may announce,
each role's time zone, and the players' absences.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-28
"""
from alembic import op
import sqlalchemy as sa

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_When = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("clock_minute", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("clock_days", sa.String(7), nullable=True))
        batch.add_column(sa.Column("clock_zone", sa.String(64), nullable=True))
        batch.add_column(sa.Column("base_deadline", _When, nullable=True))
        batch.add_column(sa.Column("max_absence_days", sa.Integer(), nullable=False,
                                   server_default="14"))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("zone", sa.String(64), nullable=True))
    op.create_table(
        "absences",
        sa.Column("id", _Id, primary_key=True),
        sa.Column("game_id", _Id, sa.ForeignKey("games.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("seat_id", _Id, sa.ForeignKey("seats.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("starts_at", _When, nullable=False),
        sa.Column("ends_at", _When, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", _When, nullable=False),
    )
    op.create_index("ix_absences_game", "absences", ["game_id", "status"])
    # The running games' deadlines were set by the clock as it was: that is their base.
    op.execute("UPDATE games SET base_deadline = deadline")


def downgrade() -> None:
    op.drop_index("ix_absences_game", table_name="absences")
    op.drop_table("absences")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("zone")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("max_absence_days")
        batch.drop_column("base_deadline")
        batch.drop_column("clock_zone")
        batch.drop_column("clock_days")
        batch.drop_column("clock_minute")
