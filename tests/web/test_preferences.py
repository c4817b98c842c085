"""Discard-preference changes from a player's page: the same value again is a no-op (no log entry), changes
are limited per seat (PREFERENCE_CHANGES per PREFERENCE_WINDOW, then 429), and a game that was aborted or is
over refuses them like moves (409)."""

from __future__ import annotations

from datetime import timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update
from werkzeug.test import TestResponse

from engine import call_to_glory as glory
from pbem import admin, db, flows, timing
from pbem.core import games
from pbem.models import AdminUser, MoveRecord
from tests.apps import Table, form_fields, new_table

from .forge import assert_error_page


def _prefer(client: FlaskClient, token: str, value: str) -> TestResponse:
    csrf, _ = form_fields(client.get(f"/play/{token}").text)
    return client.post(f"/play/{token}", data={"csrf_token": csrf, "do": "preference", "discard_preference": value})


def _preference_rows(table: Table, seat: int) -> int:
    with table.app.app_context():
        log = games.move_log(session=db.get_session(), game_id=table.game_id)
    return sum(1 for r in log if r.seat == seat and r.move.get("do") == "preference")


def test_the_same_preference_again_logs_nothing(client: FlaskClient, table: Table) -> None:
    token = table.personal(1)
    current = glory.PREFERENCES[table.state().preferences[1]]
    before = (table.version(), table.moves_logged())
    for _ in range(5):
        assert _prefer(client, token, current).status_code == 303
    assert (table.version(), table.moves_logged()) == before, "no log row, no new snapshot"
    other = next(p for p in glory.PREFERENCES if p != current)
    assert _prefer(client, token, other).status_code == 303
    assert table.moves_logged() == before[1] + 1 and glory.PREFERENCES[table.state().preferences[1]] == other
    assert _prefer(client, token, other).status_code == 303
    assert table.moves_logged() == before[1] + 1


def test_changes_are_limited_per_seat(client: FlaskClient, table: Table, app: Flask) -> None:
    token = table.personal(1)
    values = [p for p in glory.PREFERENCES if p != glory.PREFERENCES[table.state().preferences[1]]]
    values = [*values, glory.PREFERENCES[table.state().preferences[1]]]
    for i in range(games.STANDING_CHANGES):
        assert _prefer(client, token, values[i % len(values)]).status_code == 303, i
    logged = table.moves_logged()
    refused = _prefer(client, token, values[games.STANDING_CHANGES % len(values)])
    assert_error_page(refused, 429, "settings were changed", "Wait a few minutes")
    assert int(refused.headers["Retry-After"]) == games.STANDING_WINDOW.total_seconds()
    assert table.moves_logged() == logged, "nothing more is logged"
    assert _prefer(client, table.personal(2), values[0]).status_code == 303, "another seat is not affected"
    csrf, decision = form_fields(client.get(f"/play/{table.personal(0)}").text)
    move = {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": "draw1"}
    assert client.post(f"/play/{table.personal(0)}", data=move).status_code == 303, "moves are not limited"
    with app.app_context(), db.write_session() as session:
        session.execute(
            update(MoveRecord)
            .where(MoveRecord.game_id == table.game_id, MoveRecord.seat == 1)
            .values(created_at=timing.now() - games.STANDING_WINDOW - timedelta(seconds=1))
        )
    assert _prefer(client, token, values[games.STANDING_CHANGES % len(values)]).status_code == 303, "window passed"
    assert _preference_rows(table, 1) == games.STANDING_CHANGES + 1


def test_an_aborted_game_refuses_preference_changes(client: FlaskClient, table: Table, app: Flask) -> None:
    token = table.personal(1)
    with app.app_context(), db.write_session() as session:
        user = AdminUser(username="org", password_hash="x")
        session.add(user)
        session.flush()
        admin.abort_game(session=session, game_id=table.game_id, actor=admin.actor_of(user))
    before = (table.version(), table.moves_logged())
    other = next(p for p in glory.PREFERENCES if p != glory.PREFERENCES[table.state().preferences[1]])
    assert_error_page(_prefer(client, token, other), 409, "stopped by its organiser")
    assert (table.version(), table.moves_logged()) == before


def test_a_finished_game_refuses_preference_changes(client: FlaskClient, app: Flask) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("Bot", kind="heuristic")]
    table = new_table(app, specs, seed=3, options=glory.Options(rounds=1))
    token = table.personal(0)
    csrf, _ = form_fields(client.get(f"/play/{token}").text)  # the page's token, taken while it still has forms
    with app.app_context():
        while not table.state().is_finished:
            state = table.state()
            move = glory.HeuristicBot().choose(state).to_json()
            del move["player"]
            with db.write_session() as session:
                flows.play.move(
                    session=session, game_id=table.game_id, seat=0, move=move, decision=state.ply, source="page"
                )
    before = (table.version(), table.moves_logged())
    other = next(p for p in glory.PREFERENCES if p != glory.PREFERENCES[table.state().preferences[0]])
    response = client.post(f"/play/{token}", data={"csrf_token": csrf, "do": "preference", "discard_preference": other})
    assert_error_page(response, 409, "game is over")
    assert (table.version(), table.moves_logged()) == before
