"""email: the outbox, seats' notification settings, the organiser's address

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seat_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("to_addr", sa.String(length=254), nullable=False),
        sa.Column("subject", sa.String(length=300), nullable=False),
        sa.Column("text_body", sa.Text(), nullable=False),
        sa.Column("html_body", sa.Text(), nullable=False),
        sa.Column("headers", sa.JSON(), nullable=False),
        sa.Column("attachments", sa.JSON(), nullable=False),
        sa.Column("message_id", sa.String(length=255), nullable=False),
        sa.Column("dedupe_key", sa.String(length=120), nullable=True),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["seat_id"], ["seat.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("dedupe_key"),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_due", ["status", "next_attempt_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_outbox_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_outbox_seat_id"), ["seat_id"], unique=False)
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reminders", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch_op.add_column(sa.Column("left_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("organiser_email", sa.String(length=254), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("organiser_email")
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("left_at")
        batch_op.drop_column("reminders")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_seat_id"))
        batch_op.drop_index(batch_op.f("ix_outbox_game_id"))
        batch_op.drop_index("ix_outbox_due")
    op.drop_table("outbox")
