"""What the head of a seat's page says: whose turn, or a paused or stopped game instead; and a page that follows
the game by itself (a plain GET) while the seat has nothing to decide."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from pbem import admin, db
from pbem.audit import Actor
from pbem.models import utcnow
from tests.apps import Table

REFRESH = '<meta http-equiv="refresh"'
ORGANISER = Actor(id=0, name="org")


def page(client: FlaskClient, table: Table, position: int) -> str:
    response = client.get(f"/play/{table.personal(position)}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_the_seat_to_act_is_asked_and_the_others_follow_by_themselves(client: FlaskClient, table: Table) -> None:
    mine = page(client, table, 0)
    assert "Your turn." in mine and REFRESH not in mine
    other = page(client, table, 1)
    assert "Waiting for <strong>ann</strong>" in other and f'{REFRESH} content="60">' in other


def test_a_paused_game_says_so_instead_of_your_turn(app: Flask, client: FlaskClient, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        admin.pause_game(session=session, game_id=table.game_id, actor=ORGANISER, reason="back on Monday", now=utcnow())
    html = page(client, table, 0)
    assert "This game is paused." in html and "back on Monday" in html
    assert "Your turn." not in html and 'class="choices"' not in html and REFRESH not in html


def test_a_stopped_game_says_the_organiser_stopped_it(app: Flask, client: FlaskClient, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        admin.abort_game(session=session, game_id=table.game_id, actor=ORGANISER, reason="we moved away", now=utcnow())
    for position in (0, 1):
        html = page(client, table, position)
        assert "This game was stopped by the organiser." in html and "we moved away" in html
        assert "Your turn." not in html and "This game is paused" not in html and REFRESH not in html
