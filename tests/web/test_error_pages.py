"""Every error page says what to do next and links somewhere that works: the front door's lost-links form, the
admin login, the fresh-link button, or the player's own page when the game refused a POST from it.

Each case is reached through HTTP as a person meets it, and each way forward is followed to check that it leads
to a working page (not to another error).
"""

from __future__ import annotations

import html
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select
from werkzeug.test import TestResponse

from pbem import admin, db
from pbem.core import games, talk
from pbem.core.audit import Actor
from pbem.models import OutboxEmail
from tests.apps import Table, form_fields, new_table
from tests.mail.conftest import deliver

from .forge import assert_error_page, days_ago, delete_game, signed_at

ORGANISER = Actor(id=0, name="org")
LINK = re.compile(r'<a href="([^"]+)">([^<]+)</a>')
ERROR_SECTION = re.compile(r'<section class="error">(.*?)</section>', re.DOTALL)
WHAT_NOW = "What now? Your latest email about your game has its current link."


def error_links(response: TestResponse) -> dict[str, str]:
    """The links of the page's error section: text → address."""
    found = ERROR_SECTION.search(response.get_data(as_text=True))
    assert found, "an error section"
    return {text: href for href, text in LINK.findall(found.group(1))}


def assert_way_forward(client: FlaskClient, response: TestResponse) -> None:
    """The page says what to do next, and its links reach the lost-links form and the admin login."""
    assert WHAT_NOW in response.get_data(as_text=True)
    links = error_links(response)
    front = client.get(links["Get the links of your games by email"])
    assert front.status_code == 200
    assert 'action="/lost-links"' in front.text and 'name="address"' in front.text, "the lost-links form"
    organiser = client.get(links["The admin page"], follow_redirects=True)
    assert organiser.status_code == 200
    assert 'name="password"' in organiser.text, "the admin login"


def assert_back_to_page(client: FlaskClient, response: TestResponse, table: Table, position: int) -> None:
    """The page links back to the player's own page, which opens."""
    page = client.get(error_links(response)["Back to your page"])
    assert page.status_code == 200
    assert f"you are <strong><bdi>{table.seat(position).name}</bdi></strong>" in page.text


def test_an_invalid_link(client: FlaskClient) -> None:
    response = client.get("/play/not-a-token")
    assert_error_page(response, 400, "This request is not valid", "This link is not valid")
    assert "Back to your page" not in response.text
    assert_way_forward(client, response)


def test_a_replaced_link_of_a_seat_handed_to_someone_else(app: Flask, client: FlaskClient, table: Table) -> None:
    old = table.personal(0)
    with app.app_context(), db.write_session() as session:
        admin.hand_seat(
            session=session, game_id=table.game_id, seat=0, kind="human", email="zed@example.com", actor=ORGANISER
        )
    for response in (client.get(f"/play/{old}"), client.get(f"/play/{old}/log")):
        assert_error_page(response, 410, "This link is no longer valid", "replaced by a newer one")
        assert_way_forward(client, response)
    assert client.get(f"/play/{table.personal(0)}").status_code == 200, "the new player's link works"


def test_an_expired_link_offers_a_fresh_one(app: Flask, client: FlaskClient, table: Table) -> None:
    with signed_at(days_ago(app.config["PERSONAL_LINK_DAYS"] + 1)):
        old = table.personal(0)
    response = client.get(f"/play/{old}")
    assert_error_page(response, 410, "This link has expired", "ask for a fresh one")
    [(action, fields)] = [
        (m.group(1), m.group(2))
        for m in re.finditer(r'<form method="post" action="([^"]+)">(.*?)</form>', response.text, re.DOTALL)
    ]
    assert action == "/fresh-link" and "Email me a fresh link" in fields
    csrf, _ = form_fields(response.text)
    sent = client.post(action, data={"csrf_token": csrf, "token": old})
    assert sent.status_code == 200 and "Check your email" in sent.text
    deliver(app)
    with app.app_context():
        [email] = db.get_session().exec(select(OutboxEmail).where(OutboxEmail.kind == "fresh_link"))
    assert email.to_addr == "ann <ann@example.com>", "the fresh link goes to the seat's address"
    fresh = re.search(r"http://127\.0\.0\.1:5000(/play/\S+)", email.text_body)
    assert fresh, email.text_body
    assert client.get(fresh.group(1)).status_code == 200, "the emailed fresh link opens the seat's page"


