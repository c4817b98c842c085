"""A Call to Adventure game's stored state names its card set by the digest of its text instead of holding a copy of
it (the set is stored once: packaged with the engine, or in the game's options for a club's own set). Games stored
before, with the set's text in their state, play on through the page and are then stored the new way."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask
from sqlalchemy import select, update

from engine.call_to_adventure.files import packaged_set
from pbem import db
from pbem.core import games
from pbem.models import Game
from tests.apps import Table, new_table

from .test_adventure_confirm import KEY, _forms, _moves

PLAYERS = ("ann", "bob")
GAMES = Game.__table__  # type: ignore[attr-defined]


def _table(app: Flask, options: dict[str, Any]) -> Table:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in PLAYERS]
    return new_table(app, specs, seed=3, game=KEY, options={"first_game": True, **options})


def _stored(app: Flask, table: Table) -> str:
    """The game's stored state, as JSON text."""
    with app.app_context():
        found = db.get_session().execute(select(GAMES.c.state).where(GAMES.c.id == table.game_id))
        return json.dumps(found.scalar())


def _play_on_the_page(app: Flask, table: Table) -> None:
    """The seat to act presses its first move button; the move is stored."""
    client, before = app.test_client(), _moves(app, table)
    state = table.state()
    position = PLAYERS.index(state.players[state.current])
    page = client.get(f"/play/{table.personal(position)}").get_data(as_text=True)
    action, fields = next((a, f) for a, f in _forms(page) if f.get("decision") and "do" in f)
    assert client.post(action, data=fields).status_code == 303
    assert _moves(app, table) > before


def _verified(app: Flask, table: Table) -> bool:
    with app.app_context():
        return games.verify_game(session=db.get_session(), game_id=table.game_id)


def test_a_packaged_sets_game_stores_its_digest_and_plays_on(app: Flask) -> None:
    table = _table(app, {})
    card_set = json.loads(_stored(app, table))["card_set"]
    assert card_set == {"source": "starter.toml", "digest": packaged_set().digest}
    assert len(_stored(app, table)) < 10_000  # with the set's text: about 53,000
    _play_on_the_page(app, table)
    assert "toml" not in json.loads(_stored(app, table))["card_set"]
    assert _verified(app, table)


def test_a_clubs_own_set_is_in_its_options_once_and_named_in_its_state(app: Flask) -> None:
    own = {"source": "club.toml", "text": packaged_set().text.replace('id = "starter"', 'id = "club"', 1)}
    table = _table(app, {"card_set": own})
    assert "toml" not in json.loads(_stored(app, table))["card_set"]
    _play_on_the_page(app, table)
    assert table.state().cards.id == "club"
    assert _verified(app, table)


def test_a_game_stored_with_the_sets_text_plays_on_and_is_then_stored_by_digest(app: Flask) -> None:
    table = _table(app, {})
    old = json.loads(_stored(app, table))
    old["card_set"] = {"source": "starter.toml", "toml": packaged_set().text}
    with app.app_context(), db.write_session() as session:
        session.execute(update(GAMES).where(GAMES.c.id == table.game_id).values(state=old))
    assert _verified(app, table)
    _play_on_the_page(app, table)
    assert json.loads(_stored(app, table))["card_set"] == {"source": "starter.toml", "digest": packaged_set().digest}
    assert _verified(app, table)
