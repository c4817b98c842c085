"""R5 A turn: two draws (R5.1), then one lay (R5.2) or one discard (R5.3), which ends the turn."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.call_to_glory import TYPES, State, legal_moves, state_summary
from tests.conftest import arrange, card_total, game, play
from tests.engine.call_to_glory.turn_helpers import PLAYERS, at_act, drain_draw2, refused

FARMERS = [["farmer"] * 3]


def _step(state: State) -> tuple[object, ...]:
    s = state_summary(state)
    return s["current_player"], s["step"], s["draws_left"]


# --- R5: the shape of a turn -------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["ann discard farmer", "ann lay farmer 2"])
def test_two_draws_then_one_action_ends_the_turn(action: str) -> None:
    state = game(hands=FARMERS)
    assert _step(state) == ("ann", "draw", 2)
    play(state, "ann draw draw1")
    assert _step(state) == ("ann", "draw", 1)
    play(state, "ann draw draw2")
    assert _step(state) == ("ann", "act", None)
    assert {m.do for m in legal_moves(state)} == {"lay", "discard"}
    play(state, action)
    assert _step(state) == ("bob", "draw", 2)
    assert sum(state_summary(state)["hands"]["ann"].values()) == (4 if "discard" in action else 3)


def test_a_third_draw_is_refused() -> None:
    state = game()
    play(state, "ann draw draw1", "ann draw draw2")
    for pile in ("draw1", "draw2"):
        refused(state, f"ann draw {pile}", "R5")
    arrange(state, discards=[["monk"], ["emperor"]])
    for pile in ("discard1", "discard2"):
        refused(state, f"ann draw {pile}", "R5")


@pytest.mark.parametrize("action", ["ann lay farmer 2", "ann lay farmer 3", "ann discard farmer"])
@pytest.mark.parametrize("draws", [0, 1])
def test_lay_or_discard_before_both_draws_is_refused(draws: int, action: str) -> None:
    state = game(hands=FARMERS)
    play(state, *["ann draw draw1"][:draws])
    refused(state, action, "R5")
    assert all(m.do == "draw" for m in legal_moves(state))


@pytest.mark.parametrize(
    ("draws", "other"),
    [(0, "bob draw draw1"), (1, "bob draw draw2"), (2, "bob discard farmer"), (2, "bob lay farmer 2"),
     (0, "bob lay farmer 2"), (2, "bob draw draw1")],
)  # fmt: skip
def test_moving_out_of_turn_is_refused(draws: int, other: str) -> None:
    state = game(hands=[["monk"] * 3, ["farmer"] * 3])
    play(state, *["ann draw draw1", "ann draw draw2"][:draws])
    refused(state, other, "R4")


# --- R5.1 Draws ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("first", ["draw1", "draw2", "discard1", "discard2"])
def test_second_draw_from_another_pile(first: str) -> None:
    state = arrange(game(), discards=[["monk", "farmer"], ["emperor", "ninja"]])
    play(state, f"ann draw {first}")
    refused(state, f"ann draw {first}", "R5.1")
    assert {m.pile for m in legal_moves(state)} == {"draw1", "draw2", "discard1", "discard2"} - {first}


def test_second_draw_from_another_pile_even_when_the_others_are_empty() -> None:
    state = arrange(game(), discards=[["monk", "farmer"], []])
    drain_draw2(state, 0)  # not reachable in play, but R5.1 must hold even then
    play(state, "ann draw discard1")
    assert state_summary(state)["discard_piles"][0] != []
    refused(state, "ann draw discard1", "R5.1")
    assert [m.pile for m in legal_moves(state)] == ["draw1"]


@pytest.mark.parametrize("pile", ["discard1", "discard2"])
@pytest.mark.parametrize("draws", [0, 1])
def test_an_empty_pile_cannot_be_drawn_from(draws: int, pile: str) -> None:
    state = game()
    play(state, *["ann draw draw1"][:draws])
    refused(state, f"ann draw {pile}", "R5.1")
    assert "discard1" not in {m.pile for m in legal_moves(state)}


def test_an_emptied_pile_cannot_be_drawn_from() -> None:
    state = arrange(game(), discards=[["monk"], []])
    play(state, "ann draw discard1")
    refused(state, "ann draw discard2", "R5.1")
    assert {m.pile for m in legal_moves(state)} == {"draw1", "draw2"}


def test_an_empty_draw_pile_cannot_be_drawn_from() -> None:
    state = drain_draw2(game(), 0)  # not reachable in play: the round would have ended
    refused(state, "ann draw draw2", "R5.1")
    assert "draw2" not in {m.pile for m in legal_moves(state)}


@pytest.mark.parametrize("order", [("draw2", "draw1"), ("draw1", "draw2"), ("draw2", "discard1")])
@pytest.mark.parametrize("action", ["ann discard monk", "ann lay farmer 2"])
def test_drawing_the_last_card_does_not_end_the_turn(order: tuple[str, str], action: str) -> None:
    state = arrange(game(), hands={"ann": {"farmer": 2, "monk": 1}}, tables={"bob": {"emperor": 2}})
    drain_draw2(state, 1)
    play(state, f"ann draw {order[0]}")
    assert _step(state) == ("ann", "draw", 1)
    play(state, f"ann draw {order[1]}")
    summary = state_summary(state)
    assert summary["draw_piles"][1] == 0
    assert (summary["status"], summary["round"], summary["round_scores"]) == ("playing", 1, [])
    assert _step(state) == ("ann", "act", None)
    assert {m.do for m in legal_moves(state)} == {"lay", "discard"}
    play(state, action)  # only now does the round end (R8.3)
    summary = state_summary(state)
    ann = 20 if "lay" in action else 0
    assert summary["round_scores"] == [{"ann": ann, "bob": 6}]
    assert summary["round"] == 2


def test_a_discard_pile_gives_its_top_card() -> None:
    state = arrange(game(), hands={"ann": {}}, discards=[["monk", "farmer"], ["emperor", "ninja"]])
    events = play(state, "ann draw discard1", "ann draw discard2")
    assert [e["card"] for e in events] == ["farmer", "ninja"]
    summary = state_summary(state)
    assert summary["hands"]["ann"] == {"farmer": 1, "ninja": 1}
    assert summary["discard_piles"] == [["monk"], ["emperor"]]
    assert card_total(state) == 110


# --- R5.2 Lay a set -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_lay_minimum(n: int, kind: str) -> None:
    low = 3 if n >= 3 and kind in ("samurai", "ninja", "envoy") else 2
    state = at_act(PLAYERS[:n], hands={"ann": {kind: 3}})
    refused(state, f"ann lay {kind} 1", "R5.2")
    if low == 3:
        refused(state, f"ann lay {kind} 2", "R5.2")
    play(state, f"ann lay {kind} {low}")
    summary = state_summary(state)
    assert summary["tables"]["ann"] == {kind: low}
    assert summary["hands"]["ann"] == ({kind: 3 - low} if low < 3 else {})


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_count_may_be_less_than_held(count: int) -> None:
    state = at_act(hands={"ann": {"farmer": 5, "monk": 1}})
    assert sorted(m.count for m in legal_moves(state) if m.do == "lay" and m.type == "farmer") == [2, 3, 4, 5]
    play(state, f"ann lay farmer {count}")
    summary = state_summary(state)
    assert summary["tables"]["ann"] == {"farmer": count}
    assert summary["hands"]["ann"] == {t: c for t, c in {"farmer": 5 - count, "monk": 1}.items() if c}
    assert card_total(state) == 110


@pytest.mark.parametrize(("hand", "lay"), [({"farmer": 2}, "farmer 3"), ({"monk": 3}, "farmer 2"), ({}, "monk 2")])
def test_laying_cards_not_held_is_refused(hand: dict[str, int], lay: str) -> None:
    state = at_act(hands={"ann": hand})
    refused(state, f"ann lay {lay}", "R5.2")


@pytest.mark.parametrize("owner", ["bob", "ann"])
@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_beating_a_set_needs_strictly_more_cards(owner: str, count: int) -> None:
    state = at_act(hands={"ann": {"farmer": 5}}, tables={owner: {"farmer": 3}})
    lays = sorted(m.count for m in legal_moves(state) if m.do == "lay" and m.type == "farmer")
    assert lays == [4, 5]
    if count <= 3:
        refused(state, f"ann lay farmer {count}", "R5.2")
        return
    play(state, f"ann lay farmer {count}")
    summary = state_summary(state)
    assert summary["tables"]["ann"] == {"farmer": count}
    if owner == "bob":
        assert summary["tables"]["bob"] == {}
    assert summary["hands"]["ann"] == ({"farmer": 5 - count} if count < 5 else {})
    discarded = Counter(c for pile in summary["discard_piles"] for c in pile)
    assert discarded == {"farmer": 3}  # the beaten set, all of it, on a discard pile
    assert card_total(state) == 110


@pytest.mark.parametrize("owner", ["bob", "ann"])
def test_at_most_one_set_of_a_type(owner: str) -> None:
    state = at_act(("ann", "bob", "cy"), hands={"ann": {"monk": 4}}, tables={owner: {"monk": 2}, "cy": {"farmer": 2}})
    play(state, "ann lay monk 4")
    tables = state_summary(state)["tables"]
    assert [p for p, row in tables.items() if "monk" in row] == ["ann"]
    assert tables["ann"]["monk"] == 4
    assert tables["cy"] == {"farmer": 2}


def test_a_set_is_never_added_to() -> None:
    state = at_act(hands={"ann": {"farmer": 3}}, tables={"ann": {"farmer": 3}})
    assert not [m for m in legal_moves(state) if m.do == "lay"]
    for count in (1, 2, 3):
        refused(state, f"ann lay farmer {count}", "R5.2")
    assert state_summary(state)["tables"]["ann"] == {"farmer": 3}
    arrange(state, hands={"ann": {"farmer": 4}})
    play(state, "ann lay farmer 4")
    summary = state_summary(state)
    assert summary["tables"]["ann"] == {"farmer": 4}  # replaced, not 3 + 4
    assert summary["discard_piles"] == [["farmer"] * 3, []]


def test_one_lay_per_turn() -> None:
    state = at_act(hands={"ann": {"farmer": 2, "monk": 2}})
    play(state, "ann lay farmer 2")
    refused(state, "ann lay monk 2", "R4")
    assert state_summary(state)["tables"]["ann"] == {"farmer": 2}


# --- R5.3 Discard a card ------------------------------------------------------------------------------------


def test_discard_puts_one_card_on_a_pile_and_ends_the_turn() -> None:
    state = at_act(hands={"ann": {"farmer": 2, "monk": 1}})
    play(state, "ann discard farmer")
    summary = state_summary(state)
    assert summary["hands"]["ann"] == {"farmer": 1, "monk": 1}
    assert summary["discard_piles"] == [["farmer"], []]
    assert _step(state) == ("bob", "draw", 2)
    refused(state, "ann discard monk", "R4")


@pytest.mark.parametrize("pile", [None, "discard1"])
def test_discarding_a_card_not_held_is_refused(pile: str | None) -> None:
    state = at_act(hands={"ann": {"farmer": 2}})
    refused(state, "ann discard monk" + (f" {pile}" if pile else ""), "R5.3")
