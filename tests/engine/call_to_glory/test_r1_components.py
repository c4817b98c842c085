"""R1 Components: 110 character cards of nine types, value = copies, and the lay minimum per player count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from engine.call_to_glory import TYPES, VALUES, FormatError, can_apply, legal_moves, new_game, state_summary
from tests.conftest import card_total, deck, move
from tests.engine.call_to_glory.turn_helpers import PLAYERS, at_act

# The table of R1, written out independently of engine/cards.py.
R1_VALUES = {
    "emperor": 6,
    "empress": 7,
    "daimyo": 8,
    "shogun": 9,
    "samurai": 12,
    "ninja": 14,
    "envoy": 16,
    "monk": 18,
    "farmer": 20,
}
R1_MINIMUM = {
    2: dict.fromkeys(R1_VALUES, 2),
    3: {t: 3 if t in ("samurai", "ninja", "envoy") else 2 for t in R1_VALUES},
    4: {t: 3 if t in ("samurai", "ninja", "envoy") else 2 for t in R1_VALUES},
}


def test_nine_types_with_their_values() -> None:
    assert dict(zip(TYPES, VALUES, strict=True)) == R1_VALUES
    assert sum(R1_VALUES.values()) == 110


@pytest.mark.parametrize("seed", [1, 7, 2024])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_shuffled_deck_is_the_110_cards_with_value_copies(n: int, seed: int) -> None:
    state = new_game(PLAYERS[:n], seed=seed)
    counts: Counter[str] = Counter()
    for hand in state_summary(state)["hands"].values():
        counts.update(hand)
    for pile in state.draw_piles:  # the order of the draw piles is hidden from every public view
        counts.update(TYPES[t] for t in pile)
    assert counts == Counter(R1_VALUES)
    assert card_total(state) == 110


def _without_last(cards: list[str]) -> list[str]:
    return cards[:-1]


def _with_extra(cards: list[str]) -> list[str]:
    return [*cards, "farmer"]


def _one_swapped(cards: list[str]) -> list[str]:
    out = cards[:]
    out[out.index("farmer")] = "emperor"
    return out


def _unknown_name(cards: list[str]) -> list[str]:
    return ["geisha", *cards[1:]]


@pytest.mark.parametrize("spoil", [_without_last, _with_extra, _one_swapped, _unknown_name])
def test_a_deck_that_is_not_the_110_cards_is_refused(spoil: Callable[[list[str]], list[str]]) -> None:
    cards = deck(2)
    new_game(["ann", "bob"], seed=1, decks=[cards])  # the unspoilt deck is accepted
    with pytest.raises(FormatError):
        new_game(["ann", "bob"], seed=1, decks=[spoil(cards)])


@pytest.mark.parametrize("kind", list(R1_VALUES))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_lay_minimum_table(n: int, kind: str) -> None:
    state = at_act(PLAYERS[:n], hands={"ann": {kind: 4}})
    counts = sorted(m.count for m in legal_moves(state) if m.do == "lay" and m.type == kind)
    low = R1_MINIMUM[n][kind]
    assert counts == list(range(low, 5))
    assert not can_apply(state, move(f"ann lay {kind} {low - 1}"))
    assert can_apply(state, move(f"ann lay {kind} {low}"))


@pytest.mark.parametrize(("n", "ok"), [(1, False), (2, True), (3, True), (4, True), (5, False)])
def test_two_to_four_players(n: int, ok: bool) -> None:
    names = [f"p{i}" for i in range(n)]
    if ok:
        assert len(state_summary(new_game(names, seed=1))["hands"]) == n
    else:
        with pytest.raises(FormatError):
            new_game(names, seed=1)
