"""The front page: what this is, "lost your links?" by email (the same answer for a known or unknown address,
limited), the way to the admin page; and error pages that say what to do next."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import db
from pbem.core import games, links
from pbem.models import OutboxEmail
from tests.apps import CSRF, Table, new_table

ANN = "ann@example.com"


def csrf(client: FlaskClient) -> str:
    page = client.get("/")
    assert page.status_code == 200
    found = CSRF.search(page.text)
    assert found
    return found.group(1)


def ask(client: FlaskClient, address: str) -> tuple[int, str]:
    response = client.post("/lost-links", data={"csrf_token": csrf(client), "address": address})
    return response.status_code, response.get_data(as_text=True)


def lost_links(app: Flask) -> list[OutboxEmail]:
    with app.app_context():
        return list(db.get_session().exec(select(OutboxEmail).where(OutboxEmail.kind == "lost_links")))


def test_the_front_page_says_what_this_is_and_leads_on(client: FlaskClient, write_counter: list[str]) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "played by email" in page.text
    assert 'action="/lost-links"' in page.text and 'href="/admin/login"' in page.text
    assert client.head("/").status_code == 200
    assert write_counter == [], "a GET writes nothing"


def test_lost_links_emails_every_game_of_the_address(app: Flask, client: FlaskClient, table: Table) -> None:
    specs = [games.SeatSpec("Ann", email="Ann@Example.com"), games.SeatSpec("dan", email="dan@example.com")]
    second = new_table(app, specs, seed=2, name="Second game")
    status, body = ask(client, "ANN@example.com")
    assert status == 200 and "Check your email" in body
    [email] = lost_links(app)
    assert email.to_addr.lower() == ANN and email.game_id is None
    urls = re.findall(r"http://127\.0\.0\.1:5000(/play/\S+)", email.text_body)
    assert len(urls) == 2 and "Test game" in email.text_body and "Second game" in email.text_body
    with app.test_request_context():  # each link is the seat's personal link (signed when it was sent)
        sent = {links.read(url.removeprefix("/play/")) for url in urls}
    assert {(link.purpose, link.game_id, link.seat) for link in sent} == {
        (links.PERSONAL, table.game_id, 0),
        (links.PERSONAL, second.game_id, 0),
    }
    assert {link.nonce_tag for link in sent} == {
        links.nonce_tag(table.seat(0).nonce),
        links.nonce_tag(second.seat(0).nonce),
    }
    for url in urls:
        assert client.get(url).status_code == 200


def test_an_unknown_address_gets_the_same_answer_and_no_email(app: Flask, client: FlaskClient, table: Table) -> None:
    known = ask(client, ANN)
    unknown = ask(client, "nobody@example.com")
    assert known[0] == unknown[0] == 200
    # The same page but for the address; the CSRF tokens are signed with the second they were made in.
    same = [
        CSRF.sub("csrf", body) for body in (known[1].replace(ANN, "X"), unknown[1].replace("nobody@example.com", "X"))
    ]
    assert same[0] == same[1]
    assert [e.to_addr for e in lost_links(app)] == [ANN]


def test_one_email_per_address_in_ten_minutes_with_the_same_answer(
    app: Flask, client: FlaskClient, table: Table
) -> None:
    first, second = ask(client, ANN), ask(client, ANN)
    assert first == second
    assert len(lost_links(app)) == 1


def test_a_client_that_asks_too_often_is_slowed_down(app: Flask, client: FlaskClient) -> None:
    app.config["LOST_LINKS_LIMIT"] = "3 per hour"
    assert [ask(client, f"p{i}@example.com")[0] for i in range(3)] == [200, 200, 200]
    response = client.post("/lost-links", data={"csrf_token": csrf(client), "address": "p4@example.com"})
    assert response.status_code == 429 and int(response.headers["Retry-After"]) > 0


def test_a_malformed_address_is_refused_with_the_form_again(app: Flask, client: FlaskClient) -> None:
    status, body = ask(client, "ann@example.com, evil@example.org")
    assert status == 400 and "That is not an email address" in body and 'action="/lost-links"' in body
    assert lost_links(app) == []


def test_the_form_needs_its_csrf_token(client: FlaskClient) -> None:
    assert client.post("/lost-links", data={"address": ANN}).status_code == 400


def test_error_pages_say_what_to_do_next(client: FlaskClient) -> None:
    for response in (client.get("/nowhere"), client.get("/play/not-a-token"), client.post("/")):
        assert response.status_code in (400, 404, 405)
        body = response.get_data(as_text=True)
        assert 'href="/">Get the links of your games by email</a>' in body and 'href="/admin/"' in body


def test_the_front_page_names_each_game_and_links_its_rules(client: FlaskClient) -> None:
    page = client.get("/").text
    for key, title in (("call-to-glory", "Call to Glory"), ("call-to-adventure", "Call to Adventure")):
        assert f"<h3>{title}</h3>" in page and f'href="/how-to-play/{key}"' in page
        assert client.get(f"/how-to-play/{key}").status_code == 200
    assert "casting runes" in page and "lay sets of samurai" in page
    for key in re.findall(r'href="/how-to-play/([^"]+)"', page):
        assert client.get(f"/how-to-play/{key}").status_code == 200, "no link to a game without rules written"
    dutch = client.get("/", headers={"Accept-Language": "nl"}).text
    assert "Een verhalend kaartspel" in dutch and "Het kaartspel van Michael Schacht" in dutch


def test_in_development_the_front_page_leads_to_the_mailbox_and_the_demos(app: Flask, client: FlaskClient) -> None:
    assert app.config["DEVELOPMENT"]
    mailbox = re.search(r'href="(/mailbox/?)">built-in mailbox', client.get("/").text)
    assert mailbox and client.get(mailbox.group(1)).status_code == 200
    with app.app_context():
        made = app.test_cli_runner().invoke(args=["demo", "--game", "call-to-adventure"])
    assert made.exit_code == 0, made.output
    [printed] = re.findall(r"http://127\.0\.0\.1:5000(/play/\S+)", made.output)
    page = client.get("/").text
    [shown] = re.findall(r'<li><a href="(/play/[^"]+)">Demo of Call to Adventure', page)
    with app.test_request_context():
        assert links.read(shown.removeprefix("/play/")).seat == links.read(printed.removeprefix("/play/")).seat == 0
    assert client.get(shown).status_code == 200


def test_in_production_the_front_page_shows_no_demo(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        assert app.test_cli_runner().invoke(args=["demo"]).exit_code == 0
    app.config["DEVELOPMENT"] = False
    page = client.get("/").text
    assert "/play/" not in page and "Call to Glory" in page


def test_lost_links_speak_the_language_of_the_address_newest_game(app: Flask, client: FlaskClient) -> None:
    specs = [
        games.SeatSpec("Zoé", email="zoe@example.com", language="fr"),
        games.SeatSpec("dan", email="d@example.com"),
    ]
    new_table(app, specs, seed=2, name="Partie du jeudi")
    response = client.post(
        "/lost-links",
        data={"csrf_token": csrf(client), "address": "zoe@example.com"},
        headers={"Accept-Language": "en"},
    )
    assert response.status_code == 200 and "Check your email" in response.get_data(as_text=True), "the asker's page"
    [email] = lost_links(app)
    assert email.subject == "Vos liens vers vos parties", email.subject
    assert "Partie du jeudi" in email.text_body and "Your links to your games" not in email.text_body


def test_the_front_page_links_each_games_how_to_play(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    for key in ("call-to-glory", "call-to-adventure"):
        assert f'href="/how-to-play/{key}"' in page
        assert client.get(f"/how-to-play/{key}").status_code == 200
