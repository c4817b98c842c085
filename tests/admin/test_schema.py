"""Migration 0004 creates exactly what the models declare: the admin tables and ``game.aborted_at``."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from sqlalchemy import inspect
from sqlmodel import SQLModel

MINE = ("admin_user", "admin_action", "aborted_at", "ix_admin_action_game_time")


def _mentions_mine(diff: Any) -> bool:
    return any(name in repr(diff) for name in MINE)


def test_the_migration_matches_the_models(app: Flask) -> None:
    engine = app.extensions["pbem_engine"]
    with engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        assert {"admin_user", "admin_action"} <= tables
        assert "aborted_at" in {c["name"] for c in inspect(conn).get_columns("game")}
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diffs = [d for d in compare_metadata(context, SQLModel.metadata) if _mentions_mine(d)]
    assert diffs == []
