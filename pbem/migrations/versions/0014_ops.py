"""the scheduler's heartbeat: one row per job, read by /readyz and /metrics

Revision ID: 0014_ops
Revises: 0011_admin_language

A new table; nothing stored before changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_ops"
down_revision = "0013_mail_in"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scheduler_beat",
        sa.Column("job", sa.String(length=32), primary_key=True),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False, server_default="0"),
        sa.Column("runs", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("done", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("host", sa.String(length=64), nullable=False, server_default=""),
    )


def downgrade() -> None:
    op.drop_table("scheduler_beat")
