"""Guards against hostile mail: daily counters (CREATEs, new recipients, failed SIGNONs, which
replace the old per-role lock), the addresses the judge has heard from or written to unasked,
a tournament's password, and the progress of a mail executed in several transactions.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-20
"""
from alembic import op
import sqlalchemy as sa

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "daily_counts",
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("subject", sa.String(400), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("last_at", _When, nullable=True),
    )
    op.create_table(
        "known_addresses",
        sa.Column("address", sa.String(320), primary_key=True),
        sa.Column("confirmed_at", _When, nullable=True),
        sa.Column("notified_at", _When, nullable=True),
    )
    # Everybody who already has a place in a game wrote to the judge to get it (or was
    # given it by the master and has played since): they keep getting the game's mail.
    op.execute("INSERT INTO known_addresses (address, confirmed_at)"
               " SELECT DISTINCT lower(address), CURRENT_TIMESTAMP FROM seats")
    # The failures counted per game and role: now per day in daily_counts.
    op.drop_table("signon_failures")
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("password_hash", sa.String(200), nullable=True))
    with op.batch_alter_table("inbound") as batch:
        batch.add_column(sa.Column("progress", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("inbound") as batch:
        batch.drop_column("progress")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("password_hash")
    op.create_table(
        "signon_failures",
        sa.Column("game_id", _Id, sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("role", sa.String(8), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("window_start", _When, nullable=False),
    )
    op.drop_table("known_addresses")
    op.drop_table("daily_counts")
