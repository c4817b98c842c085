"""R4 Turn order and start player: cyclic seat order; the next round's start player and its tie-breakers."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from engine.call_to_glory import Options, State, new_game, state_summary
from tests.conftest import arrange
from tests.engine.call_to_glory.turn_helpers import PLAYERS, finish_round, refused, take_turn

Tables = Mapping[str, Mapping[str, int]]


@pytest.mark.parametrize(("n", "start"), [(n, s) for n in (2, 3, 4) for s in range(n)])
def test_turn_order_is_cyclic_from_the_start_player(n: int, start: int) -> None:
    players = PLAYERS[:n]
    state = new_game(players, Options(first_player=players[start]), seed=4)
    seen = []
    for _ in range(2 * n + 1):
        seen.append(state_summary(state)["current_player"])
        take_turn(state)
    assert seen == [players[(start + k) % n] for k in range(2 * n + 1)]
    assert state_summary(state)["start_player"] == players[start]


def test_a_stranger_may_not_move() -> None:
    state = new_game(["ann", "bob"], seed=1)
    refused(state, "zoe draw draw1", "R4")


def _play_round(state: State, tables: Tables) -> None:
    arrange(state, tables=tables)
    finish_round(state)


E2 = {"emperor": 2}
F2 = {"farmer": 2}


@pytest.mark.parametrize(
    ("players", "first", "tables", "expected"),
    [
        # lowest total starts
        (3, "ann", {"ann": F2, "bob": E2, "cy": {"monk": 2}}, "bob"),
        (3, "ann", {"ann": E2, "bob": {"empress": 2}, "cy": {"monk": 2}}, "ann"),
        (2, "ann", {"ann": F2}, "bob"),
        (2, "bob", {"ann": {"monk": 2}, "bob": F2}, "ann"),
        (4, "dan", {"ann": {"daimyo": 2}, "bob": {"empress": 2}, "cy": {"shogun": 2}, "dan": E2}, "dan"),
        # tied totals (so tied round-1 scores): first in turn order from the previous start player, inclusive
        (3, "bob", {"ann": {"emperor": 2, "farmer": 2}, "bob": {"monk": 2, "shogun": 2},
                    "cy": {"samurai": 3, "ninja": 3}}, "cy"),
        (3, "bob", {"ann": {"emperor": 2, "farmer": 2}, "bob": {"samurai": 3, "ninja": 3},
                    "cy": {"monk": 2, "shogun": 2}}, "bob"),
        (3, "cy", {"ann": F2}, "cy"),
        (3, "cy", {}, "cy"),
        (2, "bob", {"ann": {"emperor": 2, "farmer": 2}, "bob": {"daimyo": 2, "monk": 2}}, "bob"),
        (3, "bob", {"ann": {"emperor": 2, "farmer": 2}, "bob": {"daimyo": 2, "monk": 2},
                    "cy": {"samurai": 3, "ninja": 3}}, "bob"),
        (3, "cy", {"ann": {"emperor": 2, "farmer": 2}, "bob": {"daimyo": 2, "monk": 2},
                   "cy": {"samurai": 3, "ninja": 3}}, "cy"),
        (4, "bob", {"bob": E2}, "cy"),
        (4, "dan", {"ann": E2}, "dan"),
        (4, "cy", {"cy": F2, "bob": E2}, "dan"),
    ],
)  # fmt: skip
def test_start_player_of_round_2(players: int, first: str, tables: Tables, expected: str) -> None:
    state = new_game(PLAYERS[:players], Options(first_player=first), seed=8)
    _play_round(state, tables)
    summary = state_summary(state)
    assert summary["round"] == 2
    assert summary["start_player"] == expected
    assert summary["current_player"] == expected


@pytest.mark.parametrize(
    ("first", "round1", "round2", "expected"),
    [
        # round 1 leaves ann (6) to start; then ann and bob have 13, bob scored less in round 2
        ("ann", {"ann": E2, "bob": {"empress": 2}, "cy": F2}, {"ann": {"empress": 2}, "bob": E2, "cy": F2}, "bob"),
        # round 1 leaves bob (6) to start; then ann and bob have 13, ann scored less in round 2
        ("ann", {"ann": {"empress": 2}, "bob": E2, "cy": F2}, {"ann": E2, "bob": {"empress": 2}, "cy": F2}, "ann"),
        # ann (6) starts round 2; then all three have 14, cy scored least (0) in round 2
        ("ann", {"ann": E2, "bob": {"daimyo": 2}, "cy": {"ninja": 3}}, {"ann": {"daimyo": 2}, "bob": E2}, "cy"),
        # bob (12) starts round 2; ann and cy then have 26 and both scored 0 in round 2:
        # turn order from the round-2 start player bob (not from the round-1 start player ann)
        ("ann", {"ann": {"emperor": 2, "farmer": 2}, "bob": {"samurai": 3}, "cy": {"daimyo": 2, "monk": 2}},
         {"bob": F2}, "cy"),
    ],
)  # fmt: skip
def test_start_player_tie_broken_by_last_round_score(first: str, round1: Tables, round2: Tables, expected: str) -> None:
    state = new_game(["ann", "bob", "cy"], Options(first_player=first), seed=8)
    _play_round(state, round1)
    _play_round(state, round2)
    summary = state_summary(state)
    assert summary["round"] == 3
    assert summary["start_player"] == expected
    assert summary["current_player"] == expected
