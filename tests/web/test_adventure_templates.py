"""Call to Adventure's templates (templates/games/call-to-adventure/) rendered through the real app, for games
created and played through the services: the page and the emails at setup, with a cast under way, and at the
end; each shows the names of the cards, never another player's hand or Destiny, and the A10 breakdown at the end;
Dutch and French renders carry no English words of these templates."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from pbem import db, flows, games
from pbem.mail import compose
from tests.apps import Table, new_table

KEY = "call-to-adventure"
RULES = engine.GAMES[KEY]
NEEDS_VIEW = pytest.mark.skipif(
    "cards" not in RULES.player_view(RULES.new_game(["a", "b"], {}, 1), "a"),
    reason="the engine's player view has no card infos (contract §1) until the engine helper's work is merged",
)
pytestmark = NEEDS_VIEW
TAGS = re.compile(r"<[^>]+>")


def people(*langs: str) -> list[games.SeatSpec]:
    """ann, bob … as people speaking ``langs``."""
    names = ("ann", "bob", "cy", "dee")
    return [games.SeatSpec(names[i], email=f"{names[i]}@example.com", language=lang) for i, lang in enumerate(langs)]


def play_until(app: Flask, table: Table, done: Callable[[Any], bool], limit: int = 400) -> Any:
    """Let the heuristic bot decide for every waited-for person, move by move through the services, until
    ``done(state)``; the state then."""
    for _ in range(limit):
        state = table.state()
        if done(state):
            return state
        waiting = RULES.waiting_for(state)
        assert waiting, "the game ended before the wanted moment"
        player, decision = next(iter(waiting.items()))
        move = RULES.bots["heuristic"](games.bot_seed(decision)).choose(state, player)
        body = {k: v for k, v in move.to_json().items() if k != "player"}
        with app.app_context(), db.write_session() as session:
            flows.apply_move(
                session=session,
                game_id=table.game_id,
                seat=list(state.players).index(player),
                move=body,
                decision=decision.id,
                source="page",
            )
    raise AssertionError("the wanted moment never came")


def page_of(client: FlaskClient, table: Table, position: int) -> str:
    """The seat's page, as text without tags."""
    response = client.get(f"/play/{table.personal(position)}")
    assert response.status_code == 200, response.text[:500]
    return response.get_data(as_text=True)


def names(state: Any, ids: Any, lang: str = "en") -> list[str]:
    """The cards' names in ``lang``."""
    return [state.cards.cards[c].title(lang) for c in ids]


def cast_under_way(state: Any) -> bool:
    return state.attempt is not None and state.attempt.cast


def finished(state: Any) -> bool:
    return state.status == "finished"
