"""The games list with 10,000 games, on SQLite and PostgreSQL: a few queries per page and no snapshots loaded."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Connection, event, func, insert, select, text

from pbem import admin
from pbem.models import Game, OutboxEmail, Seat

from .conftest import assert_page, create_table

GAMES = 10_000
pytestmark = pytest.mark.slow


def _copy(conn: Connection, table: Any, key: str, offset: int, upto: int, **fixed: Any) -> None:
    """INSERT … SELECT the rows of games 1..upto again, as games offset+1..offset+upto."""
    names = [c.name for c in table.columns if not (c.primary_key and key != "id")]
    values = [
        (table.c[key] + offset) if c == key else (fixed[c] if c in fixed else table.c[c])
        for c in names
    ]  # fmt: skip
    query = select(*values).where(table.c[key] <= upto)
    conn.execute(insert(table).from_select(names, query))


def _seed(app: Flask, actor: admin.Actor) -> None:
    """10,000 games (copies of one made by the service), their seats and emails; some paused, some bounced."""
    create_table(app, actor, name="Template")
    engine = app.extensions["pbem_engine"]
    game, seat, outbox = Game.__table__, Seat.__table__, OutboxEmail.__table__  # type: ignore[attr-defined]
    with engine.begin() as conn:
        have = 1
        while have < GAMES:
            step = min(have, GAMES - have)
            _copy(conn, game, "id", have, step)
            _copy(conn, seat, "game_id", have, step)
            _copy(conn, outbox, "game_id", have, step, dedupe_key=None)
            have += step
        conn.execute(
            text("UPDATE game SET name = 'Game ' || id, paused_at = CASE WHEN id % 250 = 0 THEN updated_at END")
        )
        conn.execute(text("UPDATE outbox SET status = 'dead' WHERE game_id % 100 = 7 AND kind = 'invitation'"))
        conn.execute(text("UPDATE outbox SET status = 'sent' WHERE game_id % 2 = 0 AND status = 'queued'"))
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT setval(pg_get_serial_sequence('game', 'id'), (SELECT max(id) FROM game))"))
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("ANALYZE"))
        assert conn.execute(select(func.count()).select_from(game)).scalar_one() == GAMES
        assert conn.execute(select(func.count()).select_from(seat)).scalar_one() == 3 * GAMES


@pytest.fixture
def statements(app: Flask) -> Iterator[list[str]]:
    """Every SQL statement the app runs from now on."""
    seen: list[str] = []
    engine = app.extensions["pbem_engine"]

    def keep(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", keep)
    yield seen
    event.remove(engine, "before_cursor_execute", keep)


WHOLE_SNAPSHOT = re.compile(r"\bgame\.(state|options)\b(?!\s*(->|,\s*%\(|,\s*\?))", re.IGNORECASE)


def test_the_list_of_10000_games(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor, statements: list[str]
) -> None:
    _seed(app, organiser)
    pages = {
        "first page": ("/admin/", "10000 games", "Game 10000"),
        "a deep page": ("/admin/?page=150", "Page 150 of 200", "Game 2550"),
        "needs attention": ("/admin/?attention=1", "140 games match", "Game 10000"),
        "one status, a later page": ("/admin/?status=playing&page=3", "Page 3 of 200", "Game 9900"),
    }
    admin_client.get("/admin/")  # warm up: templates compiled, connections open
    for label, (path, *words) in pages.items():
        statements.clear()
        page = assert_page(admin_client.get(path), 200, *words)
        selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        assert len(selects) <= 3, f"{label}: {len(selects)} queries: {selects}"
        for statement in selects:
            assert not WHOLE_SNAPSHOT.search(statement), f"{label} loads whole snapshots: {statement}"
        assert page.count("<tr") == 51, f"{label}: 50 games and the heading"
    attention = admin_client.get("/admin/?attention=1").get_data(as_text=True)
    assert "paused" in attention and "could not be delivered" in attention
