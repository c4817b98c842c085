"""A11.3 curses wait and strike in the order played; A12 what each player sees."""

from __future__ import annotations

import pytest

from engine import GAMES, FormatError
from engine.call_to_adventure import Move, legal_moves

from .helpers import ONE, do, finish_turn, game

GAME = GAMES["call-to-adventure"]
ROW = ["c-hard", "c-easy", "c-five", "t-free", "f1-0", "f1-1"]


def test_curses_wait_visibly_and_strike_the_next_challenge_in_play_order() -> None:
    state = game(
        act1=ROW,
        heroes=["h-plus2", "h-recast"],
        antiheroes=["a-curse2", "a-curse1"],
        origins=["o0", "o1"],
        motivations=["m-str", "m0"],
        casts=[[ONE, ONE, ONE], [ONE, ONE, ONE]],
    )
    ann = state.ps[0]
    state.decks["antihero"] = [c for c in state.decks["antihero"] if c not in ("a-curse2", "a-curse1")]
    ann.hand += ["a-curse2", "a-curse1"]
    assert Move("ann", "play", card="a-curse2", target="bob") in legal_moves(state, "ann")
    assert Move("ann", "play", card="a-curse2", target="ann") not in legal_moves(state, "ann")
    do(state, "ann", "play", card="a-curse2", target="bob")
    do(state, "ann", "play", card="a-curse1", target="bob")
    view = GAME.player_view(state, "bob")
    assert [c["card"] for c in view["curses"]] == ["a-curse2", "a-curse1"]
    do(state, "ann", "attempt", card="c-hard", path="top")
    finish_turn(state, "ann")  # ann's own challenge is not cursed
    do(state, "bob", "attempt", card="c-five", path="top")
    events = do(state, "bob", "cast")
    curses = [e for e in events if e["event"] == "curse"]
    assert [c["card"] for c in curses] == ["a-curse2", "a-curse1"]
    assert [c["total"] for c in curses] == [3 - 2, 3 - 2 - 1]
    assert not state.curses and ann.played == ["a-curse2", "a-curse1"]


def test_a_view_shows_nothing_hidden() -> None:
    state = game(act1=ROW, heroes=["h-plus2", "h-recast"], first_game=False)
    view = GAME.player_view(state, "bob")
    assert view["players"]["ann"]["origin"] is None and "hand" not in view["players"]["ann"]
    assert view["players"]["bob"]["offers"]["origin"] == state.ps[1].offers["origin"]
    assert view["rows"][0] == ROW[:4] and view["rows"][1] == {"face_down": 4}
    for p in ("ann", "bob"):
        do(
            state,
            p,
            "choose",
            origin=state.ps[state.index(p)].offers["origin"][0],
            motivation=state.ps[state.index(p)].offers["motivation"][0],
            destiny=state.ps[state.index(p)].offers["destiny"][0],
        )
    view = GAME.player_view(state, "bob")
    ann = view["players"]["ann"]
    assert ann["origin"] == state.ps[0].origin and ann["destiny"] is None and ann["hand_size"] == 1
    assert view["players"]["bob"]["destiny"] == state.ps[1].destiny and view["players"]["bob"]["hand"] == ["h-recast"]
    assert "seed" not in view and "decks" not in view
    other = GAME.reshuffle_hidden(state, "bob", 3)
    assert GAME.player_view(other, "bob") == view and GAME.to_json(other) != GAME.to_json(state)
    with pytest.raises(FormatError):
        GAME.player_view(state, "zed")


def test_the_log_hides_what_another_player_drew() -> None:
    log = [{"event": "draw", "player": "ann", "deck": "hero", "card": "h-xp"}]
    state = game()
    assert GAME.player_view(state, "bob", log)["log"] == [{"event": "draw", "player": "ann", "deck": "hero"}]
    assert GAME.player_view(state, "ann", log)["log"] == log
    assert "h-xp" not in GAME.describe(log[0], "bob") and "You drew" in GAME.describe(log[0], "ann")
