"""mail in: the messages read (each once, by Message-ID) and the seats' address health (bounces)

Revision ID: 0013_mail_in
Revises: 0011_admin_language

Old seats start healthy (no bounce); no message was read before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_mail_in"
down_revision = "0012_text_codes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "inbound_mail",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("message_id", sa.String(length=255), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("moves", sa.Integer(), nullable=False, server_default="0"),
        sa.UniqueConstraint("message_id"),
    )
    op.add_column("seat", sa.Column("bounced_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("seat", sa.Column("bounce_detail", sa.String(length=300), nullable=True))


def downgrade() -> None:
    op.drop_table("inbound_mail")
    # SQLite (3.35 and later) drops a plain column in place; a batch copy would drop a table others refer to.
    for column in ("bounce_detail", "bounced_at"):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE seat DROP COLUMN {column}")
        else:
            op.drop_column("seat", column)
