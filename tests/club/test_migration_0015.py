"""Migration 0015: games and seats stored before invitations and rematches keep playing (no start date, no answer
waited for), and the new columns match the models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import SQLModel

from pbem import db
from pbem.core import seats as seat_rows
from tests.apps import Table
from tests.scheduler.test_migration_0009 import _columns, _migrate

GAME = {"start_at", "unanswered", "rematch_of"}
SEAT = {"answer", "answered_at", "again_at"}


def test_games_stored_before_0015_play_on(app: Flask, client: FlaskClient, table: Table) -> None:
    _migrate(app, "0011_admin_language", up=False)
    assert not GAME & _columns(app, "game") and not SEAT & _columns(app, "seat")
    _migrate(app, "heads", up=True)
    assert _columns(app, "game") >= GAME and _columns(app, "seat") >= SEAT
    with app.app_context():
        game = seat_rows.get_game(session=db.get_session(), game_id=table.game_id)
        seat = seat_rows.seats_of(session=db.get_session(), game_id=table.game_id)[0]
    assert (game.status, game.start_at, game.unanswered, game.rematch_of) == ("playing", None, None, None)
    assert (seat.answer, seat.answered_at, seat.again_at) == (None, None, None)
    assert client.get(f"/play/{table.personal(0)}").status_code == 200 and table.verify()


def test_the_club_columns_match_the_models(app: Flask) -> None:
    with app.extensions["pbem_engine"].connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        found = compare_metadata(context, SQLModel.metadata)
    ops = [op for d in found for op in (d if isinstance(d, list) else [d])]
    mine = [op for op in ops if any(f"'{name}'" in repr(op) for name in GAME | SEAT) or "ix_game_start_at" in repr(op)]
    assert mine == []
