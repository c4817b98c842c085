"""The organiser tells the players (issue 27, point 8), through the admin page as the organiser uses it, with the
emails received by a real SMTP server, in English, Dutch and French: aborting a game emails every player why;
giving a seat to someone else asks for the new person's name, greets them by it with an invitation to the game
under way, and tells the person who played the seat."""

from __future__ import annotations

import re
from email.message import EmailMessage

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import admin
from tests.apps import Table
from tests.mail.conftest import SMTPServer, deliver

from .conftest import actions_of, create_table, csrf_of

WORDS = {
    "en": {
        "ended": "The game was ended early",
        "why": "The organiser ended the game early: no time.",
        "hello": "Hello Dirk,",
        "over": "You take over Cécile's seat in Admin game, a game of Call to Glory already under way (now: Round 1).",
        "subject": "You take over a seat",
        "gone": "The organiser gave your seat in Admin game (Cécile) to someone else",
    },
    "nl": {
        "ended": "Het spel is voortijdig beëindigd",
        "why": "De organisator heeft het spel voortijdig beëindigd: no time.",
        "hello": "Hallo Dirk,",
        "over": (
            "Je neemt de plaats van Cécile over in Admin game, een spel Call to Glory dat al bezig is (nu: Ronde 1)."
        ),
        "subject": "Je neemt een plaats over",
        "gone": "De organisator heeft je plaats in Admin game (Cécile) aan iemand anders gegeven",
    },
    "fr": {
        "ended": "La partie a été arrêtée avant la fin",
        "why": "L'organisateur a arrêté la partie avant la fin\u202f: no time.",
        "hello": "Bonjour Dirk,",
        "over": (
            "Vous reprenez la place de Cécile dans Admin game, une partie de Call to Glory déjà en cours "
            "(en ce moment\u202f: Manche 1)."
        ),
        "subject": "Vous reprenez une place",
        "gone": "L'organisateur a donné votre place dans Admin game (Cécile) à quelqu'un d'autre",
    },
}


def table_in(app: Flask, organiser: admin.Actor, lang: str) -> Table:
    seats = [
        admin.SeatInput("human", "ann", "ann@example.com", lang, "Europe/Amsterdam"),
        admin.SeatInput("human", "Cécile", "cecile@example.com", lang, "Europe/Paris"),
        admin.SeatInput("heuristic"),
    ]
    return create_table(app, organiser, seats=seats)


def act(client: FlaskClient, table: Table, action: str, **form: str) -> None:
    """One action of the game page, asked and confirmed as the organiser does it."""
    csrf = csrf_of(client, f"/admin/games/{table.game_id}")
    path = f"/admin/games/{table.game_id}/{action}"
    asked = client.post(path, data={"csrf_token": csrf, **form})
    assert asked.status_code == 200 and 'name="confirm" value="yes"' in asked.get_data(as_text=True)
    done = client.post(path, data={"csrf_token": csrf, "confirm": "yes", **form})
    assert done.status_code == 303 and "draft=" not in done.location, done.location


def plain(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    return re.sub(r"[ \t\n]+", " ", str(body.get_content()))


def to(server: SMTPServer, address: str) -> list[EmailMessage]:
    return [m for m in server.messages if address in m["To"]]


@pytest.mark.parametrize("lang", ["en", "nl", "fr"])
def test_aborting_a_game_emails_every_player_why_in_their_language(
    smtp_app: Flask,
    smtp_server: SMTPServer,
    app: Flask,
    admin_client: FlaskClient,
    organiser: admin.Actor,
    lang: str,
) -> None:
    table = table_in(app, organiser, lang)
    deliver(smtp_app)
    smtp_server.clear()
    act(admin_client, table, "abort", reason="no time")
    deliver(smtp_app)
    words = WORDS[lang]
    for address in ("ann@example.com", "cecile@example.com"):
        (told,) = to(smtp_server, address)
        assert told["Subject"] == f"Admin game · {words['ended']}"
        text = plain(told)
        assert words["why"] in text and "/play/" in text, text
    assert len(smtp_server.messages) == 2, "the bot gets nothing"
    deliver(smtp_app)
    assert len(smtp_server.messages) == 2, "once"


@pytest.mark.parametrize("lang", ["en", "nl", "fr"])
def test_a_seat_given_to_someone_else_greets_them_and_tells_the_one_it_was(
    smtp_app: Flask,
    smtp_server: SMTPServer,
    app: Flask,
    admin_client: FlaskClient,
    organiser: admin.Actor,
    lang: str,
) -> None:
    table = table_in(app, organiser, lang)
    deliver(smtp_app)
    smtp_server.clear()
    act(
        admin_client,
        table,
        "hand",
        seat="2",
        kind="human",
        person="Dirk",
        email="dirk@example.com",
        language=lang,
        timezone="Europe/Brussels",
    )
    deliver(smtp_app)
    words = WORDS[lang]
    (invitation,) = to(smtp_server, "dirk@example.com")
    assert invitation["Subject"] == f"Admin game · {words['subject']}"
    assert "Dirk" in invitation["To"]
    text = plain(invitation)
    assert text.startswith(words["hello"]) and words["over"] in text, text
    html = invitation.get_body(("html",))
    assert html is not None and "Dirk" in str(html.get_content())
    (gone,) = to(smtp_server, "cecile@example.com")
    assert words["gone"] in plain(gone)
    assert not to(smtp_server, "ann@example.com"), "the others hear of it in their next email"
    assert "Dirk" in (actions_of(app, table.game_id)[-1].detail or "")
