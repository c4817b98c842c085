"""Migration 0009: a game waited on under the old schema (its wait in columns of the game) gets its Wait row."""

from __future__ import annotations

from datetime import timedelta

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

from engine import GAMES
from pbem import db, flows

from .conftest import T0, Clock, make_game, play_turn, utc, wait_row, wait_rows

H = timedelta(hours=1)


def _migrate(app: Flask, target: str, up: bool) -> None:
    engine = app.extensions["pbem_engine"]
    cfg = db.alembic_config(engine)
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        (command.upgrade if up else command.downgrade)(cfg, target)
    engine.dispose()  # SQLite keeps no stale table definitions in pooled connections


def _tables(app: Flask) -> set[str]:
    with app.extensions["pbem_engine"].connect() as conn:
        return set(inspect(conn).get_table_names())


def _columns(app: Flask, table: str) -> set[str]:
    with app.extensions["pbem_engine"].connect() as conn:
        return {c["name"] for c in inspect(conn).get_columns(table)}


@pytest.mark.usefixtures("mail")
def test_a_game_waited_on_before_0009_keeps_its_wait_as_a_row(app: Flask, clock: Clock) -> None:
    table = make_game(app)
    clock.advance(hours=5)
    play_turn(app, table)  # bob's turn: his wait began at T0 + 5 h
    picked = make_game(app, game="pick-a-number", names=("ann", "bob"), options={"rounds": 1, "highest": 3})
    done = make_game(app, game="pick-a-number", names=("ann", "bob"), options={"rounds": 1, "highest": 3})
    with app.app_context(), db.write_session() as session:
        for seat, number in ((0, 1), (1, 2)):
            flows.play.move(
                session=session, game_id=done.game_id, seat=seat, move={"do": "pick", "number": number},
                decision="round-1", source="page",
            )  # fmt: skip
    state = table.state()  # read with today's models, before the schema goes back
    ply = state.ply
    _migrate(app, "0007", up=False)
    assert "wait" not in _tables(app) and {"wait_ply", "reminders_sent"} <= _columns(app, "game")
    with app.extensions["pbem_engine"].begin() as conn:  # the old schema's wait: bob reminded once already
        conn.execute(
            text(
                "UPDATE game SET waiting_since = :since, wait_ply = :ply, reminders_sent = 1, last_reminder_at = :last,"
                " next_reminder_at = :next, deadline_at = :deadline WHERE id = :id"
            ),
            {
                "since": T0 + 5 * H,
                "ply": ply,
                "last": T0 + 29 * H,
                "next": T0 + 53 * H,
                "deadline": T0 + 77 * H,
                "id": table.game_id,
            },
        )
    _migrate(app, "heads", up=True)
    assert "wait" in _tables(app) and not {"wait_ply", "reminders_sent", "last_reminder_at"} & _columns(app, "game")
    bob = wait_row(app, table.game_id)
    assert (bob.seat, bob.decision, bob.wait) == (1, str(ply), GAMES["call-to-glory"].waiting_for(state)["bob"].wait)
    assert utc(bob.waiting_since) == T0 + 5 * H and bob.reminders_sent == 1 and utc(bob.last_reminder_at) == T0 + 29 * H
    assert utc(bob.next_reminder_at) == T0 + 53 * H and utc(bob.deadline_at) == T0 + 77 * H
    rows = wait_rows(app, picked.game_id)
    assert [(r.seat, r.wait) for r in rows] == [(0, "round-1"), (1, "round-1")], "everyone the state waits on"
    assert all(utc(r.waiting_since) == T0 + 5 * H for r in rows), "since the game's wait began"
    assert wait_rows(app, done.game_id) == [], "a finished game waits on nobody"
    # The carried-over wait is the one the game goes on with: a move within bob's turn keeps it.
    state = table.state()
    with app.app_context(), db.write_session() as session:
        flows.play.move(
            session=session, game_id=table.game_id, seat=1, move={"do": "draw", "pile": "draw1"},
            decision=state.ply, source="page",
        )  # fmt: skip
    kept = wait_row(app, table.game_id)
    assert kept.id == bob.id and kept.reminders_sent == 1 and utc(kept.deadline_at) == T0 + 77 * H


def test_the_wait_table_matches_the_models(app: Flask) -> None:
    with app.extensions["pbem_engine"].connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        found = compare_metadata(context, SQLModel.metadata)
    ops = [op for d in found for op in (d if isinstance(d, list) else [d])]
    names = (
        "'wait'",
        "ix_wait_",
        "'wait_ply'",
        "'reminders_sent'",
        "'last_reminder_at'",
        "_reminder_at'",
        "'deadline_at'",
    )
    mine = [op for op in ops if any(name in repr(op) for name in names)]
    assert mine == []
