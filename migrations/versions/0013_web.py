"""The web view's list of public games: an index on (privacy_hash, name_key), so that counting
the public games and finding one page of them by name read the index, not every game's row
(the rows carry the board as JSON).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24
"""
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_games_listing", "games", ["privacy_hash", "name_key"])


def downgrade() -> None:
    op.drop_index("ix_games_listing", table_name="games")
