"""Games: games, seats, phase snapshots, sign-on failure counters.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", _Id, primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("phase", sa.String(8), nullable=False),
        sa.Column("position", sa.Text(), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("movement_seconds", sa.Integer(), nullable=False),
        sa.Column("retreat_seconds", sa.Integer(), nullable=False),
        sa.Column("adjustment_seconds", sa.Integer(), nullable=False),
        sa.Column("grace_seconds", sa.Integer(), nullable=False),
        sa.Column("deadline", _When),
        sa.Column("reminder_at", _When),
        sa.Column("clock_stage", sa.Integer(), nullable=False),
        sa.Column("next_event_at", _When),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("winner", sa.String(32)),
        sa.Column("created_at", _When, nullable=False),
    )
    op.create_index("ix_games_next_event", "games", ["next_event_at"])
    op.create_table(
        "seats",
        sa.Column("id", _Id, primary_key=True),
        sa.Column("game_id", _Id, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("power", sa.String(32)),
        sa.Column("wanted_power", sa.String(32)),
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("wait", sa.Boolean(), nullable=False),
        sa.Column("orders", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("joined_at", _When, nullable=False),
    )
    op.create_index("ix_seats_game", "seats", ["game_id", "kind"])
    op.create_table(
        "phase_snapshots",
        sa.Column("id", _Id, primary_key=True),
        sa.Column("game_id", _Id, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(8), nullable=False),
        sa.Column("position_before", sa.Text(), nullable=False),
        sa.Column("orders", sa.Text(), nullable=False),
        sa.Column("results", sa.Text(), nullable=False),
        sa.Column("position_after", sa.Text(), nullable=False),
        sa.Column("processed_at", _When, nullable=False),
        sa.Column("rolled_back", sa.Boolean(), nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_snapshot_game_seq"),
    )
    op.create_table(
        "signon_failures",
        sa.Column("game_id", _Id, sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("role", sa.String(8), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("window_start", _When, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("signon_failures")
    op.drop_table("phase_snapshots")
    op.drop_index("ix_seats_game", table_name="seats")
    op.drop_table("seats")
    op.drop_index("ix_games_next_event", table_name="games")
    op.drop_table("games")
