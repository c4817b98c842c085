"""R2 Game options: number of rounds (defaults and bounds), Imperial Tasks, Ninja power, round-1 start player."""

from __future__ import annotations

from typing import Any

import pytest

from engine.call_to_glory import FormatError, Options, State, new_game, state_summary
from tests.engine.call_to_glory.turn_helpers import finish_round


def _rounds_played(state: State) -> int:
    """Play the game to its end, one quick round at a time, checking the round numbers on the way."""
    played = 0
    while state_summary(state)["status"] != "finished":
        played += 1
        assert state_summary(state)["round"] == played
        finish_round(state)
        assert played <= 10, "the game does not end"
    summary = state_summary(state)
    assert len(summary["round_scores"]) == played
    assert summary["round"] == played
    return played


@pytest.mark.parametrize(
    ("options", "rounds"),
    [
        ({}, 4),
        ({"imperial_tasks": True}, 3),
        ({"ninja_power": True}, 4),
        ({"imperial_tasks": True, "ninja_power": True}, 3),
        ({"rounds": 1}, 1),
        ({"rounds": 2}, 2),
        ({"rounds": 3}, 3),
        ({"rounds": 4}, 4),
        ({"rounds": 1, "imperial_tasks": True}, 1),
        ({"rounds": 2, "imperial_tasks": True}, 2),
        ({"rounds": 3, "imperial_tasks": True}, 3),
    ],
)
def test_number_of_rounds(options: dict[str, Any], rounds: int) -> None:
    assert Options(**options).to_json()["rounds"] == rounds
    state = new_game(["ann", "bob", "cy"], Options(**options), seed=3)
    assert _rounds_played(state) == rounds


@pytest.mark.parametrize(
    ("rounds", "tasks"),
    [(0, False), (5, False), (-1, False), (0, True), (4, True), (5, True), (2.0, False), (True, False), ("2", False)],
)
def test_rounds_out_of_bounds_are_refused(rounds: Any, tasks: bool) -> None:
    with pytest.raises(FormatError):
        new_game(["ann", "bob"], Options(rounds=rounds, imperial_tasks=tasks), seed=1)


@pytest.mark.parametrize(
    ("options", "tasks", "ninjas"),
    [({}, False, False), ({"imperial_tasks": True}, True, False), ({"ninja_power": True}, False, True),
     ({"imperial_tasks": True, "ninja_power": True}, True, True)],
)  # fmt: skip
def test_variants_are_off_by_default_and_may_be_combined(options: dict[str, Any], tasks: bool, ninjas: bool) -> None:
    summary = state_summary(new_game(["ann", "bob"], Options(**options), seed=1))
    assert ("tasks" in summary, "revealed_tasks" in summary) == (tasks, tasks)
    assert ("ninjas" in summary, "ninja_supply" in summary) == (ninjas, ninjas)
    if tasks:
        assert all(len(t) == 3 for t in summary["tasks"].values())
    if ninjas:
        assert summary["ninja_supply"] == 4


@pytest.mark.parametrize(("first", "expected"), [(None, "ann"), ("ann", "ann"), ("bob", "bob"), ("dan", "dan")])
def test_first_player(first: str | None, expected: str) -> None:
    summary = state_summary(new_game(["ann", "bob", "cy", "dan"], Options(first_player=first), seed=1))
    assert summary["start_player"] == expected
    assert summary["current_player"] == expected


def test_first_player_must_play() -> None:
    with pytest.raises(FormatError):
        new_game(["ann", "bob"], Options(first_player="cy"), seed=1)
