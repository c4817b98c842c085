"""games say which game they are (``game.game``, the key in engine.GAMES); seats lose a column never read

Revision ID: 0006
Revises: 0005

Every game stored before was Call to Glory. A seat's discard preference lives in the game's state (R7);
the copy on the seat was written and never read.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _drop_column(table: str, column: str) -> None:
    # SQLite (3.35 and later) drops a plain column in place; a batch copy of the table would have to drop
    # tables that others refer to, which its foreign keys refuse.
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    else:
        op.drop_column(table, column)


def upgrade() -> None:
    op.add_column("game", sa.Column("game", sa.String(length=40), nullable=False, server_default="call-to-glory"))
    _drop_column("seat", "discard_preference")


def downgrade() -> None:
    op.add_column(
        "seat", sa.Column("discard_preference", sa.String(length=8), nullable=False, server_default="smaller")
    )
    _drop_column("game", "game")
