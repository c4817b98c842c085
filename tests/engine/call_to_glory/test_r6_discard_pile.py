"""R6 Which discard pile: discard pile 1 first, an empty pile must be formed, a choice only when both hold cards."""

from __future__ import annotations

import pytest

from engine.call_to_glory import Move, can_apply, legal_moves, state_summary
from tests.conftest import card_total, play
from tests.engine.call_to_glory.turn_helpers import at_act, refused

# (discard piles before, piles a discarded card may go on)
SITUATIONS = [
    ([[], []], {"discard1"}),
    ([["monk"], []], {"discard2"}),
    ([[], ["monk"]], {"discard1"}),
    ([["monk"], ["emperor", "shogun"]], {"discard1", "discard2"}),
]
IDS = ["both-empty", "2-empty", "1-empty", "none-empty"]


def _after(piles: list[list[str]], pile: str, *cards: str) -> list[list[str]]:
    out = [p[:] for p in piles]
    out[int(pile[-1]) - 1] += cards
    return out


@pytest.mark.parametrize(("piles", "allowed"), SITUATIONS, ids=IDS)
def test_legal_moves_list_exactly_the_allowed_piles(piles: list[list[str]], allowed: set[str]) -> None:
    state = at_act(hands={"ann": {"farmer": 1, "daimyo": 2}}, discards=piles)
    discards = [m for m in legal_moves(state) if m.do == "discard"]
    assert sorted((m.type, m.pile) for m in discards) == sorted((t, p) for t in ("farmer", "daimyo") for p in allowed)


@pytest.mark.parametrize("pile", ["discard1", "discard2"])
@pytest.mark.parametrize(("piles", "allowed"), SITUATIONS, ids=IDS)
def test_naming_a_pile(piles: list[list[str]], allowed: set[str], pile: str) -> None:
    state = at_act(hands={"ann": {"farmer": 1}}, discards=piles)
    if pile not in allowed:
        refused(state, f"ann discard farmer {pile}", "R6")
        return
    play(state, f"ann discard farmer {pile}")
    summary = state_summary(state)
    assert summary["discard_piles"] == _after(piles, pile, "farmer")
    assert summary["current_player"] == "bob"
    assert card_total(state) == 110


@pytest.mark.parametrize(("piles", "allowed"), SITUATIONS, ids=IDS)
def test_omitting_the_pile(piles: list[list[str]], allowed: set[str]) -> None:
    state = at_act(hands={"ann": {"farmer": 1}}, discards=piles)
    if len(allowed) > 1:
        refused(state, "ann discard farmer", "R6")
        return
    assert can_apply(state, Move.discard("ann", "farmer"))
    play(state, "ann discard farmer")
    (pile,) = allowed
    assert state_summary(state)["discard_piles"] == _after(piles, pile, "farmer")


def test_the_second_pile_is_formed_before_the_first_is_used_again() -> None:
    state = at_act(hands={"ann": {"farmer": 1, "monk": 1}})
    play(state, "ann discard farmer", "bob draw draw1", "bob draw discard1")  # bob takes the only discarded card
    assert state_summary(state)["discard_piles"] == [[], []]
    play(state, "bob discard farmer", "ann draw draw1", "ann draw draw2")
    assert state_summary(state)["discard_piles"] == [["farmer"], []]
    refused(state, "ann discard monk discard1", "R6")
    play(state, "ann discard monk", "bob draw draw1", "bob draw draw2")
    assert state_summary(state)["discard_piles"] == [["farmer"], ["monk"]]
    held = next(m.type for m in legal_moves(state) if m.do == "discard")
    refused(state, f"bob discard {held}", "R6")
    play(state, f"bob discard {held} discard1")
    assert state_summary(state)["discard_piles"] == [["farmer", held], ["monk"]]


@pytest.mark.parametrize("preference", ["smaller", "larger", "pile1", "pile2"])
@pytest.mark.parametrize(("piles", "allowed"), SITUATIONS[:3], ids=IDS[:3])
def test_a_beaten_set_obeys_r6_whatever_the_preference(
    piles: list[list[str]], allowed: set[str], preference: str
) -> None:
    state = at_act(hands={"ann": {"farmer": 4}}, tables={"bob": {"farmer": 3}}, discards=piles)
    play(state, f"bob pref {preference}", "ann lay farmer 4")
    (pile,) = allowed
    assert state_summary(state)["discard_piles"] == _after(piles, pile, "farmer", "farmer", "farmer")
