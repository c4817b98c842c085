"""The organiser hides a table-talk message from the game's page (a logged action)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import db
from pbem.core import talk
from pbem.models import AdminAction, Message, utcnow
from tests.admin.conftest import csrf_of, refused
from tests.apps import Table


def test_the_organiser_hides_a_message_from_the_game_page(
    app: Flask, admin_client: FlaskClient, adm_table: Table
) -> None:
    with app.app_context(), db.write_session() as session:
        talk.say(session=session, game_id=adm_table.game_id, seat=0, text="a rude word", nonce_tag=None, now=utcnow())
    page = admin_client.get(f"/admin/games/{adm_table.game_id}").text
    assert "a rude word" in page and "Hide this message" in page
    with app.app_context():
        message = db.get_session().exec(select(Message)).one()
    data = {"csrf_token": csrf_of(admin_client, "/admin/"), "message": str(message.id)}
    response = admin_client.post(f"/admin/games/{adm_table.game_id}/hide", data=data)
    assert response.status_code == 303
    assert "a rude word" not in admin_client.get(f"/admin/games/{adm_table.game_id}").text.split('id="log"')[0]
    with app.app_context():
        assert db.get_session().exec(select(Message)).one().hidden_at is not None
        actions = [a.action for a in db.get_session().exec(select(AdminAction))]
    assert "hide_message" in actions
    bad = {"csrf_token": csrf_of(admin_client, "/admin/"), "message": "x"}
    refused(admin_client, admin_client.post(f"/admin/games/{adm_table.game_id}/hide", data=bad))
