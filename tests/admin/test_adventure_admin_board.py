"""The organiser's page of a Call to Adventure game shows the whole state in words: every card by its name and what
it does (the engine's words, in the organiser's language), hidden parts included, and never a card's id."""

from __future__ import annotations

import html
import re

from flask import Flask
from flask.testing import FlaskClient

from engine.call_to_adventure.state import State
from pbem import admin, db, flows
from pbem.core import games
from pbem.core import seats as seat_rows
from tests.adventure_helpers import GAME, RULES, adventure_table, state_of
from tests.apps import Table

ID = re.compile(r"\b[a-z0-9]{1,3}-[a-z0-9]+(?:-[a-z0-9]+)+\b")


def _text(page: str) -> str:
    """The state section of an admin game page as a reader sees it: no tags, no attributes."""
    section = page.split('id="state"', 1)[1].split("</section>\n\n<section", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", " ", section))


def _no_ids(text: str, state: State) -> None:
    ids = set(state.cards.cards)
    shown = [found for found in ID.findall(text) if found in ids]
    assert shown == [], f"card ids on the page: {shown[:5]}"


def test_at_setup_every_offer_is_named_with_what_it_does(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = adventure_table(app, ["Ann", "Bob", "Cy"])
    state = state_of(table)
    text = _text(admin_client.get(f"/admin/games/{table.game_id}").text)
    view = RULES.organiser_view(state)
    for p in state.ps:
        for offered in p.offers.values():
            for card in offered:
                info = view["cards"][card]
                assert info["name"] in text, info["name"]
                for line in info["lines"]:
                    assert html.unescape(line) in text
        for card in p.hand:
            assert view["cards"][card]["name"] in text
    assert text.count("Is still choosing their characters.") == 3
    _no_ids(text, state)


def _play_on(app: Flask, table: Table, organiser: admin.Actor, rounds: int) -> None:
    """Let the bot make the people's decisions ``rounds`` times (the other seats are bots)."""
    for _ in range(rounds):
        with app.app_context(), db.write_session() as session:
            game = games.load_state(seat_rows.get_game(session=session, game_id=table.game_id))
            waiting = RULES.waiting_for(game)
            if not waiting:
                return
            _name, decision = next(iter(waiting.items()))
            admin.bot_decision(session=session, game_id=table.game_id, decision=decision.id, actor=organiser, seat=0)


def test_during_play_every_hand_story_and_row_is_in_words(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    specs = [
        games.SeatSpec("Ann", email="ann@example.com"),
        *(games.SeatSpec(f"Bot {i}", kind="heuristic") for i in (1, 2)),
    ]
    with app.app_context(), db.write_session() as session:
        table = Table(app, flows.games.create(session=session, name="Quest", seats=specs, game=GAME, seed=3).id or 0)
    _play_on(app, table, organiser, 6)
    state = state_of(table)
    assert state.status == "playing"
    text = _text(admin_client.get(f"/admin/games/{table.game_id}").text)
    view = RULES.organiser_view(state)
    for p in state.ps:
        for card in (p.origin, p.motivation, p.destiny, *p.hand, *(c for c, _path in p.story)):
            assert card and view["cards"][card]["name"] in text, card
    for row in view["rows"]:
        for card in row if isinstance(row, list) else ():
            if card:
                assert view["cards"][card]["name"] in text
    assert "Your chance" not in text, "odds are a player's own"
    _no_ids(text, state)


def test_the_organisers_language_names_the_cards(app: Flask, admin_client: FlaskClient, organiser: admin.Actor) -> None:
    with app.app_context(), db.write_session() as session:
        admin.set_language(session=session, admin_id=organiser.id, language="nl")
    table = adventure_table(app, ["Ann", "Bob"])
    state = state_of(table)
    text = _text(admin_client.get(f"/admin/games/{table.game_id}").text)
    dutch = RULES.speaking("nl").organiser_view(state)
    english = RULES.organiser_view(state)
    names = [(dutch["cards"][c]["name"], english["cards"][c]["name"]) for c in state.ps[0].offers["origin"]]
    assert any(nl != en for nl, en in names), "the starter set's names differ in Dutch"
    for nl, _en in names:
        assert nl in text
    assert "Is still choosing their characters." not in text
    _no_ids(text, state)


def test_a_finished_game_shows_every_destiny_and_the_scores(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    specs = [games.SeatSpec("Ann", email="ann@example.com"), games.SeatSpec("Bot 1", kind="heuristic")]
    with app.app_context(), db.write_session() as session:
        table = Table(app, flows.games.create(session=session, name="Done", seats=specs, game=GAME, seed=5).id or 0)
    _play_on(app, table, organiser, 400)
    state = state_of(table)
    assert state.status == "finished"
    page = admin_client.get(f"/admin/games/{table.game_id}").text
    text = _text(page)
    view = RULES.organiser_view(state)
    for p in state.ps:
        assert p.destiny and view["cards"][p.destiny]["name"] in text
    assert "Destiny score" in text and 'class="cta-breakdown"' in page
    _no_ids(text, state)


def test_a_coop_games_adversary_is_shown_to_the_organiser_and_the_players(
    app: Flask, client: FlaskClient, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    specs = [games.SeatSpec("Ann", email="ann@example.com"), games.SeatSpec("Bot 1", kind="heuristic")]
    with app.app_context(), db.write_session() as session:
        created = flows.games.create(
            session=session, name="Co-op", seats=specs, game=GAME, options={"coop": True}, seed=5
        )
        table = Table(app, created.id or 0)
    _play_on(app, table, organiser, 4)
    state = state_of(table)
    assert state.status == "playing" and state.adversary is not None
    view = RULES.organiser_view(state)
    adversary = view["adversary"]
    board = admin_client.get(f"/admin/games/{table.game_id}").text
    page = client.get(f"/play/{table.personal(0)}").text
    for document, section in ((board, 'id="admin-adversary"'), (page, 'id="adversary"')):
        part = html.unescape(document.split(section, 1)[1].split("</section>", 1)[0])
        assert "The Adversary" in part
        assert f"Experience of the Adversary: {adversary['experience']} of {adversary['goal']}." in part
        for card in (adversary["card"], adversary["quest"]):
            assert view["cards"][card]["name"] in part
    assert "<h3>The Adversary</h3>" in board and "<h2>The Adversary</h2>" in page
