"""Shared test helpers: hand-built decks, compact moves, and arranged situations."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import pytest

from engine.call_to_glory import Move, Options, State, apply, new_game
from engine.call_to_glory.cards import TYPE_INDEX, TYPES, VALUES
from tests.games import pick_a_number  # noqa: F401  (it registers the test-only game on import)

pytest_plugins = ["tests.apps"]


def deck(
    n: int,
    hands: Sequence[Sequence[str]] = (),
    draw1: Sequence[str] = (),
    draw2: Sequence[str] = (),
) -> list[str]:
    """A 110-card deck, top first, that deals ``hands`` (in dealing order, from the start
    player on) and puts ``draw1``/``draw2`` on top of the draw piles (top first), as R3 says.
    Every other card is filled in from the rest of the deck in R1 order."""
    left = Counter({t: v for t, v in zip(TYPES, VALUES, strict=True)})
    wanted = [c for h in hands for c in h] + list(draw1) + list(draw2)
    for c in wanted:
        left[c] -= 1
        assert left[c] >= 0, f"more {c} than the deck holds"
    filler = [t for t in TYPES for _ in range(left[t])]
    dealt: list[str] = []
    for k in range(n):
        h = list(hands[k]) if k < len(hands) else []
        assert len(h) <= 3
        while len(h) < 3:
            h.append(filler.pop())
        dealt += h
    rest = 110 - 3 * n
    half = (rest + 1) // 2
    pile1 = list(draw1) + [filler.pop() for _ in range(half - len(draw1))]
    pile2 = list(draw2) + filler
    assert len(pile2) == rest - half
    return dealt + pile1 + pile2


def game(
    players: Sequence[str] = ("ann", "bob"),
    hands: Sequence[Sequence[str]] = (),
    draw1: Sequence[str] = (),
    draw2: Sequence[str] = (),
    seed: int | None = 1,
    **options: object,
) -> State:
    """A new game whose round-1 deck is built by ``deck``; later rounds come from ``seed``."""
    opts = Options(**options)  # type: ignore[arg-type]
    return new_game(list(players), opts, seed=seed, decks=[deck(len(players), hands, draw1, draw2)])


def move(text: str) -> Move:
    """A move from compact text: 'ann draw draw1', 'ann lay farmer 3', 'ann discard monk [discard2]',
    'bob ninja ann farmer', 'ann reveal B', 'ann pref larger'."""
    player, do, *args = text.split()
    if do == "draw":
        return Move.draw(player, args[0])
    if do == "lay":
        return Move.lay(player, args[0], int(args[1]))
    if do == "discard":
        return Move.discard(player, args[0], args[1] if len(args) > 1 else None)
    if do == "ninja":
        return Move.ninja(player, args[0], args[1])
    if do == "reveal":
        return Move.reveal_task(player, args[0])
    if do == "pref":
        return Move.set_preference(player, args[0])
    raise ValueError(text)


def play(state: State, *moves: str) -> list[dict[str, object]]:
    """Apply compact moves in order; return the events they caused."""
    events: list[dict[str, object]] = []
    for text in moves:
        apply(state, move(text), events)
    return events


def arrange(
    state: State,
    *,
    hands: Mapping[str, Mapping[str, int]] | None = None,
    tables: Mapping[str, Mapping[str, int]] | None = None,
    discards: Sequence[Iterable[str]] | None = None,
) -> State:
    """Put cards into hands, onto tables and discard piles (bottom first), keeping all 110 cards:
    what is placed is taken out of the draw piles (from the bottom) and what is replaced goes back."""
    pool = state.draw_piles

    def take(t: int) -> None:
        for pile in (pool[1], pool[0]):  # bottom of the pile is index 0
            if t in pile:
                pile.remove(t)
                return
        raise AssertionError(f"no {TYPES[t]} left in the draw piles")

    def give_back(t: int, c: int) -> None:
        pool[1][0:0] = [t] * c

    def place(rows: list[list[int]], name: str, counts: Mapping[str, int]) -> None:
        p = state.index[name]
        for t, c in enumerate(rows[p]):
            give_back(t, c)
        rows[p] = [0] * len(TYPES)
        for tname, c in counts.items():
            t = TYPE_INDEX[tname]
            for _ in range(c):
                take(t)
            rows[p][t] = c

    for name, counts in (hands or {}).items():
        place(state.hands, name, counts)
    for name, counts in (tables or {}).items():
        place(state.tables, name, counts)
    if discards is not None:
        for i, cards in enumerate(discards):
            for t in state.discard_piles[i]:
                give_back(t, 1)
            state.discard_piles[i] = []
            for c in cards:
                take(TYPE_INDEX[c])
                state.discard_piles[i].append(TYPE_INDEX[c])
    state.owner = [-1] * len(TYPES)
    for p, row in enumerate(state.tables):
        for t, c in enumerate(row):
            if c:
                assert state.owner[t] < 0, f"two sets of {TYPES[t]}"
                state.owner[t] = p
    state.on_table = sum(1 for o in state.owner if o >= 0)
    return state


def card_total(state: State) -> int:
    """Character cards in hands, on tables and in all piles (always 110 while playing)."""
    return (
        sum(map(sum, state.hands))
        + sum(map(sum, state.tables))
        + sum(map(len, state.draw_piles))
        + sum(map(len, state.discard_piles))
    )


@pytest.fixture
def two() -> State:
    """A 2-player game (ann, bob) from a fixed seed."""
    return new_game(["ann", "bob"], seed=7)


@pytest.fixture
def three() -> State:
    """A 3-player game (ann, bob, cy) from a fixed seed."""
    return new_game(["ann", "bob", "cy"], seed=7)
