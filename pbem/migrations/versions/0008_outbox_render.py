"""outbox rendered by the sender: what a game email must show (render) and the decision a turn email asks for

Rows queued before this revision are stored rendered (render is NULL) and are sent as they are.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("decision", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("render", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("render")
        batch.drop_column("decision")
