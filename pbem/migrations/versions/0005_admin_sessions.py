"""admin sessions: every organiser login is a row that logging out (or a new password) revokes

Revision ID: 0005
Revises: 0003, 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = ("0003", "0004")
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "admin_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("admin_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["admin_id"], ["admin_user.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("admin_session", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_admin_session_admin_id"), ["admin_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("admin_session", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_admin_session_admin_id"))
    op.drop_table("admin_session")
