"""Bots: the heuristic bot clearly beats random bots at 2, 3 and 4 players; the balance report adds up."""

from __future__ import annotations

import pytest

from engine import GAMES
from engine.call_to_adventure.balance import report
from engine.cli import play_game

GAME = GAMES["call-to-adventure"]


@pytest.mark.parametrize(("n", "least"), [(2, 0.75), (3, 0.55), (4, 0.5)])
def test_the_heuristic_bot_beats_random_bots(n: int, least: float) -> None:
    games, won = 24, 0.0
    for g in range(games):
        seat = g % n  # the heuristic bot sits in every seat in turn
        players = [f"p{i}" for i in range(n)]
        bots = [GAME.bots["heuristic" if i == seat else "random"](g * 10 + i) for i in range(n)]
        result = GAME.result(play_game(GAME, players, {}, 1000 + g, bots))
        assert result is not None
        won += (f"p{seat}" in result.winners) / len(result.winners)
    assert won / games >= least, f"{won / games:.2f} < {least} (chance: {1 / n:.2f})"


def test_the_balance_report_counts_every_game() -> None:
    figures = report(3, 6)
    assert sum(figures["ends"].values()) == 6 and figures["turns_per_game"] > 9
    assert all(0 <= r <= 1 for r in figures["win_rate_destiny"].values())
    assert 0 < figures["overcome_per_act"]["act1"] < 1


@pytest.mark.parametrize("options", [{"allies_adversaries": True}, {"coop": True}, {"coop": True, "first_game": True}])
@pytest.mark.parametrize("kind", ["heuristic", "random"])
def test_bots_finish_every_variant(options: dict[str, bool], kind: str) -> None:
    for n in range(1 if options.get("coop") else 2, 5):
        players = [f"p{i}" for i in range(n)]
        state = play_game(GAME, players, options, 7 * n, [GAME.bots[kind](i) for i in range(n)])
        assert GAME.result(state) is not None
