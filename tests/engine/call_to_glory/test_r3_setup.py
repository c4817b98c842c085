"""R3 Setup of every round: dealing order, draw piles, empty discard piles, a fresh deck each round, seeds."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.call_to_glory import TYPES, VALUES, Options, State, new_game, state_summary
from tests.conftest import arrange, card_total, deck, game, play
from tests.engine.call_to_glory.turn_helpers import PLAYERS, drain_draw2, finish_round, take_turn

HANDS = (["emperor"] * 3, ["empress", "empress", "daimyo"], ["shogun", "monk", "monk"], ["farmer", "envoy", "ninja"])
SIZES = {2: [52, 52], 3: [51, 50], 4: [49, 49]}


@pytest.mark.parametrize(("n", "start"), [(n, s) for n in (2, 3, 4) for s in range(n)])
def test_dealing_order_from_the_start_player(n: int, start: int) -> None:
    players = PLAYERS[:n]
    state = game(players, hands=HANDS[:n], first_player=players[start])
    hands = state_summary(state)["hands"]
    for k in range(n):
        assert hands[players[(start + k) % n]] == dict(Counter(HANDS[k])), f"dealt {k}th"


@pytest.mark.parametrize("n", [2, 3, 4])
def test_start_of_a_round(n: int) -> None:
    summary = state_summary(new_game(PLAYERS[:n], seed=11))
    assert summary["draw_piles"] == SIZES[n]
    assert summary["discard_piles"] == [[], []]
    assert summary["tables"] == {p: {} for p in PLAYERS[:n]}
    assert all(sum(h.values()) == 3 for h in summary["hands"].values())
    assert (summary["status"], summary["round"], summary["step"], summary["draws_left"]) == ("playing", 1, "draw", 2)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pile_tops_are_the_first_cards_of_each_slice(n: int) -> None:
    players = PLAYERS[:n]
    cards = deck(n, draw1=["monk", "envoy"], draw2=["emperor", "empress"])
    rest = 110 - 3 * n
    half = (rest + 1) // 2  # ceil(rest / 2)
    # The deck is checked here by position, independently of how the helper built it.
    assert cards[3 * n : 3 * n + 2] == ["monk", "envoy"]
    assert cards[3 * n + half : 3 * n + half + 2] == ["emperor", "empress"]
    state = new_game(players, seed=1, decks=[cards])
    events = play(state, "ann draw draw1", "ann draw draw2", "ann discard farmer", "bob draw draw2", "bob draw draw1")
    drawn = [(e["pile"], e["card"]) for e in events if e["event"] == "draw"]
    assert drawn == [("draw1", "monk"), ("draw2", "emperor"), ("draw2", "empress"), ("draw1", "envoy")]


def _fresh_round_2(explicit: bool) -> State:
    """A 2-player game whose round 1 ends with ann holding a Farmer set, so bob (total 0) starts round 2."""
    decks: list[list[str] | None] = [deck(2)]
    if explicit:
        decks.append(deck(2, hands=[["ninja"] * 3, ["samurai"] * 3], draw1=["daimyo"], draw2=["shogun"]))
    state = new_game(["ann", "bob"], Options(), seed=5, decks=decks)
    arrange(
        state,
        hands={"ann": {"monk": 4}, "bob": {"emperor": 2}},
        tables={"ann": {"farmer": 3}},
        discards=[["shogun", "daimyo"], ["envoy"]],
    )
    drain_draw2(state, 1)
    play(state, "ann draw draw2", "ann draw draw1", "ann lay monk 3")  # draw pile 2 is empty: the round ends
    return state


@pytest.mark.parametrize("explicit", [True, False])
def test_every_round_starts_from_a_fresh_complete_deck(explicit: bool) -> None:
    state = _fresh_round_2(explicit)
    summary = state_summary(state)
    assert summary["round_scores"] == [{"ann": 38, "bob": 0}]
    assert (summary["round"], summary["status"], summary["start_player"]) == (2, "playing", "bob")
    assert (summary["current_player"], summary["step"], summary["draws_left"]) == ("bob", "draw", 2)
    assert summary["tables"] == {"ann": {}, "bob": {}}
    assert summary["discard_piles"] == [[], []]
    assert summary["draw_piles"] == [52, 52]
    assert card_total(state) == 110
    counts: Counter[str] = Counter()
    for hand in summary["hands"].values():
        counts.update(hand)
    for pile in state.draw_piles:
        counts.update(TYPES[t] for t in pile)
    assert counts == Counter(dict(zip(TYPES, VALUES, strict=True)))
    if explicit:
        assert summary["hands"] == {"bob": {"ninja": 3}, "ann": {"samurai": 3}}
        events = play(state, "bob draw draw1", "bob draw draw2")
        assert [e["card"] for e in events] == ["daimyo", "shogun"]


def _first_turns(state: State, turns: int) -> list[object]:
    """What the deal and the first draws show: the summary, then every card drawn in ``turns`` turns."""
    seen: list[object] = [state_summary(state)]
    for _ in range(turns):
        take_turn(state)
        seen.append(state_summary(state)["hands"])
    return seen


@pytest.mark.parametrize("n", [2, 3, 4])
def test_same_seed_same_deal(n: int) -> None:
    first = new_game(PLAYERS[:n], seed=42)
    again = new_game(PLAYERS[:n], seed=42)
    assert _first_turns(first, 6) == _first_turns(again, 6)


@pytest.mark.parametrize(("seed", "other"), [(1, 2), (42, 43), (0, 1_000_003)])
def test_different_seeds_different_deals(seed: int, other: int) -> None:
    assert _first_turns(new_game(PLAYERS[:3], seed=seed), 6) != _first_turns(new_game(PLAYERS[:3], seed=other), 6)


def test_seeded_rounds_are_reproducible() -> None:
    a = new_game(["ann", "bob"], seed=9)
    b = new_game(["ann", "bob"], seed=9)
    for state in (a, b):
        finish_round(state)
    assert state_summary(a) == state_summary(b)
    assert a.draw_piles == b.draw_piles
