"""A2 options and A3 setup: seeded decks, simultaneous private choices, rows, tokens, first player."""

from __future__ import annotations

import pytest

from engine import GAMES, FormatError, IllegalMove, OptionsError
from engine.call_to_adventure import Move, apply, legal_moves, new_game
from engine.call_to_adventure.state import places, to_json

from .helpers import NAMES, small_set

GAME = GAMES["call-to-adventure"]


def test_options_take_their_defaults() -> None:
    assert GAME.parse_options({}, ["ann", "bob"]) == {
        "first_game": False,
        "allies_adversaries": False,
        "coop": False,
        "card_set": "starter",
        "first_player": None,
    }


@pytest.mark.parametrize(
    ("options", "players", "key"),
    [
        ({"first_player": "zed"}, ["ann", "bob"], "first_player"),
        ({"card_set": "deluxe"}, ["ann", "bob"], "card_set"),
        ({"first_game": "yes"}, ["ann", "bob"], "first_game"),
        ({"coop": "yes"}, ["ann"], "coop"),
        ({}, ["ann"], "players"),
        ({"allies_adversaries": 1}, ["ann", "bob"], "allies_adversaries"),
    ],
)
def test_bad_options_are_named(options: dict[str, object], players: list[str], key: str) -> None:
    with pytest.raises(OptionsError) as caught:
        GAME.parse_options(options, players)
    assert key in caught.value.errors


def test_each_player_is_dealt_two_of_each_and_all_choose_at_once() -> None:
    state = new_game(NAMES[:3], {}, 5, small_set())
    assert all(len(p.offers[k]) == 2 for p in state.ps for k in ("origin", "motivation", "destiny"))
    waiting = GAME.waiting_for(state)
    assert set(waiting) == set(NAMES[:3]) and {d.wait for d in waiting.values()} == {"setup"}
    assert len(legal_moves(state, "bob")) == 8
    bob = legal_moves(state, "bob")[5]
    apply(state, bob)
    after = GAME.waiting_for(state)
    assert set(after) == {"ann", "cy"} and after["ann"] == waiting["ann"] and after["cy"] == waiting["cy"]
    assert state.status == "setup"
    with pytest.raises(IllegalMove) as caught:
        apply(state, bob)
    assert caught.value.rule == "A3"
    with pytest.raises(IllegalMove):
        apply(state, Move("ann", "trait", card=state.rows[0][0] or ""))
    apply(state, legal_moves(state, "cy")[0])
    apply(state, legal_moves(state, "ann")[7])
    assert state.status == "playing" and state.turn == 1
    assert state.ps[1].origin == bob.origin and state.ps[1].destiny == bob.destiny
    assert all(not p.offers for p in state.ps)
    assert set(places(state).values()) == {1} and len(places(state)) == len(small_set().cards)


def test_a_choice_outside_the_deal_is_refused() -> None:
    state = new_game(NAMES[:2], {}, 5, small_set())
    p = state.ps[0]
    other = state.ps[1].offers["origin"][0]
    with pytest.raises(IllegalMove, match="A3"):
        apply(
            state,
            Move("ann", "choose", origin=other, motivation=p.offers["motivation"][0], destiny=p.offers["destiny"][0]),
        )


def test_tokens_track_hero_card_and_rows() -> None:
    state = new_game(NAMES[:3], {"first_game": True}, 9, small_set())
    assert state.status == "playing" and not GAME.waiting_for(state).keys() - {state.players[state.current]}
    for p in state.ps:
        assert p.xp == 3 and small_set().track[p.level].name == "N" and len(p.hand) == 1
        assert small_set().cards[p.hand[0]].type == "hero" and p.origin and p.motivation and p.destiny
    assert [len(r) for r in state.rows] == [4, 4, 4] and state.up == [True, False, False]
    four = new_game(NAMES, {"first_game": True}, 9, small_set())
    assert [len(r) for r in four.rows] == [5, 5, 5]


def test_everything_comes_from_the_seed() -> None:
    a, b = (new_game(NAMES[:3], {}, 77, small_set()) for _ in range(2))
    assert to_json(a) == to_json(b)
    firsts = {new_game(NAMES[:3], {}, s, small_set()).first for s in range(30)}
    assert firsts == {0, 1, 2}
    decks = {tuple(new_game(NAMES[:3], {}, s, small_set()).decks["act1"]) for s in range(5)}
    assert len(decks) == 5
    assert new_game(NAMES[:3], {"first_player": "cy"}, 3, small_set()).first == 2


def test_explicit_decks_put_their_cards_on_top() -> None:
    with pytest.raises(FormatError, match="act1 deck lists 't-free'"):
        new_game(NAMES[:2], {}, 1, small_set(), {"act1": ["t-free", "t-free"]})
    with pytest.raises(FormatError, match="act1 deck lists 'o0'"):
        new_game(NAMES[:2], {}, 1, small_set(), {"act1": ["o0"]})
    state = new_game(NAMES[:2], {}, 1, small_set(), {"act1": ["c-hard", "t-free"]})
    assert state.rows[0][:2] == ["c-hard", "t-free"]
    full = [c for c in small_set().acts[0] if small_set().cards[c].type in ("trait", "challenge")]
    state = new_game(NAMES[:2], {}, 1, small_set(), {"act1": full})
    assert state.rows[0] == full[:4] and state.decks["act1"] == full[4:][::-1]
