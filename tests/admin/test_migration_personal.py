"""Migration 0016_organiser: seats stored before it are not erased, no request exists, and it undoes cleanly."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from sqlalchemy import inspect
from sqlmodel import SQLModel

from pbem import db
from pbem.core import games
from tests.apps import new_table
from tests.scheduler.test_migration_0009 import _columns, _migrate


def test_old_seats_are_not_erased_and_the_migration_goes_both_ways(app: Flask) -> None:
    table = new_table(app, [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob", email="b@x.org")])
    _migrate(app, "0011_admin_language", up=False)
    assert "erased_at" not in _columns(app, "seat")
    with app.extensions["pbem_engine"].connect() as conn:
        assert "erasure_request" not in inspect(conn).get_table_names()
    _migrate(app, "heads", up=True)
    assert "erased_at" in _columns(app, "seat")
    assert table.seat(0).erased_at is None and table.seat(1).name == "bob"


def test_the_personal_data_schema_matches_the_models(app: Flask) -> None:
    with app.app_context():
        db.get_session().close()
    with app.extensions["pbem_engine"].connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        found = compare_metadata(context, SQLModel.metadata)
    ops = [op for d in found for op in (d if isinstance(d, list) else [d])]
    assert [op for op in ops if "erasure_request" in repr(op) or "erased_at" in repr(op)] == []
