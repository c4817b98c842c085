"""A message with a move: one POST makes the move and says the message, in one transaction; a refused message
refuses the move too, on a page that keeps the text; an empty message is just a move."""

from __future__ import annotations

import html
import re

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from engine.call_to_glory import TYPES
from pbem import db, flows
from pbem.core import games, talk
from pbem.models import Message
from tests.apps import CSRF, Table, form_fields, new_table
from tests.mail.conftest import SMTPServer, deliver, make_mail_app, smtp_app, smtp_server  # noqa: F401 (fixtures)

FORM = re.compile(r'<form method="post" action="(/play/[^"]+)">(.*?)</form>', re.DOTALL)
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def first_move_form(page: str) -> tuple[str, dict[str, str]]:
    """The action and the fields of the first move button in the choices of a page."""
    choices = page.split('<section class="choices">')[1]
    found = FORM.search(choices)
    assert found, "the page offers a move"
    return found.group(1), {k: html.unescape(v) for k, v in HIDDEN.findall(found.group(2))}


def messages(app: Flask) -> list[str]:
    with app.app_context():
        return [m.text for m in db.get_session().exec(select(Message).order_by(Message.id))]  # type: ignore[arg-type]


def finish_ann_turn(app: Flask, table: Table) -> None:
    """ann's turn after her first draw: the second draw, then a discard."""
    with app.app_context(), db.write_session() as session:
        move = {"do": "draw", "pile": "draw2"}
        flows.play.move(
            session=session, game_id=table.game_id, seat=0, move=move, decision=table.state().ply, source="page"
        )
    state = table.state()
    kind = next(t for t in range(9) if state.hands[0][t])
    with app.app_context(), db.write_session() as session:
        discard = {"do": "discard", "type": TYPES[kind]}
        flows.play.move(session=session, game_id=table.game_id, seat=0, move=discard, decision=state.ply, source="page")


def test_a_move_with_a_message_reaches_the_next_player_on_the_page_and_by_email(
    smtp_app: Flask,  # noqa: F811
    smtp_server: SMTPServer,  # noqa: F811
) -> None:
    app = smtp_app
    client = app.test_client()
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    table = new_table(app, specs, seed=1)
    deliver(app)
    smtp_server.clear()
    token = table.personal(0)
    page = client.get(f"/play/{token}").text
    choices = page.split('<section class="choices">')[1].split("</section>")[0]
    message_form = re.search(
        r'<form id="with-move" method="post" action="[^"]+" class="with-message">(.*?)</form>', choices, re.S
    )
    assert message_form, "one message form in the choices"
    fields = {k: html.unescape(v) for k, v in HIDDEN.findall(message_form.group(1))}
    assert set(fields) == {"csrf_token", "via"} and 'name="say"' in message_form.group(1)
    buttons = re.findall(r'<button type="submit" class="[^"]*" form="with-move" formaction="([^"]+)">', choices)
    assert buttons and len(buttons) == choices.count("<button") - 1, "every move button sends the message form"
    assert 'method="get"' not in page and "?say=" not in page, "no page reload to add the message"
    talk = page.split('<section class="talk" id="talk">')[1].split("</section>")[0]
    assert "Say it" not in talk, "one place to write while choosing: with the move"
    settings = page.split('class="panel quiet settings"')[1:]
    assert all('form="with-move"' not in part.split("</section>")[0] for part in settings), "settings carry none"
    version = table.version()
    response = client.post(html.unescape(buttons[0]), data={**fields, "say": "Watch out <b>bob</b>"})
    assert response.status_code == 303
    assert table.version() == version + 1 and messages(app) == ["Watch out <b>bob</b>"]
    with app.app_context():
        [move] = games.move_log(session=db.get_session(), game_id=table.game_id)
    assert move.source == "page", "a page's button, though it posts to the move's link"
    bob_page = client.get(f"/play/{table.personal(1)}").text
    assert "Watch out &lt;b&gt;bob&lt;/b&gt;" in bob_page
    finish_ann_turn(app, table)
    deliver(app)
    [turn] = [m for m in smtp_server.messages if "bob@example.com" in m.envelope_to and "Your turn" in m["Subject"]]
    text = turn.get_body(("plain",))
    assert text is not None and "ann said: “Watch out <b>bob</b>”" in str(text.get_content())
    body = turn.get_body(("html",))
    assert body is not None and "Watch out &lt;b&gt;bob&lt;/b&gt;" in str(body.get_content())


