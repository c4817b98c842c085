"""Migration 0010: seats stored before email choices existed keep what they had (sheets on their own, no digest)."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

from .conftest import make_game, seat_row
from .test_migration_0009 import _columns, _migrate

ADDED = {"score_sheets", "pending_sheets", "digest", "next_digest_at", "digest_seq", "digest_at"}


@pytest.mark.usefixtures("mail")
def test_seats_stored_before_0010_get_the_default_email_choices(app: Flask) -> None:
    table = make_game(app)
    _migrate(app, "0009", up=False)
    assert not ADDED & _columns(app, "seat")
    with app.extensions["pbem_engine"].begin() as conn:  # a seat added under the old schema, reminders off
        conn.execute(
            text(
                "INSERT INTO seat (game_id, position, name, email, language, timezone, nonce, kind, reminders,"
                " away_days_used) VALUES (:g, 3, 'dee', 'dee@example.com', 'en', 'UTC', 'n0nce', 'human', :off, 0)"
            ),
            {"g": table.game_id, "off": False},
        )
    _migrate(app, "heads", up=True)
    assert _columns(app, "seat") >= ADDED
    for position in range(4):
        seat = seat_row(app, table.game_id, position)
        assert (seat.score_sheets, seat.digest, seat.next_digest_at) == ("separate", "none", None)
        assert (seat.pending_sheets, seat.digest_seq, seat.digest_at) == (None, 0, None)
        assert seat.reminders is (position != 3), "the old choice is kept"
    with app.extensions["pbem_engine"].connect() as conn:
        indexes = {i["name"] for i in inspect(conn).get_indexes("seat")}
    assert "ix_seat_next_digest_at" in indexes


def test_the_email_choice_columns_match_the_models(app: Flask) -> None:
    with app.extensions["pbem_engine"].connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        found = compare_metadata(context, SQLModel.metadata)
    ops = [op for d in found for op in (d if isinstance(d, list) else [d])]
    mine = [op for op in ops if any(f"'{name}'" in repr(op) for name in ADDED) or "ix_seat_next_digest" in repr(op)]
    assert mine == []
