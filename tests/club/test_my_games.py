"""An address's "my games" page: every game it plays (waiting on it first, results of finished ones), time away
from all of them in one POST, a link from every email, and nothing ever of a game the address does not play."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import db, timing
from pbem.core import games, links
from pbem.core import seats as seat_rows
from pbem.models import Game, OutboxEmail
from tests.apps import CSRF, Table, new_table
from tests.web.test_seed_check import finished_table

ANN = "ann@example.com"


def _days_ahead(days: int) -> str:
    return (timing.now() + timedelta(days=days)).date().isoformat()


def mine(app: Flask, address: str) -> str:
    with app.test_request_context():
        return links.mine_token(address)


def csrf(html: str) -> str:
    found = CSRF.search(html)
    assert found
    return found.group(1)


@pytest.fixture
def three_games(app: Flask, table: Table) -> tuple[Table, Table, Table]:
    """ann plays ``table`` (seat 0), a game as "Ann" with dan (seat 1), and a game of others only."""
    second = new_table(
        app,
        [games.SeatSpec("dan", email="dan@example.com"), games.SeatSpec("Ann", email="ANN@example.com")],
        seed=2,
        name="Second game",
    )
    other = new_table(
        app,
        [games.SeatSpec("eve", email="eve@example.com"), games.SeatSpec("fay", email="fay@example.com")],
        seed=3,
        name="Secret game of others",
    )
    return table, second, other


def test_the_page_lists_every_game_of_the_address_and_nothing_else(
    app: Flask, client: FlaskClient, three_games: tuple[Table, Table, Table], write_counter: list[str]
) -> None:
    table, second, _other = three_games
    page = client.get(f"/mine/{mine(app, 'Ann@Example.com')}")
    assert page.status_code == 200
    assert "Test game" in page.text and "Second game" in page.text
    assert "Secret game of others" not in page.text and "eve" not in page.text
    assert page.headers["Referrer-Policy"] == "no-referrer" and page.headers["Cache-Control"] == "no-store"
    # each game links to the address's own seat there, and to no other seat
    tokens = re.findall(r'href="/play/([^"]+)"', page.text)
    with app.test_request_context():
        seen = {(links.read(t).game_id, links.read(t).seat) for t in tokens}
    assert seen == {(table.game_id, 0), (second.game_id, 1)}
    # the game waiting on her comes first
    order = sorted(((table, 0), (second, 1)), key=lambda t: not _waits_on(app, *t))
    assert _waits_on(app, *order[0]) != _waits_on(app, *order[1]), "seeds 1 and 2: one game waits on ann"
    assert page.text.index(_name(app, order[0][0])) < page.text.index(_name(app, order[1][0]))
    assert "Your turn" in page.text and "Waiting for" in page.text
    assert client.head(f"/mine/{mine(app, ANN)}").status_code == 200
    assert write_counter == [], "a GET writes nothing"


def _name(app: Flask, table: Table) -> str:
    with app.app_context():
        return seat_rows.get_game(session=db.get_session(), game_id=table.game_id).name


def _waits_on(app: Flask, table: Table, position: int) -> bool:
    with app.app_context():
        game = seat_rows.get_game(session=db.get_session(), game_id=table.game_id)
        seat = seat_rows.seats_of(session=db.get_session(), game_id=table.game_id)[position]
        return games.decision_of(games.rules_of(game), games.load_state(game), seat.name) is not None


def test_another_address_sees_only_its_own_games(
    app: Flask, client: FlaskClient, three_games: tuple[Table, Table, Table]
) -> None:
    page = client.get(f"/mine/{mine(app, 'eve@example.com')}")
    assert page.status_code == 200 and "Secret game of others" in page.text
    assert "Test game" not in page.text and "Second game" not in page.text
    nobody = client.get(f"/mine/{mine(app, 'nobody@example.com')}")
    assert nobody.status_code == 200 and "You play 0 games" in nobody.text
    assert "Test game" not in nobody.text and "Secret" not in nobody.text


def test_tampered_foreign_and_expired_links_show_nothing(
    app: Flask, client: FlaskClient, three_games: tuple[Table, Table, Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = mine(app, ANN)
    rest = good.partition(".")[2]
    forged = mine(app, "eve@example.com").split(".")[0] + "." + rest  # eve's payload, ann's signature
    for token in (good[:-2] + ("AA" if not good.endswith("AA") else "BB"), forged, "x" * 30, "a" * 3000):
        answer = client.get(f"/mine/{token}")
        assert answer.status_code in (400, 403, 404), token
        assert "Test game" not in answer.text and "Secret game" not in answer.text
    with app.test_request_context():  # other purposes' tokens are not "my games" tokens
        personal = links.personal_token(three_games[0].game_id, 0, three_games[0].seat(0).nonce)
    assert client.get(f"/mine/{personal}").status_code in (400, 403, 404)
    days = app.config["PERSONAL_LINK_DAYS"] + 1
    with timing.frozen(timing.now() - timedelta(days=days)):
        old = mine(app, ANN)
    expired = client.get(f"/mine/{old}")
    assert expired.status_code == 410 and "front page" in expired.text and "Test game" not in expired.text
    form = {"csrf_token": csrf(client.get(f"/mine/{good}").text), "until": _days_ahead(3)}
    post = client.post(f"/mine/{old}/away", data=form)
    assert post.status_code == 410


def test_away_from_all_my_games_in_one_post(
    app: Flask, client: FlaskClient, three_games: tuple[Table, Table, Table]
) -> None:
    table, second, other = three_games
    token = mine(app, ANN)
    page = client.get(f"/mine/{token}")
    until = timing.now().date() + timedelta(days=3)
    answer = client.post(f"/mine/{token}/away", data={"csrf_token": csrf(page.text), "until": until.isoformat()})
    assert answer.status_code == 303
    assert table.seat(0).away_until == until and second.seat(1).away_until == until
    assert other.seat(0).away_until is None and other.seat(1).away_until is None
    assert table.seat(1).away_until is None, "only the address's own seats"
    shown = client.get(f"/mine/{token}")
    assert "You are away until" in shown.text and "in 2 games" in shown.text
    # back everywhere
    client.post(f"/mine/{token}/back", data={"csrf_token": csrf(shown.text)})
    assert table.seat(0).away_until is None and second.seat(1).away_until is None


def test_a_game_that_refuses_is_named_and_the_others_change(
    app: Flask, client: FlaskClient, three_games: tuple[Table, Table, Table]
) -> None:
    table, second, _other = three_games
    with app.app_context(), db.write_session() as session:  # the second game allows no time away
        game = session.get(Game, second.game_id)
        assert game is not None
        game.policy = {**(game.policy or {}), "absence_cap_days": 0}
        session.add(game)
    token = mine(app, ANN)
    until = timing.now().date() + timedelta(days=2)
    form = {"csrf_token": csrf(client.get(f"/mine/{token}").text), "until": until.isoformat()}
    client.post(f"/mine/{token}/away", data=form)
    shown = client.get(f"/mine/{token}")
    assert table.seat(0).away_until == until and second.seat(1).away_until is None
    assert "Not in Second game" in shown.text


def test_bad_date_and_missing_csrf_change_nothing(app: Flask, client: FlaskClient, table: Table) -> None:
    token = mine(app, ANN)
    page = client.get(f"/mine/{token}")
    assert client.post(f"/mine/{token}/away", data={"until": _days_ahead(3)}).status_code == 400
    bad = client.post(f"/mine/{token}/away", data={"csrf_token": csrf(page.text), "until": "soon"})
    assert bad.status_code == 400 and "date" in bad.text
    assert table.seat(0).away_until is None


def test_finished_games_show_results(app: Flask, client: FlaskClient) -> None:
    done = finished_table(app)
    page = client.get(f"/mine/{mine(app, ANN)}")
    assert "My results" in page.text and "1 game finished" in page.text
    section = page.text[page.text.index('id="results"') :]
    assert _name(app, done) in section and " of 2" in section
    state = done.state()
    result = games.rules_of("call-to-glory").result(state)
    assert result is not None
    assert f"<td>{result.scores['ann']}</td>" in section
    assert ("<strong>won</strong>" in section) == ("ann" in result.winners)


def test_every_seat_email_and_the_page_link_to_my_games(app: Flask, client: FlaskClient, table: Table) -> None:
    with app.app_context():
        emails = list(db.get_session().exec(select(OutboxEmail).where(OutboxEmail.kind == "invitation")))
    assert emails
    for email in emails:
        assert "/mine/" in email.text_body and "/mine/" in email.html_body
    page = client.get(f"/play/{table.personal(0)}")
    found = re.search(r'href="/mine/([^"]+)"', page.text)
    assert found
    with app.test_request_context():
        assert links.read_mine(found.group(1)) == ANN
    with app.test_request_context():
        settings = links.settings_token(table.game_id, 0, table.seat(0).nonce)
    found = re.search(r'href="/mine/([^"]+)"', client.get(f"/settings/{settings}").text)
    assert found
    with app.test_request_context():
        assert links.read_mine(found.group(1)) == ANN


def test_the_lost_links_email_carries_a_fresh_my_games_link(app: Flask, client: FlaskClient, table: Table) -> None:
    front = client.get("/")
    client.post("/lost-links", data={"csrf_token": csrf(front.text), "address": "ANN@example.com"})
    with app.app_context():
        [email] = db.get_session().exec(select(OutboxEmail).where(OutboxEmail.kind == "lost_links")).all()
    found = re.search(r"http://127\.0\.0\.1:5000/mine/(\S+)", email.text_body)
    assert found and "/mine/" in email.html_body
    assert client.get(f"/mine/{found.group(1)}").status_code == 200


@pytest.mark.parametrize(("lang", "words"), [("nl", "Mijn spellen"), ("fr", "Mes parties")])
def test_the_page_speaks_the_language_of_the_newest_game(
    app: Flask, client: FlaskClient, lang: str, words: str
) -> None:
    new_table(app, [games.SeatSpec("ann", email=ANN, language=lang), games.SeatSpec("bob", email="b@example.com")])
    assert words in client.get(f"/mine/{mine(app, ANN)}").text
