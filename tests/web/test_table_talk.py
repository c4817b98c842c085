"""Table talk: a short message to the table, escaped, limited, shown to the others on their page and in their
next email; the organiser can hide one."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import admin, db, flows
from pbem.core import errors, talk
from pbem.core.audit import Actor
from pbem.models import Message, OutboxEmail
from tests.apps import CSRF, Table, form_fields
from tests.mail.conftest import deliver

ORGANISER = Actor(id=0, name="org")


def say(client: FlaskClient, table: Table, position: int, text: str) -> int:
    token = table.personal(position)
    csrf, _ = form_fields(client.get(f"/play/{token}").text)
    return client.post(f"/play/{token}/say", data={"csrf_token": csrf, "message": text}).status_code


def turn_emails_to(app: Flask, address: str) -> list[OutboxEmail]:
    deliver(app)  # the sender renders them
    with app.app_context():
        rows = db.get_session().exec(select(OutboxEmail).where(OutboxEmail.kind == "turn"))
        return [r for r in rows if address in r.to_addr]


def play_ann_turn(app: Flask, table: Table) -> None:
    for move in ({"do": "draw", "pile": "draw1"}, {"do": "draw", "pile": "draw2"}):
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session, game_id=table.game_id, seat=0, move=move, decision=table.state().ply, source="page"
            )
    state = table.state()
    kind = next(t for t in range(9) if state.hands[0][t])
    from engine.call_to_glory import TYPES

    with app.app_context(), db.write_session() as session:
        discard = {"do": "discard", "type": TYPES[kind]}
        flows.play.move(session=session, game_id=table.game_id, seat=0, move=discard, decision=state.ply, source="page")


def test_a_message_reaches_the_others_page_escaped_and_their_next_email(
    app: Flask, client: FlaskClient, table: Table
) -> None:
    assert say(client, table, 0, "Good luck <script>alert(1)</script> all!") == 303
    page = client.get(f"/play/{table.personal(1)}").text
    assert "Good luck &lt;script&gt;alert(1)&lt;/script&gt; all!" in page and "<script>alert" not in page
    play_ann_turn(app, table)
    [email] = turn_emails_to(app, "bob@example.com")
    assert "ann said: “Good luck <script>alert(1)</script> all!”" in email.text_body
    assert "&lt;script&gt;" in email.html_body and "<script>" not in email.html_body
    assert not any("ann said" in e.text_body for e in turn_emails_to(app, "ann@example.com")), "not back to ann"


def test_messages_are_short_single_lines_and_limited(app: Flask, client: FlaskClient, table: Table) -> None:
    assert say(client, table, 1, "x" * 281) == 400
    assert say(client, table, 1, "two\nlines") == 400
    assert say(client, table, 1, "   ") == 400
    assert [say(client, table, 1, f"hello {i}") for i in range(talk.PER_WINDOW)] == [303] * talk.PER_WINDOW
    token = table.personal(1)
    csrf, _ = form_fields(client.get(f"/play/{token}").text)
    response = client.post(f"/play/{token}/say", data={"csrf_token": csrf, "message": "once more"})
    assert response.status_code == 429 and response.headers["Retry-After"] == str(talk.WINDOW.seconds)
    assert client.post(f"/play/{token}/say", data={"message": "no token"}).status_code == 400


def test_the_organiser_hides_a_message(app: Flask, client: FlaskClient, table: Table) -> None:
    assert say(client, table, 0, "something rude") == 303
    with app.app_context():
        message = db.get_session().exec(select(Message)).one()
    with app.app_context(), db.write_session() as session:
        admin.hide_message(session=session, game_id=table.game_id, message_id=message.id or 0, actor=ORGANISER)
    assert "something rude" not in client.get(f"/play/{table.personal(1)}").text
    play_ann_turn(app, table)
    assert not any("something rude" in e.text_body for e in turn_emails_to(app, "bob@example.com"))
    wrong = (message.id or 0) + 1
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="no such message"):
        admin.hide_message(session=session, game_id=table.game_id, message_id=wrong, actor=ORGANISER)


def test_a_stopped_game_closes_the_table(app: Flask, client: FlaskClient, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        admin.abort_game(session=session, game_id=table.game_id, actor=ORGANISER)
    token = table.personal(0)
    assert 'action="/play/' not in client.get(f"/play/{token}").text.split('id="talk"')[1].split("</section>")[0]
    found = CSRF.search(client.get("/").text)
    assert found
    csrf = found.group(1)
    assert client.post(f"/play/{token}/say", data={"csrf_token": csrf, "message": "hello"}).status_code in (400, 409)
