"""How to play: one click from every player page and every email, with the options of that game."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from engine.call_to_glory import Options
from pbem import db
from pbem.core import games
from pbem.models import OutboxEmail
from tests.apps import Table, new_table
from tests.mail.conftest import deliver

RULES = re.compile(r'href="(/play/[^"]+/how-to-play)"')


def test_the_page_links_to_the_rules_of_its_game(client: FlaskClient, table: Table) -> None:
    page = client.get(f"/play/{table.personal(1)}").text
    found = RULES.search(page)
    assert found
    rules = client.get(found.group(1))
    assert rules.status_code == 200
    text = rules.text
    for words in ("The goal", "Your turn", "Laying and beating sets", "The two discard piles", "The end of a round"):
        assert words in text
    assert "<strong>60</strong>" in text and "<strong>36</strong>" in text and "<td>Samurai</td><td>12</td>" in text
    assert "this game has <strong>4</strong>" in text and "Back to your page" in text
    assert "Imperial Tasks — not used in this game" in text and "Power of the Ninja — not used in this game" in text
    assert "Whoever lays a set of Ninjas" not in text, "a variant this game does not use is not explained"


def test_the_rules_show_the_variants_a_game_uses(app: Flask, client: FlaskClient) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob", email="bob@example.com")]
    table = new_table(app, specs, seed=1, options=Options(rounds=2, ninja_power=True))
    text = client.get(f"/play/{table.personal(0)}/how-to-play").text
    assert "Power of the Ninja — used in this game" in text and "Whoever lays a set of Ninjas" in text
    assert "this game has <strong>2</strong>" in text and "Imperial Tasks — not used in this game" in text


def test_anyone_can_read_the_rules_of_a_game_and_nothing_is_written(
    client: FlaskClient, write_counter: list[str]
) -> None:
    text = client.get("/how-to-play/call-to-glory").text
    assert "Whoever lays a set of Ninjas" in text and "three secret task cards" in text
    assert client.get("/how-to-play/chess").status_code == 404
    assert client.get("/play/not-a-token/how-to-play").status_code == 400
    assert write_counter == []


def test_every_email_to_a_player_links_to_the_rules(app: Flask, table: Table) -> None:
    deliver(app)  # the sender renders the turn email
    with app.app_context():
        emails = list(db.get_session().exec(select(OutboxEmail)))
    assert {e.kind for e in emails} >= {"invitation", "turn"}
    for email in emails:
        assert re.search(r"How to play: http://127\.0\.0\.1:5000/play/\S+/how-to-play", email.text_body), email.kind
        assert re.search(r'href="http://127\.0\.0\.1:5000/play/[^"]+/how-to-play"', email.html_body), email.kind
    invitation = next(e for e in emails if e.kind == "invitation")
    assert "A TURN IN SHORT" in invitation.text_body and "Draw two cards" in invitation.text_body


def test_the_rules_are_written_in_the_readers_language(client: FlaskClient) -> None:
    dutch = client.get("/how-to-play/call-to-glory", headers={"Accept-Language": "nl"}).text
    assert "Het doel van het spel" in dutch and "De twee aflegstapels" in dutch
    assert "<td>Bode</td><td>16</td>" in dutch and "<td>Samoerai</td><td>12</td>" in dutch
    assert "Variant 1: Keizerlijke opdrachten" in dutch and "Ninja-miniatuur" in dutch and "trekstapel" in dutch
    assert "The goal" not in dutch and "Envoy" not in dutch
    french = client.get("/how-to-play/call-to-glory", headers={"Accept-Language": "fr-BE,fr;q=0.9"}).text
    assert "Le but du jeu" in french and "Les deux défausses" in french and "La fin d'une manche" in french
    assert "<td>Émissaire</td><td>16</td>" in french and "<td>Samouraï</td><td>12</td>" in french
    assert "Missions pour l'Empire" in french and "figurine Ninja" in french
    assert "The goal" not in french and "Envoy" not in french
    english = client.get("/how-to-play/call-to-glory", headers={"Accept-Language": "en"}).text
    assert "The goal" in english and "<td>Envoy</td><td>16</td>" in english and "Bode" not in english
    unknown = client.get("/how-to-play/call-to-glory", headers={"Accept-Language": "de"}).text
    assert "The goal" in unknown


def test_a_seats_rules_in_dutch_keep_that_games_options(app: Flask, client: FlaskClient) -> None:
    specs = [
        games.SeatSpec("ann", email="ann@example.com", language="nl"),
        games.SeatSpec("bob", email="bob@example.com"),
    ]
    table = new_table(app, specs, seed=1, options=Options(rounds=2, ninja_power=True))
    text = client.get(f"/play/{table.personal(0)}/how-to-play", headers={"Accept-Language": "fr"}).text
    assert "dit spel heeft er <strong>2</strong>" in text
    assert "De kracht van de Ninja — in dit spel gebruikt" in text and "algemene voorraad" in text
    assert "Keizerlijke opdrachten — niet in dit spel gebruikt" in text
    assert "drie geheime" not in text, "a variant this game does not use is not explained"


def test_the_game_speaks_the_readers_language_through_rules_of(app: Flask, client: FlaskClient, table: Table) -> None:
    for lang, word in (("nl", "trekstapel"), ("fr", "pioche")):
        with app.test_request_context(headers={"Accept-Language": lang}):
            assert games.rules_of("call-to-glory").lang == lang
        specs = [games.SeatSpec("ann", email="ann@example.com", language=lang), games.SeatSpec("bob", email="b@x.org")]
        seated = new_table(app, specs, seed=1)
        page = client.get(f"/play/{seated.personal(0)}", headers={"Accept-Language": "en"}).text
        assert word in page and "draw pile" not in page, lang
    with app.test_request_context():
        assert games.rules_of("call-to-glory").lang == "en"
    assert "draw pile" in client.get(f"/play/{table.personal(0)}", headers={"Accept-Language": "nl"}).text
