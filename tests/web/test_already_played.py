"""A used move link says what was actually played at its decision, by whom and when, not the link's own move."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from pbem import db, flows, i18n
from pbem.core import games
from tests.apps import Table, form_fields

PLAYED = re.compile(
    r"This choice was already made\. ann played on (\w+day \d+ \w+ \d{4}, \d\d:\d\d \(UTC\)): (.+?) Here"
)


def play_draw2(app: Flask, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        move, ply = {"do": "draw", "pile": "draw2"}, table.state().ply
        flows.play.move(session=session, game_id=table.game_id, seat=0, move=move, decision=ply, source="page")


def confirm_section(page: str) -> str:
    return page.split('<section class="confirm">')[1].split("</section>")[0]


def test_a_used_link_names_the_move_that_was_made(app: Flask, client: FlaskClient, table: Table) -> None:
    link = table.move_token(0, {"do": "draw", "pile": "draw1"})
    csrf, _ = form_fields(client.get(f"/play/{link}").text)
    play_draw2(app, table)  # ann chose the other pile on her page
    section = confirm_section(client.get(f"/play/{link}").text)
    assert "Already played" in section and 'name="csrf_token"' not in section
    found = PLAYED.search(" ".join(section.split()))
    assert found, section
    when, what = found.groups()
    with app.app_context():
        [record] = games.move_log(session=db.get_session(), game_id=table.game_id)
        assert when == i18n.when(record.created_at, "UTC")
    assert "pile 2" in what and "pile 1" not in what, "the move made, not the link's"
    response = client.post(f"/play/{link}", data={"csrf_token": csrf}, follow_redirects=True)
    assert response.status_code == 200 and table.moves_logged() == 1
    notice = " ".join(response.text.split('class="flash notice">')[1].split("</p>")[0].split())
    assert notice.startswith(f"Already played. This choice was already made. ann played on {when}: {what}")


def test_a_decision_the_log_never_saw_is_just_already_made(app: Flask, client: FlaskClient, table: Table) -> None:
    link = table.move_token(0, {"do": "draw", "pile": "draw1"}, decision=table.state().ply + 40)
    section = " ".join(confirm_section(client.get(f"/play/{link}").text).split())
    assert "This choice was already made. Here is the game as it is now." in section
    assert "pile 1" not in section


def test_a_move_not_possible_at_an_open_decision_is_not_called_played(client: FlaskClient, table: Table) -> None:
    link = table.move_token(0, {"do": "discard", "type": "farmer"})  # a discard before drawing: not now
    section = confirm_section(client.get(f"/play/{link}").text)
    assert "Not possible now" in section and "already" not in section