@pytest.mark.parametrize("path", ["/no-such-page", "/how-to-play/no-such-game", "/play/{gone}"])
def test_not_found(app: Flask, client: FlaskClient, table: Table, path: str) -> None:
    gone = table.personal(2)
    delete_game(app, table.game_id)
    response = client.get(path.format(gone=gone))
    assert_error_page(response, 404, "Not found")
    assert_way_forward(client, response)


@pytest.mark.parametrize("path", ["/lost-links", "/fresh-link"])
def test_method_not_allowed(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert_error_page(response, 405, "Not allowed")
    assert "POST" in response.headers["Allow"]
    assert_way_forward(client, response)


def test_too_many_lost_links_requests(client: FlaskClient) -> None:
    csrf, _ = form_fields(client.get("/").text)
    answers = [client.post("/lost-links", data={"csrf_token": csrf, "address": "x@example.com"}) for _ in range(6)]
    assert [a.status_code for a in answers] == [200] * 5 + [429]
    response = answers[-1]
    assert_error_page(response, 429, "Too many requests", "Please try again later")
    assert int(response.headers["Retry-After"]) > 0
    assert_way_forward(client, response)


def test_too_much_table_talk_leads_back_to_the_page(client: FlaskClient, table: Table) -> None:
    token = table.personal(1)
    csrf, _ = form_fields(client.get(f"/play/{token}").text)
    said = [
        client.post(f"/play/{token}/say", data={"csrf_token": csrf, "message": f"hello {i}"}).status_code
        for i in range(talk.PER_WINDOW + 1)
    ]
    assert said == [303] * talk.PER_WINDOW + [429]
    response = client.post(f"/play/{token}/say", data={"csrf_token": csrf, "message": "once more"})
    assert_error_page(response, 429, "Not so fast", "wait a few minutes")
    assert_back_to_page(client, response, table, 1)
    assert_way_forward(client, response)


def test_a_move_in_a_paused_game_leads_back_to_the_page(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    csrf, decision = form_fields(client.get(f"/play/{token}").text)
    with app.app_context(), db.write_session() as session:
        admin.pause_game(session=session, game_id=table.game_id, actor=ORGANISER, reason="Back on Monday")
    move = {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": "draw1"}
    response = client.post(f"/play/{token}", data=move)
    assert_error_page(response, 409)
    assert_back_to_page(client, response, table, 0)
    assert_way_forward(client, response)
    assert table.moves_logged() == 0


WERKZEUG = ("The requested URL was not found", "The method is not allowed", "If you entered the URL manually")


@pytest.mark.parametrize(
    ("lang", "title", "words"),
    [
        ("en", "Not found", "There is no page at this address."),
        ("fr", "Introuvable", "Il n'y a pas de page à cette adresse."),
        ("nl", "Niet gevonden", "Op dit adres staat geen pagina."),
    ],
)
def test_an_unknown_page_under_a_seats_link_speaks_the_seats_language(
    app: Flask, client: FlaskClient, lang: str, title: str, words: str
) -> None:
    specs = [
        games.SeatSpec("ann", email="ann@example.com", language=lang),
        games.SeatSpec("bob", email="b@example.com"),
    ]
    table = new_table(app, specs, seed=1)
    for method, path, status in (
        ("GET", f"/play/{table.personal(0)}/no-such-page", 404),
        ("POST", f"/play/{table.personal(0)}/log", 405),
    ):
        response = client.open(path, method=method, headers={"Accept-Language": "en"})
        assert response.status_code == status
        text = html.unescape(response.get_data(as_text=True))
        assert f'<html lang="{lang}">' in text, "the seat's language, not the browser's"
        assert not any(stock in text for stock in WERKZEUG), "our words, not Werkzeug's"
        if status == 404:
            assert f"<h1>{title}</h1>" in text and words in text
    stranger = html.unescape(client.get("/no-such-page", headers={"Accept-Language": lang}).get_data(as_text=True))
    assert words in stranger and not any(stock in stranger for stock in WERKZEUG)
