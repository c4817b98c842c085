"""The admin page knows games only through engine.GAMES: a game of Call to Adventure and one of the test-only
Pick a Number made with the new-game form over HTTP, their options checked by the game, their pages and repairs."""

from __future__ import annotations

import html
import json
import re

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from pbem import admin, db
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.models import Game, OutboxEmail
from tests.apps import Table

from .conftest import actions_of, assert_page, count, csrf_of, new_game_form, refused

POLICY = {
    "name": "A game",
    "order": "listed",
    "organiser_email": "",
    "first_reminder_hours": "24",
    "reminder_every_hours": "24",
    "max_reminders": "3",
    "deadline_hours": "72",
    "timeout": "bot",
    "absence_cap_days": "14",
}


def seats(rows: list[tuple[str, str, str]], total: int) -> dict[str, str]:
    """The seat rows of a form with ``total`` rows: those given, then empty ones."""
    data: dict[str, str] = {}
    for i in range(total):
        kind, name, email = rows[i] if i < len(rows) else ("none", "", "")
        data |= {
            f"seats-{i}-kind": kind,
            f"seats-{i}-name": name,
            f"seats-{i}-email": email,
            f"seats-{i}-language": "en",
            f"seats-{i}-timezone": "UTC",
        }
    return data


REFUSED = 200
"""``create``'s status for a refused form: the POST answered 303 to the GET that shows it again, which answered 200."""


def create(client: FlaskClient, key: str, data: dict[str, str]) -> tuple[int, str]:
    """Post the new-game form of ``key``; the status and the page (or the new game's path)."""
    response = client.post(
        f"/admin/games/new?game={key}", data={"csrf_token": csrf_of(client, "/admin/"), "game": key, **data}
    )
    if response.status_code == 303 and "draft=" in response.location:
        return REFUSED, refused(client, response)
    if response.status_code == 303:
        return 303, response.location
    return response.status_code, response.get_data(as_text=True)


def field_error(page: str, field: str) -> str:
    """The error shown next to the field with that id ("" if none)."""
    found = re.search(rf'<p class="field-error" id="{re.escape(field)}-error">([^<]*)</p>', page)
    return html.unescape(found.group(1)) if found else ""


def stored(app: Flask, path: str) -> tuple[Game, list[tuple[str, str]]]:
    game_id = int(path.rsplit("/", 1)[1])
    with app.app_context():
        session = db.get_session()
        return seat_rows.get_game(session=session, game_id=game_id), [
            (s.name, s.kind) for s in seat_rows.seats_of(session=session, game_id=game_id)
        ]


def test_the_form_offers_each_game_with_its_seats_and_options(admin_client: FlaskClient) -> None:
    glory = assert_page(admin_client.get("/admin/games/new"), 200, "Call to Glory is for 2 to 4 players", "Seat 4")
    assert "Seat 5" not in glory and "Call to Adventure" in glory and "Pick a Number" in glory, "the game to choose"
    adventure = assert_page(
        admin_client.get("/admin/games/new?game=call-to-adventure"),
        200,
        "Call to Adventure is for 1 to 4 players",
        "Allies &amp; Adversaries",
        'name="options-coop" type="checkbox"',
        'name="options-card_set"',
    )
    assert "Task cards" not in adventure and "Seat 5" not in adventure
    assert 'name="game" value="call-to-adventure"' in adventure
    picks = assert_page(admin_client.get("/admin/games/new?game=pick-a-number"), 200, "Seat 5", "Highest number")
    assert '<option selected value="5">5</option>' in picks or '<option value="5" selected>5</option>' in picks
    assert_page(admin_client.get("/admin/games/new?game=chess"), 404, "does not know the game")


