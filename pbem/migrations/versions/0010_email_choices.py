"""email choices per seat: score sheets separate or folded into the turn email, and a daily digest

Revision ID: 0010_email_choices
Revises: 0009

Every seat stored so far keeps what it had: its score sheets as their own emails ("separate") and no digest.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_email_choices"
down_revision = "0009"
branch_labels = None
depends_on = None

_ADDED = ("score_sheets", "pending_sheets", "digest", "next_digest_at", "digest_seq", "digest_at")


def upgrade() -> None:
    op.add_column("seat", sa.Column("score_sheets", sa.String(length=8), nullable=False, server_default="separate"))
    op.add_column("seat", sa.Column("pending_sheets", sa.JSON(), nullable=True))
    op.add_column("seat", sa.Column("digest", sa.String(length=8), nullable=False, server_default="none"))
    op.add_column("seat", sa.Column("next_digest_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("seat", sa.Column("digest_seq", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("seat", sa.Column("digest_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_seat_next_digest_at", "seat", ["next_digest_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_seat_next_digest_at", table_name="seat")
    for column in reversed(_ADDED):
        # SQLite (3.35 and later) drops a plain column in place; a batch copy would drop a table others refer to.
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE seat DROP COLUMN {column}")
        else:
            op.drop_column("seat", column)
