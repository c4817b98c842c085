"""texts as codes: a game's pause reason and the organisers' log and notices are stored as codes with parameters

Revision ID: 0012_text_codes
Revises: 0011_admin_language

They are put into words when shown, in the reader's language. Rows stored before keep their English sentences
(``game.paused_reason``, ``admin_action.detail`` and ``notice``), shown as they are.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_text_codes"
down_revision = "0011_admin_language"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game", sa.Column("paused_why", sa.JSON(), nullable=True))
    op.add_column("admin_action", sa.Column("key", sa.Text(), nullable=False, server_default=""))
    op.add_column("admin_action", sa.Column("notice_key", sa.Text(), nullable=True))
    op.add_column("admin_action", sa.Column("params", sa.JSON(), nullable=True))


def downgrade() -> None:
    # SQLite (3.35 and later) drops a plain column in place; a batch copy would drop a table others refer to.
    for table, column in (
        ("admin_action", "params"),
        ("admin_action", "notice_key"),
        ("admin_action", "key"),
        ("game", "paused_why"),
    ):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f'ALTER TABLE {table} DROP COLUMN "{column}"')
        else:
            op.drop_column(table, column)