def test_the_confirm_page_of_a_move_link_takes_a_message(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.move_token(0, {"do": "draw", "pile": "draw1"})
    page = client.get(f"/play/{token}").text
    confirm = page.split('<section class="confirm">')[1].split("</section>")[0]
    assert 'name="say"' in confirm
    csrf, _ = form_fields(page)
    response = client.post(f"/play/{token}", data={"csrf_token": csrf, "say": "Here I go"})
    assert response.status_code == 303 and table.moves_logged() == 1 and messages(app) == ["Here I go"]


def test_an_empty_message_is_just_a_move(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.move_token(0, {"do": "draw", "pile": "draw1"})
    csrf, _ = form_fields(client.get(f"/play/{token}").text)
    assert client.post(f"/play/{token}", data={"csrf_token": csrf, "say": "   "}).status_code == 303
    assert table.moves_logged() == 1 and messages(app) == []


def test_a_bad_message_refuses_the_move_and_keeps_the_text(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    page = client.get(f"/play/{token}").text
    action, fields = first_move_form(page)
    version = table.version()
    long = "é" * (talk.LONGEST + 1)
    response = client.post(action, data={**fields, "say": long})
    assert response.status_code == 400
    assert table.version() == version and table.moves_logged() == 0 and messages(app) == []
    kept = response.text
    assert f'value="{long}"' in kept and "at most 280 characters" in kept
    # the page offers the same move again, with the text to fix: sent as it is changed, it goes through
    again = {k: html.unescape(v) for k, v in HIDDEN.findall(kept)}
    assert {k: v for k, v in again.items() if k != "csrf_token"} == {
        k: v for k, v in fields.items() if k != "csrf_token"
    }
    assert client.post(action, data={**again, "say": long[: talk.LONGEST]}).status_code == 303
    assert table.version() == version + 1 and messages(app) == [long[: talk.LONGEST]]


def test_the_rate_limit_refuses_the_move_too(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    for i in range(talk.PER_WINDOW):
        csrf, _ = form_fields(client.get(f"/play/{token}").text)
        assert client.post(f"/play/{token}/say", data={"csrf_token": csrf, "message": f"hi {i}"}).status_code == 303
    action, fields = first_move_form(client.get(f"/play/{token}").text)
    response = client.post(action, data={**fields, "say": "one more"})
    assert response.status_code == 429 and response.headers["Retry-After"] == str(talk.WINDOW.seconds)
    assert 'value="one more"' in response.text
    assert table.moves_logged() == 0 and len(messages(app)) == talk.PER_WINDOW
    csrf = CSRF.search(response.text)
    assert csrf
    assert client.post(action, data={**fields, "csrf_token": csrf.group(1), "say": ""}).status_code == 303
    assert table.moves_logged() == 1, "without the message the move goes through"


def test_a_message_with_a_move_already_played_is_not_sent(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.move_token(0, {"do": "draw", "pile": "draw1"})
    csrf, _ = form_fields(client.get(f"/play/{token}").text)
    assert client.post(f"/play/{token}", data={"csrf_token": csrf, "say": "first"}).status_code == 303
    again = client.post(f"/play/{token}", data={"csrf_token": csrf, "say": "second"}, follow_redirects=True)
    assert "Already played." in again.text and "Your message was not sent." in again.text
    assert table.moves_logged() == 1 and messages(app) == ["first"]
