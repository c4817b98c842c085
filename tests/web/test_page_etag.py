"""A seat's page carries an ETag: a repeat GET of an unchanged page (a browser, a mail scanner's second visit) is
answered 304 without a page; a move, a setting, a language, a message or another seat gives another tag."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from pbem import admin, db, timing
from pbem.core import seats as seat_rows
from pbem.core.audit import Actor
from tests.apps import Table, form_fields


def tag_of(client: FlaskClient, token: str) -> str:
    """The page's ETag for ``client`` (whose session, once it has one, is part of it)."""
    client.get(f"/play/{token}")
    response = client.get(f"/play/{token}")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    assert response.get_data(as_text=True).startswith("<!doctype html>")
    etag = response.headers["ETag"]
    assert etag
    return etag


def again(client: FlaskClient, token: str, etag: str) -> int:
    return client.get(f"/play/{token}", headers={"If-None-Match": etag}).status_code


def test_a_repeat_get_of_an_unchanged_page_is_answered_304_without_a_page(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    etag = tag_of(client, token)
    response = client.get(f"/play/{token}", headers={"If-None-Match": etag})
    assert response.status_code == 304 and response.get_data() == b"" and response.headers["ETag"] == etag
    assert again(client, token, '"something else"') == 200


def test_a_mail_scanner_without_cookies_gets_304_on_its_second_visit(app: Flask, table: Table) -> None:
    token = table.personal(1)
    first, second = app.test_client(use_cookies=False), app.test_client(use_cookies=False)
    etag = tag_of(first, token)
    assert again(second, token, etag) == 304


def test_seats_never_share_a_tag(client: FlaskClient, table: Table) -> None:
    tags = [tag_of(client, table.personal(p)) for p in range(3)]
    assert len(set(tags)) == 3
    assert again(client, table.personal(1), tags[0]) == 200


def test_a_move_gives_every_seat_a_new_tag(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    etag, other = tag_of(client, token), tag_of(client, table.personal(1))
    link = table.move_token(0, {"do": "draw", "pile": "draw1"})
    csrf, _decision = form_fields(client.get(f"/play/{link}").get_data(as_text=True))
    assert client.post(f"/play/{link}", data={"csrf_token": csrf}).status_code == 303
    shown = client.get(f"/play/{token}", headers={"If-None-Match": etag})  # with the notice "Done: …"
    assert shown.status_code == 200 and "Done:" in shown.get_data(as_text=True)
    assert "ETag" not in shown.headers  # a page with a notice is not kept
    assert again(client, token, etag) == 200
    assert again(client, table.personal(1), other) == 200


def test_a_changed_setting_or_language_gives_a_new_tag(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    etag = tag_of(client, token)
    with app.app_context(), db.write_session() as session:
        seat = seat_rows.seats_of(session=session, game_id=table.game_id)[0]
        seat_rows.set_reminders(session=session, seat=seat, on=False)
    assert again(client, token, etag) == 200
    etag = tag_of(client, token)
    with app.app_context(), db.write_session() as session:
        seat = seat_rows.seats_of(session=session, game_id=table.game_id)[0]
        seat_rows.set_language(session=session, seat=seat, language="nl")
    assert again(client, token, etag) == 200
    assert "Jouw beurt" in client.get(f"/play/{token}").get_data(as_text=True)


def test_a_pause_or_a_message_gives_a_new_tag(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.personal(1)
    etag = tag_of(client, token)
    with app.app_context(), db.write_session() as session:
        admin.pause_game(
            session=session, game_id=table.game_id, actor=Actor(id=0, name="org"), reason="a break", now=timing.now()
        )
    assert again(client, token, etag) == 200
    etag = tag_of(client, token)
    html = client.get(f"/play/{table.personal(0)}").get_data(as_text=True)
    csrf, _decision = form_fields(html)
    said = client.post(f"/play/{table.personal(0)}/say", data={"csrf_token": csrf, "message": "hello"})
    assert said.status_code == 303
    assert again(client, token, etag) == 200
