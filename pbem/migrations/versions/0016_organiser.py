"""personal data: when a seat's person was erased, and players' requests to be erased

Revision ID: 0016_organiser
Revises: 0011_admin_language

Seats stored so far were never erased (``erased_at`` empty); no request exists yet.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_organiser"
down_revision = "0015_club"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seat", sa.Column("erased_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "erasure_request",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_erasure_request_game_id", "erasure_request", ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_erasure_request_game_id", table_name="erasure_request")
    op.drop_table("erasure_request")
    # SQLite (3.35 and later) drops a plain column in place; a batch copy would drop a table others refer to.
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE seat DROP COLUMN erased_at")
    else:
        op.drop_column("seat", "erased_at")
