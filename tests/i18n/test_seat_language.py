"""A seat's pages and emails speak the seat's language; the player changes it by POST on their page or their
settings page, and the next email (rendered by the sender, outside any request) is in it."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import db, i18n
from pbem.core import games, links
from pbem.core import seats as seat_rows
from pbem.mail import sender
from tests.apps import CSRF, Table, new_table
from tests.mail.conftest import SMTPServer

DUTCH_DATE = r"(maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag) \d{1,2} [a-z]+ \d{4}, \d\d:\d\d"
FRENCH_DATE = r"(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) \d{1,2} [a-zéû]+ \d{4}, \d\d:\d\d"
ENGLISH_DATE = r"(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d"
ZONE = r" \(Europe/Amsterdam\)"


def two_seats(app: Flask, language: str = "en") -> Table:
    """ann (``language``, Amsterdam; she acts first) and bob, by email."""
    specs = [
        games.SeatSpec("ann", email="ann@example.com", language=language, timezone="Europe/Amsterdam"),
        games.SeatSpec("bob", email="bob@example.com"),
    ]
    return new_table(app, specs, seed=1)


def settings_token(table: Table, position: int) -> str:
    seat = table.seat(position)
    with table.app.test_request_context():
        return links.settings_token(table.game_id, position, seat.nonce)


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found, "the page has a form"
    return found.group(1)


def test_a_dutch_seats_page_is_in_dutch_with_its_deadline_in_dutch(app: Flask, client: FlaskClient) -> None:
    table = two_seats(app, "nl")
    html = client.get(f"/play/{table.personal(0)}", headers={"Accept-Language": "fr"}).text
    assert '<html lang="nl">' in html
    assert re.search(DUTCH_DATE + ZONE, html), "the deadline in Dutch, on the seat's clock"
    assert 'class="language-switch"' not in html, "a seat's page offers its own language setting instead"
    assert re.search(r'<option value="nl" lang="nl" selected>Nederlands</option>', html)
    log = client.get(f"/play/{table.personal(0)}/log", headers={"Accept-Language": "fr"}).text
    assert '<html lang="nl">' in log


def test_an_english_seat_stays_english_whatever_the_browser_says(app: Flask, client: FlaskClient) -> None:
    table = two_seats(app, "en")
    html = client.get(f"/play/{table.personal(0)}", headers={"Accept-Language": "nl"}).text
    assert '<html lang="en">' in html
    assert re.search(ENGLISH_DATE + ZONE, html)


def test_a_seat_with_an_old_language_code_is_shown_in_english(app: Flask, client: FlaskClient) -> None:
    table = two_seats(app, "pt-BR")  # stored before the languages were a choice
    assert '<html lang="en">' in client.get(f"/play/{table.personal(0)}").text


def test_the_settings_page_speaks_the_seats_language(app: Flask, client: FlaskClient) -> None:
    table = two_seats(app, "fr")
    html = client.get(f"/settings/{settings_token(table, 0)}", headers={"Accept-Language": "nl"}).text
    assert '<html lang="fr">' in html
    assert '<option value="fr" lang="fr" selected>Français</option>' in html


def test_changing_the_language_on_the_page_changes_the_page(app: Flask, client: FlaskClient) -> None:
    table = two_seats(app, "en")
    page = client.get(f"/play/{table.personal(0)}").text
    response = client.post(f"/play/{table.personal(0)}/language", data={"csrf_token": csrf_of(page), "language": "nl"})
    assert response.status_code == 303
    assert response.location.endswith("#language")
    assert table.seat(0).language == "nl"
    again = client.get(response.location).text
    assert '<html lang="nl">' in again
    assert re.search(DUTCH_DATE + ZONE, again)
    assert "Nederlands" in again


@pytest.mark.parametrize("code", ["de", "", "NL", "nl-BE", "x" * 50])
def test_the_page_refuses_a_language_not_offered(app: Flask, client: FlaskClient, code: str) -> None:
    table = two_seats(app, "fr")
    page = client.get(f"/play/{table.personal(0)}").text
    response = client.post(f"/play/{table.personal(0)}/language", data={"csrf_token": csrf_of(page), "language": code})
    assert response.status_code == 400
    assert "en, nl, fr" in response.text
    assert table.seat(0).language == "fr"


def test_a_language_change_needs_a_post_with_the_csrf_token(app: Flask, client: FlaskClient) -> None:
    table = two_seats(app, "en")
    assert client.get(f"/play/{table.personal(0)}/language?language=nl").status_code == 405
    assert client.post(f"/play/{table.personal(0)}/language", data={"language": "nl"}).status_code == 400
    assert table.seat(0).language == "en"


def test_changing_the_language_on_the_settings_page(app: Flask, client: FlaskClient) -> None:
    table = two_seats(app, "en")
    token = settings_token(table, 0)
    page = client.get(f"/settings/{token}").text
    form = {"csrf_token": csrf_of(page), "action": "language", "language": "fr"}
    response = client.post(f"/settings/{token}", data=form)
    assert response.status_code == 303
    assert table.seat(0).language == "fr"
    assert '<html lang="fr">' in client.get(response.location).text
    refused = client.post(f"/settings/{token}", data=form | {"language": "es"})
    assert refused.status_code == 400
    assert table.seat(0).language == "fr"


def _turn_text(smtp_server: SMTPServer, to: str) -> str:
    turns = [m for m in smtp_server.messages if m["To"].endswith(f"<{to}>") and "invit" not in m["Subject"].lower()]
    assert turns, f"a turn email went to {to}"
    body = turns[-1].get_body(preferencelist=("plain",))
    assert body is not None
    return " ".join(str(body.get_content()).split())


def test_the_next_email_is_in_the_language_chosen_on_the_page(
    app: Flask, client: FlaskClient, smtp_app: Flask, smtp_server: SMTPServer
) -> None:
    table = two_seats(app, "en")  # ann's turn email is queued now and rendered when it is sent
    page = client.get(f"/play/{table.personal(0)}").text
    client.post(f"/play/{table.personal(0)}/language", data={"csrf_token": csrf_of(page), "language": "nl"})
    with smtp_app.app_context():
        assert sender.send_due().sent >= 1
    text = _turn_text(smtp_server, "ann@example.com")
    assert re.search(DUTCH_DATE + ZONE, text), text
    assert not re.search(ENGLISH_DATE + ZONE, text)


def test_the_sender_renders_a_french_seats_email_in_french_without_a_request(
    app: Flask, smtp_app: Flask, smtp_server: SMTPServer
) -> None:
    two_seats(app, "fr")
    with smtp_app.app_context():
        assert i18n.current() == "en", "no request: nothing chose a language"
        sender.send_due()
        assert i18n.current() == "en", "the seat's language stays with its email"
    assert re.search(FRENCH_DATE + ZONE, _turn_text(smtp_server, "ann@example.com"))


def test_the_database_keeps_the_seats_choice(app: Flask, client: FlaskClient) -> None:
    table = two_seats(app, "nl")
    with app.app_context():
        assert seat_rows.seats_of(session=db.get_session(), game_id=table.game_id)[0].language == "nl"
