"""A6 Acts, A7 the corruption track and its permissions, A8 Hero and Antihero cards and their timing."""

from __future__ import annotations

import pytest

from engine import IllegalMove
from engine.call_to_adventure import Move, apply, legal_moves
from engine.call_to_adventure.rules import _move_level

from .helpers import ONE, do, finish_turn, game

ROW = ["t-free", "c-easy", "c-hard", "c-five", "f1-0", "f1-1", "f1-2", "f1-3"]


def _story(state: object, player: int, cards: list[str]) -> None:
    """Give a player story cards taken out of the Act decks."""
    for c in cards:
        for deck in state.decks.values():  # type: ignore[attr-defined]
            if c in deck:
                deck.remove(c)
        state.ps[player].story.append((c, 0))  # type: ignore[attr-defined]


def test_act_two_is_turned_up_at_the_start_of_the_turn_of_the_first_with_three_cards() -> None:
    state = game(act1=ROW, heroes=["h-plus2", "h-recast"])
    _story(state, 0, ["f1-4", "f1-5"])
    do(state, "ann", "trait", card="t-free")
    do(state, "ann", "end")
    assert state.up == [True, False, False] and state.players[state.current] == "bob"
    do(state, "bob", "attempt", card="c-easy", path="bottom")
    finish_turn(state, "bob")
    assert state.players[state.current] == "ann" and state.up == [True, True, False]
    assert len(state.rows[1]) == 4 and all(state.rows[1])


def test_a_finished_act_is_closed_and_cards_go_under_the_next_character() -> None:
    state = game(act1=ROW, heroes=["h-plus2", "h-recast"])
    _story(state, 0, ["f1-4", "f1-5", "f1-3"])
    state.up[1] = True
    with pytest.raises(IllegalMove) as caught:
        apply(state, Move("ann", "trait", card="t-free"))
    assert caught.value.rule == "A6"
    assert all(m.card not in ROW for m in legal_moves(state, "ann") if m.do in ("trait", "attempt"))
    act2 = [m for m in legal_moves(state, "ann") if m.do == "attempt"]
    assert act2 and all(m.card and m.card.startswith("f2-") for m in act2)
    # bob, with nothing yet, may take from both face-up rows
    state.current = 1
    assert {m.card[:2] for m in legal_moves(state, "bob") if m.do == "attempt" and m.card} == {"c-", "f2"}


def test_the_track_has_bounds() -> None:
    state = game(act1=ROW)
    ann = state.ps[0]
    ann.level = 0
    _move_level(state, ann, -1, None)
    assert ann.level == 0
    ann.level = 6
    _move_level(state, ann, 1, None)
    assert ann.level == 6  # a corruption at C4 is lost
    _move_level(state, ann, -1, None)
    assert ann.level == 5  # a virtue at C4 returns to C3


@pytest.mark.parametrize(
    ("level", "hero", "antihero"),
    [(0, True, False), (1, True, False), (2, True, True), (3, True, True), (4, False, True), (6, False, True)],
)
def test_the_level_decides_which_cards_may_be_played(level: int, hero: bool, antihero: bool) -> None:
    state = game(act1=ROW, heroes=["h-xp", "h-recast"], antiheroes=["a-steal"])
    state.decks["antihero"].remove("a-steal")
    state.ps[0].hand.append("a-steal")
    state.ps[0].level = level
    plays = {m.card for m in legal_moves(state, "ann") if m.do == "play"}
    assert ("h-xp" in plays) == hero and ("a-steal" in plays) == antihero
    if not hero:
        with pytest.raises(IllegalMove) as caught:
            apply(state, Move("ann", "play", card="h-xp"))
        assert caught.value.rule == "A7"


def test_timings_before_facing_after_any() -> None:
    state = game(
        act1=ROW,
        heroes=["h-per", "h-recast", "h-after", "h-plus2"],
        casts=[[ONE, ONE, ONE]],
        origins=["o0"],
        motivations=["m-str"],
    )
    ann = state.ps[0]
    for c in ("h-after", "h-plus2"):
        state.decks["hero"].remove(c)
        ann.hand.append(c)
    plays = {m.card for m in legal_moves(state, "ann") if m.do == "play"}
    assert plays == set()  # before, facing and after cards wait for their moment
    do(state, "ann", "attempt", card="c-hard", path="top")
    assert {m.card for m in legal_moves(state, "ann") if m.do == "play"} == {"h-per"}
    do(state, "ann", "cast")
    assert state.phase == "facing" and {m.card for m in legal_moves(state, "ann") if m.do == "play"} == {"h-plus2"}
    do(state, "ann", "resolve")
    assert {m.card for m in legal_moves(state, "ann") if m.do == "play"} == {"h-after"}
    do(state, "ann", "play", card="h-after")
    assert ann.played == ["h-after"] and state.cards.track[ann.level].name == "V1"


def test_an_empty_deck_draws_nothing() -> None:
    state = game(act1=ROW, casts=[[ONE, ONE, ONE, 1, 1, 1]], origins=["o-str"], motivations=["m-str"])
    state.decks["hero"] = []
    before = list(state.ps[0].hand)
    events = do(state, "ann", "attempt", card="c-easy", path="top") + do(state, "ann", "cast")
    assert {"event": "draw", "player": "ann", "deck": "hero", "card": None} in events
    assert state.ps[0].hand == before


def _hand(state: object, card: str) -> None:
    for deck in ("hero", "antihero"):
        if card in state.decks[deck]:  # type: ignore[attr-defined]
            state.decks[deck].remove(card)  # type: ignore[attr-defined]
    state.ps[0].hand.append(card)  # type: ignore[attr-defined]


def test_looking_at_the_top_of_a_deck_is_private_and_reorders_it() -> None:
    from engine import GAMES

    game_ = GAMES["call-to-adventure"]
    state = game(act1=[*ROW[:4], "f1-0", "f1-1"], heroes=["h-plus2", "h-recast"])
    _hand(state, "a-peek")
    do(state, "ann", "play", card="a-peek", act="1")
    assert state.phase == "peek"
    assert game_.player_view(state, "ann")["peek"]["cards"] == ["f1-0", "f1-1"]
    assert "cards" not in game_.player_view(state, "bob")["peek"]
    assert game_.player_view(game_.reshuffle_hidden(state, "ann", 4), "ann") == game_.player_view(state, "ann")
    assert {m.order for m in legal_moves(state, "ann")} == {"f1-0,f1-1", "f1-1,f1-0"}
    events = do(state, "ann", "order", order="f1-1,f1-0")
    assert state.phase == "main" and state.decks["act1"][-2:] == ["f1-0", "f1-1"]  # f1-1 on top
    assert "order" not in game_.player_view(state, "bob", events)["log"][0]
    do(state, "ann", "trait", card="t-free")
    assert state.rows[0][0] == "f1-1"


def test_a_card_may_open_a_finished_act_for_this_turn() -> None:
    state = game(act1=ROW, heroes=["h-plus2", "h-recast"])
    _story(state, 0, ["f1-4", "f1-5", "f1-3"])
    _hand(state, "a-take")
    assert not any(m.do in ("trait", "attempt") for m in legal_moves(state, "ann"))
    do(state, "ann", "play", card="a-take")
    do(state, "ann", "trait", card="t-free")
    assert state.ps[0].story[-1] == ("t-free", 0)
    finish_turn(state, "ann")
    assert not state.any_act
