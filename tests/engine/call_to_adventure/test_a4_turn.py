"""A4: the main action, traits and their prerequisites, the Story, the rows (refill at once, reshuffle)."""

from __future__ import annotations

import pytest

from engine import IllegalMove
from engine.call_to_adventure import Move, apply, legal_moves

from .helpers import do, game


def test_a_trait_is_gained_tucked_and_its_place_refilled_at_once() -> None:
    state = game(act1=["t-free", "c-easy", "c-hard", "c-five", "f1-0"], origins=["o-str", "o-wis"])
    events = do(state, "ann", "trait", card="t-free")
    ann = state.ps[0]
    assert ann.story == [("t-free", 0)] and ann.xp == 4
    assert state.rows[0] == ["f1-0", "c-easy", "c-hard", "c-five"]
    assert {"event": "refill", "act": 1, "card": "f1-0"} in events
    assert state.phase == "after" and Move("ann", "end") in legal_moves(state, "ann")
    with pytest.raises(IllegalMove, match="A4: You cannot gain a trait now"):
        apply(state, Move("ann", "trait", card="c-easy"))


def test_prerequisites_spend_icon_corruption_virtue() -> None:
    state = game(act1=["t-spend", "t-icon", "t-corr", "t-virt"], origins=["o-str", "o-wis"])
    legal = {m.card for m in legal_moves(state, "ann") if m.do == "trait"}
    assert legal == {"t-spend"}  # 3 experience, no wisdom, neutral track
    with pytest.raises(IllegalMove) as caught:
        apply(state, Move("ann", "trait", card="t-icon"))
    assert caught.value.rule == "A4.1"
    state.ps[0].level = 4  # C2
    assert {m.card for m in legal_moves(state, "ann") if m.do == "trait"} == {"t-spend", "t-corr"}
    state.ps[0].level = 1  # V1
    assert {m.card for m in legal_moves(state, "ann") if m.do == "trait"} == {"t-spend", "t-virt"}
    do(state, "ann", "trait", card="t-spend")
    assert state.ps[0].xp == 1 and state.ps[0].story == [("t-spend", 0)]
    do(state, "ann", "end")
    assert {m.card for m in legal_moves(state, "bob") if m.do == "trait"} >= {"t-icon"}  # bob has a Wisdom icon


def test_discard_only_when_nothing_is_open_and_pass_when_no_card() -> None:
    state = game(act1=["t-icon", "t-corr", "t-virt", "t-spend", "f1-0"], origins=["o-str", "o-wis"])
    state.ps[0].xp = 1
    legal = legal_moves(state, "ann")
    assert {m.do for m in legal} == {"discard", "journey"} and len([m for m in legal if m.do == "discard"]) == 4
    do(state, "ann", "discard", card="t-corr")
    assert state.discards[0] == ["t-corr"] and state.rows[0][1] == "f1-0"
    state = game(act1=["t-icon", "t-corr", "t-virt", "t-spend"], origins=["o-str", "o-wis"])
    state.discards[0] += [c for c in state.rows[0] if c]
    state.rows[0] = [None] * 4
    assert [m.do for m in legal_moves(state, "ann")] == ["pass"]
    with pytest.raises(IllegalMove, match="A4"):
        apply(state, Move("ann", "discard", card="t-icon"))


def test_journey_costs_one_experience_once_per_turn() -> None:
    state = game(act1=["c-easy", "c-hard", "c-five", "t-free", "f1-0", "f1-1"], origins=["o-str", "o-wis"])
    do(state, "ann", "journey", card="c-hard")
    assert state.ps[0].xp == 2 and state.discards[0] == ["c-hard"] and state.rows[0][1] == "f1-0"
    with pytest.raises(IllegalMove, match="journeyed this turn already"):
        apply(state, Move("ann", "journey", card="c-five"))
    do(state, "ann", "trait", card="t-free")
    assert state.players[state.current] == "bob"  # nothing more open: the turn ended by itself (A10)


def test_an_empty_deck_is_refilled_from_its_shuffled_discard_pile() -> None:
    state = game(act1=["t-free", "c-easy", "c-hard", "c-five"], origins=["o-str", "o-wis"])
    state.discards[0] = list(reversed(state.decks["act1"]))
    state.decks["act1"] = []
    events = do(state, "ann", "trait", card="t-free")
    assert any(e["event"] == "reshuffle" for e in events)
    assert state.rows[0][0] is not None and not state.discards[0] and len(state.decks["act1"]) > 0
    again = game(act1=["t-free", "c-easy", "c-hard", "c-five"], origins=["o-str", "o-wis"])
    again.discards[0] = list(reversed(again.decks["act1"]))
    again.decks["act1"] = []
    do(again, "ann", "trait", card="t-free")
    assert again.decks["act1"] == state.decks["act1"]  # the reshuffle comes from the seed


def test_a_place_stays_empty_when_deck_and_discards_are_empty() -> None:
    state = game(act1=["t-free", "c-easy", "c-hard", "c-five"], origins=["o-str", "o-wis"])
    state.decks["act1"] = []
    do(state, "ann", "trait", card="t-free")
    assert state.rows[0][0] is None
