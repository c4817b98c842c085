"""Bots: always legal, deterministic where promised, and the heuristic bot plays well."""

from __future__ import annotations

from itertools import product

import pytest

from engine.call_to_glory import GAME, HeuristicBot, Options, RandomBot, apply, legal_moves, new_game, to_json
from engine.cli import play_game
from tests.conftest import arrange, game

CONFIGS = list(product((2, 3, 4), (False, True), (False, True)))


@pytest.mark.parametrize(("n", "tasks", "ninja"), CONFIGS)
def test_bots_only_choose_legal_moves(n: int, tasks: bool, ninja: bool) -> None:
    names = ["ann", "bob", "cy", "dee"][:n]
    state = new_game(names, Options(imperial_tasks=tasks, ninja_power=ninja), seed=n * 10 + tasks * 2 + ninja)
    bots = [HeuristicBot() if i % 2 == 0 else RandomBot(i) for i in range(n)]
    while not state.is_finished:
        move = bots[state.current].choose(state)
        assert move in legal_moves(state)
        apply(state, move)


def test_heuristic_bot_is_deterministic() -> None:
    def final(seed: int) -> dict[str, object]:
        state = play_game(GAME, ["a", "b", "c"], Options(ninja_power=True).to_json(), seed, [HeuristicBot()] * 3)
        return to_json(state)

    assert final(5) == final(5)


def test_heuristic_beats_random_bots() -> None:
    wins = 0
    games = 30
    for g in range(games):
        seat = g % 3
        bots: list[HeuristicBot | RandomBot] = [RandomBot(g * 3 + i) for i in range(3)]
        bots[seat] = HeuristicBot()
        state = play_game(
            GAME, ["a", "b", "c"], Options(imperial_tasks=g % 2 == 0, ninja_power=True).to_json(), g, bots
        )
        wins += seat in state.winners
    assert wins >= 0.8 * games


def test_heuristic_lays_a_set_that_beats_an_opponent() -> None:
    state = game(("ann", "bob"))
    arrange(state, hands={"ann": {"farmer": 4, "emperor": 1}}, tables={"bob": {"farmer": 3}})
    state.step, state.draws_left = "act", 0
    move = HeuristicBot().choose(state)
    assert (move.do, move.type, move.count) == ("lay", "farmer", 4)


def test_heuristic_does_not_hand_the_next_player_a_card_to_beat_with() -> None:
    state = game(("ann", "bob"))
    arrange(
        state,
        hands={"ann": {"monk": 1, "emperor": 1}},
        tables={"ann": {"monk": 2}},
        discards=[["daimyo"], ["shogun"]],
    )
    state.step, state.draws_left = "act", 0
    move = HeuristicBot().choose(state)
    assert move.do == "discard" and move.type == "emperor"


def test_heuristic_uses_a_ninja_to_wipe_out_a_valuable_set() -> None:
    state = game(("ann", "bob"), ninja_power=True)
    arrange(state, tables={"bob": {"farmer": 1, "emperor": 1}})
    state.ninjas = [1, 0]
    state.ninja_supply = 3
    move = HeuristicBot().choose(state)
    assert (move.do, move.target, move.type) == ("ninja", "bob", "farmer")