def test_create_a_call_to_adventure_game_with_the_form(app: Flask, admin_client: FlaskClient) -> None:
    data = POLICY | seats([("random", "", "")], 4)
    status, page = create(admin_client, "call-to-adventure", data)
    assert status == REFUSED and count(app, Game) == 0, "one player plays only solo, against the Adversary"
    assert "solo" in page.lower() or "coop" in page.lower(), page[:2000]
    rows = [("heuristic", "", ""), ("random", "Rex", "")]
    status, path = create(admin_client, "call-to-adventure", POLICY | seats(rows, 4) | {"options-first_game": "y"})
    assert status == 303, path
    game, seated = stored(app, path)
    assert game.game == "call-to-adventure" and seated == [("Bot 1", "heuristic"), ("Rex", "random")]
    assert game.options["first_game"] is True and game.options["card_set"] == "starter"
    assert game.options["coop"] is False and game.options["allies_adversaries"] is False
    page = assert_page(admin_client.get(path), 200, "Call to Adventure", "invitations are on their way")
    assert "created the game (Call to Adventure): Bot 1 (heuristic bot), Rex (random bot)" in page
    assert "First game: one of each character card, no choice: played this way" in page, "the options in words"
    assert "Winner" in page or "Nobody won" in page, "bots play at once, to the end"
    token = csrf_of(admin_client, "/admin/")
    assert admin_client.post(f"{path}/verify", data={"csrf_token": token}).status_code == 303
    assert "the stored state matches." in admin_client.get(path).get_data(as_text=True)
    solo = POLICY | seats([("heuristic", "", "")], 4) | {"options-coop": "y"}
    status, path = create(admin_client, "call-to-adventure", solo)
    assert status == 303, path
    assert stored(app, path)[0].options["coop"] is True


def test_people_are_invited_to_a_call_to_adventure_game(app: Flask, admin_client: FlaskClient) -> None:
    data = POLICY | seats([("human", "ann", "ann@example.com"), ("random", "", "")], 4)
    status, path = create(admin_client, "call-to-adventure", data)
    assert status == 303, path
    game, _seated = stored(app, path)
    assert "Let the bot decide for ann" in assert_page(admin_client.get(path), 200), "ann is waited on"
    with app.app_context():
        invited = db.get_session().execute(
            select(OutboxEmail.to_addr).where(OutboxEmail.game_id == game.id, OutboxEmail.kind == "invitation")
        )
        assert ["ann@example.com" in a for a in invited.scalars()] == [True]


def test_a_bad_option_is_shown_next_to_its_field(app: Flask, admin_client: FlaskClient) -> None:
    status, page = create(
        admin_client, "call-to-glory", new_game_form(imperial_tasks="y", rounds="4", task_decks="A: Emperor, Dragon")
    )
    assert status == REFUSED
    assert "1 to 3 rounds with Imperial Tasks" in field_error(page, "options-rounds"), "the game's own check"
    assert "is not a card type" in field_error(page, "options-task_decks"), "every problem at once"
    assert "A: Emperor, Dragon" in page, "what was typed is kept"
    status, page = create(admin_client, "call-to-glory", new_game_form(first_player="3"))
    assert status == REFUSED and "filled-in seats" in field_error(page, "options-first_player"), "seat 4 is empty"
    data = POLICY | seats([("human", "ann", "ann@example.com"), ("heuristic", "", "")], 4)
    status, page = create(admin_client, "call-to-adventure", data | {"options-card_set": "deluxe"})
    assert status == REFUSED and "Not a valid choice" in field_error(page, "options-card_set")
    status, page = create(admin_client, "pick-a-number", POLICY | seats([("human", "ann", "a@example.com")], 5))
    assert status == REFUSED and "Pick a Number is for 2 to 5 players" in page
    assert count(app, Game) == 0


