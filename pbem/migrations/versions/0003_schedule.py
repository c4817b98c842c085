"""schedule: game policy, waits, reminders, deadlines, pauses; seats' absences and quiet hours

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("policy", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("waiting_since", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("wait_ply", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("reminders_sent", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("last_reminder_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("next_reminder_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("paused_reason", sa.String(length=200), nullable=True))
        batch_op.create_index(batch_op.f("ix_game_next_reminder_at"), ["next_reminder_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_game_deadline_at"), ["deadline_at"], unique=False)
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("away_from", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("away_until", sa.Date(), nullable=True))
        batch_op.add_column(sa.Column("away_days_used", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("quiet_start", sa.String(length=5), nullable=True))
        batch_op.add_column(sa.Column("quiet_end", sa.String(length=5), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("quiet_end")
        batch_op.drop_column("quiet_start")
        batch_op.drop_column("away_days_used")
        batch_op.drop_column("away_until")
        batch_op.drop_column("away_from")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_deadline_at"))
        batch_op.drop_index(batch_op.f("ix_game_next_reminder_at"))
        batch_op.drop_column("paused_reason")
        batch_op.drop_column("paused_at")
        batch_op.drop_column("deadline_at")
        batch_op.drop_column("next_reminder_at")
        batch_op.drop_column("last_reminder_at")
        batch_op.drop_column("reminders_sent")
        batch_op.drop_column("wait_ply")
        batch_op.drop_column("waiting_since")
        batch_op.drop_column("policy")
