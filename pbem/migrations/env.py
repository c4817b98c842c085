"""Alembic environment: the URL and connection come from pbem.db.upgrade()."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import pbem.models  # noqa: F401  (registers the tables)

config = context.config
target_metadata = SQLModel.metadata


def run() -> None:
    """Run the migrations on the connection pbem.db.upgrade() passes in, or on the configured URL."""
    connection = config.attributes.get("connection")
    if connection is None:
        context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run()