def test_create_a_game_of_pick_a_number_with_the_form(app: Flask, admin_client: FlaskClient) -> None:
    rows = [("heuristic", "", ""), ("random", "", ""), ("random", "Rex", "")]
    data = POLICY | seats(rows, 5) | {"options-rounds": "3", "options-highest": "9"}
    status, path = create(admin_client, "pick-a-number", data)
    assert status == 303, path
    game, seated = stored(app, path)
    assert game.game == "pick-a-number" and game.options == {"rounds": 3, "highest": 9}
    assert seated == [("Bot 1", "heuristic"), ("Bot 2", "random"), ("Rex", "random")]
    assert next(a.detail for a in actions_of(app, game.id or 0)).startswith("created the game (Pick a Number)")
    page = assert_page(admin_client.get(path), 200, "Never show this page to a player", "Rounds: 3")
    assert page.count('class="milestone"') == 3, "each revealed round, in the generic fallback"
    token = csrf_of(admin_client, "/admin/")
    assert admin_client.post(f"{path}/verify", data={"csrf_token": token}).status_code == 303
    assert "Replayed 9 moves: the stored state matches." in admin_client.get(path).get_data(as_text=True)
    export = admin_client.post(f"{path}/export", data={"csrf_token": token})
    assert export.status_code == 200 and f"pick-a-number-{game.id}-a-game.json" in export.headers["Content-Disposition"]
    record = json.loads(export.data)
    assert record["format"] == "pick-a-number/1" and len(record["moves"]) == 9
    assert_page(admin_client.get("/admin/"), 200, "Pick a Number", "A game")


def _people_picking(app: Flask, organiser: admin.Actor) -> Table:
    """A game of Pick a Number of ann, bob (people) and a bot, made by the service (no mail): both are waited on."""
    specs = [
        games.SeatSpec("ann", "ann@example.com"),
        games.SeatSpec("bob", "bob@example.com"),
        games.SeatSpec("Bot 1", kind="heuristic"),
    ]
    with app.app_context(), db.write_session() as session:
        outcome = games.create_game(session=session, name="Picks", seats=specs, game="pick-a-number", seed=3)
        return Table(app, outcome.game.id or 0)


def test_the_bot_is_offered_for_each_seat_waited_on(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = _people_picking(app, organiser)
    path = f"/admin/games/{table.game_id}"
    page = assert_page(admin_client.get(path), 200, "Never show this page to a player")
    assert "Let the bot decide for ann" in page and "Let the bot decide for bob" in page, "both are waited on"
    assert "Let the bot decide for Bot 1" not in page and page.count("To act:") == 2
    decision = re.search(r'name="decision" value="([^"]+)"', page)
    assert decision is not None
    token = csrf_of(admin_client, "/admin/")
    ask = admin_client.post(f"{path}/bot", data={"csrf_token": token, "decision": decision.group(1), "for_seat": "2"})
    assert_page(ask, 200, "Let the bot make bob&#39;s current decision")
    unsaid = admin_client.post(f"{path}/bot", data={"csrf_token": token, "decision": decision.group(1)})
    refused(admin_client, unsaid, "more than one seat")  # ann and bob wait on the same decision: say whose
    bot_seat = admin_client.post(
        f"{path}/bot", data={"csrf_token": token, "decision": decision.group(1), "for_seat": "3"}
    )
    refused(admin_client, bot_seat, "no open decision")  # the bot seat has picked already
    assert table.moves_logged() == 1, "nothing yet: only the bot seat has picked"


def test_the_bot_decides_for_one_of_the_seats_waited_on(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = _people_picking(app, organiser)
    path = f"/admin/games/{table.game_id}"
    decision = re.search(r'name="decision" value="([^"]+)"', admin_client.get(path).get_data(as_text=True))
    assert decision is not None
    token = csrf_of(admin_client, "/admin/")
    form = {"csrf_token": token, "decision": decision.group(1), "for_seat": "2", "confirm": "yes"}
    assert admin_client.post(f"{path}/bot", data=form).status_code == 303 and table.moves_logged() == 2
    page = assert_page(admin_client.get(path), 200, "The bot decided for bob")
    assert "Let the bot decide for bob" not in page and "Let the bot decide for ann" in page
    again = admin_client.post(f"{path}/bot", data=form)
    assert again.status_code == 303 and table.moves_logged() == 2, "bob's decision was already made"
