"""a club: invitations that are accepted, rematches, "play again"

Revision ID: 0015_club
Revises: 0011_admin_language

Games stored so far started when they were created: they keep no start date and no rematch; their seats keep no
answer (nothing waits on one once a game is under way) and no "play again" request.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_club"
down_revision = "0014_ops"
branch_labels = None
depends_on = None

GAME = (
    ("start_at", sa.DateTime(timezone=True)),
    ("unanswered", sa.String(length=8)),
    ("rematch_of", sa.Integer()),
)
SEAT = (
    ("answer", sa.String(length=8)),
    ("answered_at", sa.DateTime(timezone=True)),
    ("again_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    for name, kind in GAME:
        op.add_column("game", sa.Column(name, kind, nullable=True))
    for name, kind in SEAT:
        op.add_column("seat", sa.Column(name, kind, nullable=True))
    op.create_index("ix_game_start_at", "game", ["start_at"])


def downgrade() -> None:
    op.drop_index("ix_game_start_at", table_name="game")
    for table, columns in (("seat", SEAT), ("game", GAME)):
        for name, _kind in reversed(columns):
            # SQLite (3.35 and later) drops a plain column in place; a batch copy would drop a table others refer to.
            if op.get_bind().dialect.name == "sqlite":
                op.execute(f"ALTER TABLE {table} DROP COLUMN {name}")
            else:
                op.drop_column(table, name)
