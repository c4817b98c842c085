"""Helpers shared by the R1-R6 test modules: refused moves, quick turns and quick round ends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from engine.call_to_glory import IllegalMove, Move, State, apply, can_apply, legal_moves, state_summary
from engine.call_to_glory.cards import TYPES
from tests.conftest import arrange, game, move

PLAYERS = ("ann", "bob", "cy", "dan")


def refused(state: State, m: Move | str, rule: str) -> IllegalMove:
    """Assert that ``m`` is refused citing ``rule``, that can_apply agrees and that nothing changed."""
    mv = move(m) if isinstance(m, str) else m
    before = state_summary(state)
    assert not can_apply(state, mv)
    assert mv not in legal_moves(state)
    with pytest.raises(IllegalMove) as info:
        apply(state, mv)
    assert info.value.rule == rule, info.value
    assert state_summary(state) == before
    return info.value


def at_act(
    players: Sequence[str] = ("ann", "bob"),
    hands: Mapping[str, Mapping[str, int]] | None = None,
    tables: Mapping[str, Mapping[str, int]] | None = None,
    discards: Sequence[Sequence[str]] | None = None,
    **options: object,
) -> State:
    """A game where the start player has drawn twice (from draw1 and draw2) and must now lay or discard;
    hands, tables and discard piles are then arranged as given."""
    state = game(players, **options)
    p = state_summary(state)["current_player"]
    apply(state, Move.draw(p, "draw1"))
    apply(state, Move.draw(p, "draw2"))
    return arrange(state, hands=hands, tables=tables, discards=discards)


def drain_draw2(state: State, keep: int) -> State:
    """Leave only the top ``keep`` cards on draw pile 2; the others go onto discard pile 1 (110 cards kept)."""
    pile = state.draw_piles[1]  # top last; the order of a draw pile is hidden from every public view
    moved = [TYPES[t] for t in pile[: len(pile) - keep]]
    d1, d2 = ([TYPES[t] for t in p] for p in state.discard_piles)
    arrange(state, discards=[d1 + moved, d2])
    assert state_summary(state)["draw_piles"][1] == keep
    return state


def take_turn(state: State) -> None:
    """The current player draws from draw1 and draw2, then makes the first legal discard."""
    p = state_summary(state)["current_player"]
    apply(state, Move.draw(p, "draw1"))
    apply(state, Move.draw(p, "draw2"))
    apply(state, next(m for m in legal_moves(state) if m.do == "discard"))


def finish_round(state: State) -> None:
    """End the round at once: the current player (before any draw) draws the last card of draw pile 2 and
    discards (R8.3); V1 task reveals, if any, are made with the first legal reveal."""
    summary = state_summary(state)
    assert (summary["status"], summary["step"], summary["draws_left"]) == ("playing", "draw", 2)
    drain_draw2(state, 1)
    take_turn(state)
    while state_summary(state)["status"] == "revealing":
        apply(state, legal_moves(state)[0])
