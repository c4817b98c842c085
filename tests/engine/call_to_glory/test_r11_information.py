"""R11: what a player's view shows (own hand, others' hand sizes, own tasks, pile sizes) and hides."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.call_to_glory import FormatError, Options, State, new_game, player_view, state_summary
from tests.conftest import arrange, deck, game, play

TASKS = {
    "ann": {"A": "emperor", "B": "samurai", "C": "monk"},
    "bob": {"A": "empress", "B": "envoy", "C": "farmer"},
    "cy": {"A": "daimyo", "B": "shogun", "C": "ninja"},
}
PLAYERS = ("ann", "bob", "cy")


def full_game(hands: list[list[str]] | None = None, draw1: tuple[str, ...] = (), draw2: tuple[str, ...] = ()) -> State:
    """3 players with both variants and a fixed task deal."""
    cards = deck(3, hands or [], draw1, draw2)
    options = Options(imperial_tasks=True, ninja_power=True)
    return new_game(list(PLAYERS), options, seed=9, decks=[cards], tasks=TASKS)


@pytest.mark.parametrize("viewer", PLAYERS)
def test_view_shows_own_hand_and_others_hand_sizes(viewer: str) -> None:
    state = full_game([["farmer", "farmer", "monk"], ["ninja", "envoy", "envoy"], ["emperor"] * 3])
    arrange(state, hands={"cy": {"emperor": 3, "shogun": 2}})
    view = player_view(state, viewer)
    summary = state_summary(state)
    assert view["hands"] == {viewer: summary["hands"][viewer]}
    sizes = {"ann": 3, "bob": 3, "cy": 5}
    assert view["hand_sizes"] == {p: sizes[p] for p in PLAYERS if p != viewer}
    assert set(view) == set(summary) | {"hand_sizes"}
    for key in set(summary) - {"hands", "tasks"}:
        assert view[key] == summary[key], key


@pytest.mark.parametrize("viewer", PLAYERS)
def test_view_shows_only_own_unrevealed_tasks(viewer: str) -> None:
    state = full_game()
    view = player_view(state, viewer)
    assert view["tasks"] == {viewer: TASKS[viewer]}
    text = json.dumps(view)
    for other in PLAYERS:
        if other != viewer:
            assert other not in view["tasks"]
            assert TASKS[other]["B"] not in json.dumps(view["tasks"])
    assert "revealed_tasks" in text


def test_revealed_tasks_and_public_facts_are_seen_by_everyone() -> None:
    state = full_game()
    arrange(
        state,
        tables={"ann": {"emperor": 2, "empress": 2, "daimyo": 2, "shogun": 2}, "bob": {"monk": 3}},
        hands={"ann": {"farmer": 2}},
        discards=[["envoy", "samurai"], ["ninja"]],
    )
    state.ninjas[1] = 1
    state.ninja_supply = 3
    play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2", "ann reveal A")
    for viewer in PLAYERS:
        view = player_view(state, viewer)
        assert view["status"] == "revealing"
        assert view["revealed_tasks"] == [{"player": "ann", "deck": "A", "type": "emperor", "round": 1}]
        assert view["tables"]["ann"]["farmer"] == 2
        assert view["tables"]["bob"] == {"monk": 3}
        assert view["discard_piles"] == [["envoy", "samurai"], ["ninja"]]
        assert view["ninjas"] == {"ann": 0, "bob": 1, "cy": 0}
        assert view["ninja_supply"] == 3
        assert view["draw_piles"] == [len(p) for p in state.draw_piles]


@pytest.mark.parametrize("viewer", PLAYERS)
def test_draw_piles_only_as_sizes(viewer: str) -> None:
    state = full_game()
    view = player_view(state, viewer)
    assert all(type(size) is int for size in view["draw_piles"])
    assert view["draw_piles"] == [51, 50]


def test_view_does_not_depend_on_hidden_cards() -> None:
    """Two games that differ only in ann's hand and in the order and content of the draw piles
    look the same to bob and cy, also after ann drew face down."""
    a = game(PLAYERS, hands=[["farmer"] * 3, ["monk", "ninja", "envoy"]], draw1=["samurai"], draw2=["daimyo"])
    b = game(PLAYERS, hands=[["emperor"] * 3, ["monk", "ninja", "envoy"]], draw1=["shogun"], draw2=["envoy"])
    b.draw_piles = [list(reversed(p)) for p in b.draw_piles]
    ev_a = play(a, "ann draw draw1", "ann draw draw2")
    ev_b = play(b, "ann draw draw1", "ann draw draw2")
    assert player_view(a, "bob", ev_a) == player_view(b, "bob", ev_b)
    assert player_view(a, "cy", ev_a) == player_view(b, "cy", ev_b)
    assert player_view(a, "ann", ev_a) != player_view(b, "ann", ev_b)


def draw_log() -> tuple[State, list[dict[str, Any]]]:
    """ann draws face down from draw pile 1, then face up from discard pile 1; bob then draws face down twice."""
    state = game(PLAYERS, draw1=["samurai", "farmer"], draw2=["shogun"])
    arrange(state, hands={"ann": {"monk": 2}}, discards=[["envoy", "daimyo"], []])
    events = play(state, "ann draw draw1", "ann draw discard1", "ann lay monk 2", "bob draw draw1", "bob draw draw2")
    return state, events


def test_face_down_draws_by_others_are_masked() -> None:
    state, events = draw_log()
    assert [e["card"] for e in events if e["event"] == "draw"] == ["samurai", "daimyo", "farmer", "shogun"]
    seen = {
        viewer: [e.get("card") for e in player_view(state, viewer, events)["log"] if e["event"] == "draw"]
        for viewer in PLAYERS
    }
    assert seen["ann"] == ["samurai", "daimyo", None, None]
    assert seen["bob"] == [None, "daimyo", "farmer", "shogun"]
    assert seen["cy"] == [None, "daimyo", None, None]


@pytest.mark.parametrize("viewer", PLAYERS)
def test_log_keeps_every_event_and_public_fields(viewer: str) -> None:
    state, events = draw_log()
    log = player_view(state, viewer, events)["log"]
    assert len(log) == len(events)
    for shown, real in zip(log, events, strict=True):
        assert {k: v for k, v in shown.items() if k != "card"} == {k: v for k, v in real.items() if k != "card"}
    # the events themselves are not altered by making a view
    assert [e["card"] for e in events if e["event"] == "draw"] == ["samurai", "daimyo", "farmer", "shogun"]


def test_view_without_log_has_no_log() -> None:
    state, _ = draw_log()
    assert "log" not in player_view(state, "ann")


def test_view_for_a_stranger_is_refused() -> None:
    state = game(PLAYERS)
    with pytest.raises(FormatError):
        player_view(state, "zed")


def test_the_cards_drawn_in_the_turn_under_way_are_named_to_their_player_only() -> None:
    state, events = draw_log()  # bob's turn: he drew farmer and shogun face down
    assert player_view(state, "bob", events)["drawn"] == ["farmer", "shogun"]
    assert player_view(state, "ann", events)["drawn"] == [], "ann's turn is over"
    assert player_view(state, "cy", events)["drawn"] == []
