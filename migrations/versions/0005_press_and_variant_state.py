"""Press archive and the game's press settings (grey press, observers' broadcasts), the
victory condition; per-game variant state (Formal Diplomacy), kept with each snapshot.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21
"""
from alembic import op
import sqlalchemy as sa

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "press",
        sa.Column("id", _Id, primary_key=True),
        sa.Column("game_id", _Id, sa.ForeignKey("games.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("phase", sa.String(8), nullable=False),
        sa.Column("sender_seat_id", _Id, sa.ForeignKey("seats.id", ondelete="SET NULL"),
                  nullable=True),
        sa.Column("sender", sa.String(32), nullable=False),
        sa.Column("recipients", sa.Text(), nullable=False),
        sa.Column("broadcast", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("grey", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("sent_at", _When, nullable=False),
    )
    op.create_index("ix_press_game", "press", ["game_id", "id"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("variant_state", sa.Text(), nullable=True))
        batch.add_column(sa.Column("grey_press", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
        batch.add_column(sa.Column("observer_press", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("victory_centers", sa.Integer(), nullable=True))
        # a shared victory (SHARED_VICTORY) names several powers
        batch.alter_column("winner", existing_type=sa.String(32), type_=sa.String(200))
    with op.batch_alter_table("phase_snapshots") as batch:
        batch.add_column(sa.Column("variant_before", sa.Text(), nullable=True))
        batch.add_column(sa.Column("variant_after", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("phase_snapshots") as batch:
        batch.drop_column("variant_after")
        batch.drop_column("variant_before")
    with op.batch_alter_table("games") as batch:
        batch.alter_column("winner", existing_type=sa.String(200), type_=sa.String(32))
        batch.drop_column("victory_centers")
        batch.drop_column("observer_press")
        batch.drop_column("grey_press")
        batch.drop_column("variant_state")
    op.drop_index("ix_press_game", table_name="press")
    op.drop_table("press")
