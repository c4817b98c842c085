"""Migration 0006: a game stored before it is Call to Glory after it, and goes on being played."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

from engine import GAMES
from pbem import db
from tests.apps import Table, form_fields


def _migrate(app: Flask, target: str, up: bool) -> None:
    engine = app.extensions["pbem_engine"]
    cfg = db.alembic_config(engine)
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        (command.upgrade if up else command.downgrade)(cfg, target)
    engine.dispose()  # SQLite keeps no stale table definitions in pooled connections


def _columns(app: Flask, table: str) -> set[str]:
    with app.extensions["pbem_engine"].connect() as conn:
        return {c["name"] for c in inspect(conn).get_columns(table)}


def test_a_game_stored_before_0006_is_call_to_glory_and_plays_on(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    csrf, decision = form_fields(client.get(f"/play/{token}").text)
    move = {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": "draw1"}
    assert client.post(f"/play/{token}", data=move).status_code == 303
    _migrate(app, "0005", up=False)
    assert "game" not in _columns(app, "game") and "discard_preference" in _columns(app, "seat")
    _migrate(app, "heads", up=True)
    assert "game" in _columns(app, "game") and "discard_preference" not in _columns(app, "seat")
    with app.extensions["pbem_engine"].connect() as conn:
        kinds = conn.execute(text("SELECT game FROM game")).scalars().all()
    assert kinds == ["call-to-glory"] and "call-to-glory" in GAMES
    csrf, decision = form_fields(client.get(f"/play/{token}").text)
    move = {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": "draw2"}
    assert client.post(f"/play/{token}", data=move).status_code == 303
    assert table.state().step == "act" and table.moves_logged() == 2 and table.verify()


def test_the_migration_matches_the_models(app: Flask) -> None:
    with app.extensions["pbem_engine"].connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        found = compare_metadata(context, SQLModel.metadata)
    ops = [op for d in found for op in (d if isinstance(d, list) else [d])]
    mine = [
        op for op in ops if "Column('game'" in repr(op) or op[2:4] in (("game", "game"), ("seat", "discard_preference"))
    ]
    assert mine == []
