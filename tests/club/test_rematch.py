"""Rematch: a player asks to play again from the game-over page (the organiser is told), and the organiser makes
the rematch in one click: the same people, game and options, seats rotated, new invitations."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

from engine import call_to_glory as glory
from engine.call_to_glory import Options
from pbem import admin, db, flows
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.models import Game
from tests.admin.conftest import assert_page, outbox_rows
from tests.apps import CSRF, Table, new_table

ORG = "org@example.com"


def finished(app: Flask) -> Table:
    """ann and bob by email, one round, played to the end with the bots' choices through the service."""
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob", email="bob@example.com")]
    table = new_table(app, specs, seed=11, options=Options(rounds=1), organiser_email=ORG, name="Club night")
    while not table.state().is_finished:
        state = table.state()
        player = state.current_player or ""
        move = games.move_body(games.bot_move(glory.GAME, state, player))
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session,
                game_id=table.game_id,
                seat=list(state.players).index(player),
                move=move,
                decision=state.ply,
                source="page",
            )
    return table


def csrf(html: str) -> str:
    found = CSRF.search(html)
    assert found
    return found.group(1)


def game(app: Flask, game_id: int) -> Game:
    with app.app_context():
        return seat_rows.get_game(session=db.get_session(), game_id=game_id)


def test_a_player_asks_to_play_again_from_the_game_over_page(
    app: Flask, client: FlaskClient, admin_client: FlaskClient
) -> None:
    table = finished(app)
    page = client.get(f"/play/{table.personal(0)}")
    assert "Play again" in page.text and re.search(r'action="/play/[^"]+/again"', page.text)
    asked = client.post(f"/play/{table.personal(0)}/again", data={"csrf_token": csrf(page.text)})
    assert asked.status_code == 303
    assert table.seat(0).again_at is not None and table.seat(1).again_at is None
    [notice] = outbox_rows(app, table.game_id, "organiser")
    assert notice.to_addr == ORG and "ann would like to play again" in notice.subject
    shown = client.get(asked.location).text
    assert "You asked the organiser to play again." in shown
    client.post(f"/play/{table.personal(0)}/again", data={"csrf_token": csrf(shown)})
    assert len(outbox_rows(app, table.game_id, "organiser")) == 1, "asking twice tells the organiser once"
    assert_page(admin_client.get(f"/admin/games/{table.game_id}"), 200, "Asked to play again:", "<strong>ann</strong>")


def test_play_again_needs_a_finished_game_and_a_form(app: Flask, client: FlaskClient, table: Table) -> None:
    page = client.get(f"/play/{table.personal(0)}")
    assert not re.search(r'action="/play/[^"]+/again"', page.text)
    early = client.post(f"/play/{table.personal(0)}/again", data={"csrf_token": csrf(page.text)})
    assert early.status_code == 409 and table.seat(0).again_at is None
    assert client.post(f"/play/{table.personal(0)}/again").status_code == 400, "no CSRF token, no request"


def test_the_organiser_makes_the_rematch_in_one_click(app: Flask, admin_client: FlaskClient) -> None:
    table = finished(app)
    page = assert_page(admin_client.get(f"/admin/games/{table.game_id}"), 200, "Rematch")
    made = admin_client.post(f"/admin/games/{table.game_id}/rematch", data={"csrf_token": csrf(page)})
    assert made.status_code == 303 and "draft" not in made.location
    old = game(app, table.game_id)
    with app.app_context():
        new = db.get_session().exec(select(Game).where(col(Game.rematch_of) == old.id)).one()
    assert new.id is not None
    rematch = Table(app, new.id)
    fresh = game(app, new.id)
    assert (fresh.name, fresh.game, fresh.status) == ("Club night #2", old.game, games.INVITED)
    assert fresh.options == old.options and fresh.policy == old.policy and fresh.organiser_email == ORG
    assert [s.name for s in (rematch.seat(0), rematch.seat(1))] == ["bob", "ann"], "seats rotated"
    assert rematch.seat(1).email == "ann@example.com"
    invitations = outbox_rows(app, new.id, "invitation")
    assert sorted(e.to_addr for e in invitations) == ["ann <ann@example.com>", "bob <bob@example.com>"]
    assert all("Will you play?" in e.subject for e in invitations)
    shown = assert_page(admin_client.get(f"/admin/games/{table.game_id}"), 200, f"game {new.id}")
    again = admin_client.post(f"/admin/games/{table.game_id}/rematch", data={"csrf_token": csrf(shown)})
    assert "draft" in again.location, "one rematch per game"
    assert_page(admin_client.get(again.location), 200, "already has its rematch")
    # both accept: the rematch starts
    player = admin_client.application.test_client()
    for position in (0, 1):
        token = rematch.personal(position)
        answer_page = player.get(f"/play/{token}")
        player.post(f"/play/{token}/answer", data={"csrf_token": csrf(answer_page.text), "answer": "accept"})
    assert game(app, new.id).status == "playing" and rematch.verify()


def test_a_running_game_has_no_rematch(app: Flask, admin_client: FlaskClient, organiser: admin.Actor) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob", email="bob@example.com")]
    table = new_table(app, specs, seed=3)
    page = admin_client.get(f"/admin/games/{table.game_id}").text
    assert f"/admin/games/{table.game_id}/rematch" not in page
    refused = admin_client.post(f"/admin/games/{table.game_id}/rematch", data={"csrf_token": csrf(page)})
    assert "draft" in refused.location
    with app.app_context():
        assert db.get_session().exec(select(Game).where(col(Game.rematch_of).is_not(None))).all() == []
