"""the admin's language: the admin area speaks it (en, nl or fr)

Revision ID: 0011_admin_language
Revises: 0010_email_choices

Every admin stored so far keeps English, the language the admin area spoke until now.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_admin_language"
down_revision = "0010_email_choices"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("admin_user", sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))


def downgrade() -> None:
    # SQLite (3.35 and later) drops a plain column in place; a batch copy would drop a table others refer to.
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE admin_user DROP COLUMN language")
    else:
        op.drop_column("admin_user", "language")
