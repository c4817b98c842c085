"""The organiser hides a table-talk message from the game's page (a logged action)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import db, timing
from pbem.core import talk
from pbem.models import AdminAction, Message
from tests.admin.conftest import csrf_of, refused
from tests.apps import Table


def test_the_organiser_hides_a_message_from_the_game_page(
    app: Flask, admin_client: FlaskClient, adm_table: Table
) -> None:
    with app.app_context(), db.write_session() as session:
        talk.say(
            session=session, game_id=adm_table.game_id, seat=0, text="a rude word", nonce_tag=None, now=timing.now()
        )
    page = admin_client.get(f"/admin/games/{adm_table.game_id}").text
    assert "a rude word" in page and "Hide this message" in page
    with app.app_context():
        message = db.get_session().exec(select(Message)).one()
    data = {"csrf_token": csrf_of(admin_client, "/admin/"), "message": str(message.id)}
    response = admin_client.post(f"/admin/games/{adm_table.game_id}/hide", data=data)
    assert response.status_code == 303
    talk_part = admin_client.get(f"/admin/games/{adm_table.game_id}").text.split('id="talk"')[1].split("</section>")[0]
    assert 'class="hidden-message"' in talk_part and "a rude word" in talk_part, "the organiser still sees it"
    assert "hidden from the players" in talk_part and "Show this message again" in talk_part
    assert "Hide this message" not in talk_part
    with app.app_context():
        assert db.get_session().exec(select(Message)).one().hidden_at is not None
        names = {0: "ann"}
        assert talk.said(session=db.get_session(), game_id=adm_table.game_id, names=names) == []
        actions = [a.action for a in db.get_session().exec(select(AdminAction))]
    assert "hide_message" in actions
    player_page = app.test_client().get("/play/" + adm_table.personal(1)).text
    assert "a rude word" not in player_page, "the players no longer see it"
    data = {"csrf_token": csrf_of(admin_client, "/admin/"), "message": str(message.id)}
    assert admin_client.post(f"/admin/games/{adm_table.game_id}/unhide", data=data).status_code == 303
    with app.app_context():
        assert db.get_session().exec(select(Message)).one().hidden_at is None
        actions = [a.action for a in db.get_session().exec(select(AdminAction))]
    assert actions[-1] == "show_message"
    assert "a rude word" in app.test_client().get("/play/" + adm_table.personal(1)).text, "shown to the table again"
    talk_part = admin_client.get(f"/admin/games/{adm_table.game_id}").text.split('id="talk"')[1]
    assert "Hide this message" in talk_part.split("</section>")[0]
    bad = {"csrf_token": csrf_of(admin_client, "/admin/"), "message": "x"}
    refused(admin_client, admin_client.post(f"/admin/games/{adm_table.game_id}/hide", data=bad))
