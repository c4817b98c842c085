"""The headline of a Call to Adventure page: an Act that begins, while the turn that turned its row up is the latest."""

from __future__ import annotations

import engine

GAME = engine.GAMES["call-to-adventure"]
ACT = {"event": "act", "player": "ann", "act": 2, "row": []}


def test_an_act_is_news_until_another_player_moves() -> None:
    state = GAME.new_game(["ann", "bob"], GAME.parse_options({}, ["ann", "bob"]), seed=1)
    assert GAME.headline(state, "bob", []) == ""
    assert GAME.headline(state, "bob", [ACT]) == "Act II begins: its row is turned face up."
    refill = {"event": "refill", "act": 2, "card": None}
    mine = {"event": "draw", "player": "ann", "deck": "hero"}
    assert GAME.headline(state, "bob", [ACT, refill, mine]) == "Act II begins: its row is turned face up."
    assert GAME.headline(state, "bob", [ACT, {"event": "draw", "player": "bob", "deck": "hero"}]) == ""
    assert GAME.template_data() == {}
