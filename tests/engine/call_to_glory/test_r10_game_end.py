"""R10: the end of the game, the winner, the tie-breaks, and that nothing may be played afterwards."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from engine.call_to_glory import (
    IllegalMove,
    Options,
    State,
    apply,
    can_apply,
    legal_moves,
    new_game,
    round_details,
    state_summary,
)
from tests.conftest import arrange, deck, game, move, play

TYPES = ("emperor", "empress", "daimyo", "shogun", "samurai", "ninja", "envoy", "monk", "farmer")


def end_round(state: State, tables: Mapping[str, Mapping[str, int]], lay: str) -> None:
    """The player on turn ends the round by laying 2 ``lay``, with ``tables`` arranged first
    (their own table must then reach the R8.1 threshold)."""
    p = state.current_player
    assert p is not None
    arrange(state, tables=tables, hands={p: {lay: 2}})
    events = play(state, f"{p} draw draw1", f"{p} draw draw2", f"{p} lay {lay} 2")
    assert any(e["event"] == "round_end" for e in events)


def sets(*types: str) -> dict[str, int]:
    return dict.fromkeys(types, 2)


FIVE = ("emperor", "empress", "daimyo", "shogun", "samurai")

TIES = {
    # round 1 (ann on turn): tables, ann's lay; round 2 (bob on turn): tables, bob's lay; scores; winners
    "best round in last round wins": (
        ({"ann": sets(*FIVE)}, "farmer"),
        ({"bob": sets("empress", "daimyo", "shogun", "samurai", "ninja"), "ann": sets("emperor")}, "monk"),
        [{"ann": 62, "bob": 0}, {"ann": 6, "bob": 68}],
        ["bob"],
    ),
    "best round in first round wins": (
        ({"ann": sets(*FIVE), "bob": sets("monk")}, "envoy"),
        ({"bob": sets(*FIVE), "ann": sets("envoy")}, "ninja"),
        [{"ann": 58, "bob": 18}, {"ann": 16, "bob": 56}],
        ["ann"],
    ),
    "same best round: shared victory": (
        ({"ann": sets(*FIVE)}, "farmer"),
        ({"bob": sets(*FIVE)}, "farmer"),
        [{"ann": 62, "bob": 0}, {"ann": 0, "bob": 62}],
        ["ann", "bob"],
    ),
}


@pytest.mark.parametrize("case", list(TIES))
def test_tie_on_total_broken_by_best_single_round(case: str) -> None:
    first, second, scores, winners = TIES[case]
    state = game(("ann", "bob"), rounds=2)
    end_round(state, *first)
    assert state_summary(state)["status"] == "playing"
    assert state_summary(state)["current_player"] == "bob"  # lowest total starts round 2 (R4)
    end_round(state, *second)
    summary = state_summary(state)
    assert summary["round_scores"] == scores
    totals = summary["totals"]
    assert totals["ann"] == totals["bob"]
    assert summary["status"] == "finished"
    assert summary["winners"] == winners


def test_most_total_points_wins_even_with_worse_best_round() -> None:
    state = game(("ann", "bob"), rounds=2)
    end_round(state, {"ann": sets(*FIVE)}, "farmer")  # ann 62, bob 0
    end_round(state, {"bob": sets("emperor", "empress", "daimyo", "shogun", "ninja"), "ann": sets("monk")}, "envoy")
    summary = state_summary(state)
    assert summary["round_scores"] == [{"ann": 62, "bob": 0}, {"ann": 18, "bob": 60}]
    assert summary["winners"] == ["ann"]


def test_shared_victory_of_two_among_three() -> None:
    """Totals 53/53/14 with best rounds 53/53: ann and bob share, cy does not."""
    state = game(("ann", "bob", "cy"), rounds=2)
    end_round(state, {"ann": sets("emperor", "empress", "daimyo", "samurai")}, "farmer")  # ann 53
    assert state_summary(state)["round_scores"] == [{"ann": 53, "bob": 0, "cy": 0}]
    starter = state_summary(state)["current_player"]
    assert starter == "bob"  # tie on total and round score: first in turn order from ann (R4)
    end_round(state, {"bob": sets("emperor", "empress", "daimyo", "samurai"), "ann": {}, "cy": sets("ninja")}, "farmer")
    summary = state_summary(state)
    assert summary["totals"] == {"ann": 53, "bob": 53, "cy": 14}
    assert summary["winners"] == ["ann", "bob"]


def test_single_round_game_clear_winner() -> None:
    state = game(("ann", "bob", "cy"), rounds=1)
    end_round(state, {"ann": sets("emperor", "empress", "daimyo", "shogun"), "cy": sets("monk")}, "farmer")
    summary = state_summary(state)
    assert summary["totals"] == {"ann": 50, "bob": 0, "cy": 18}
    assert summary["winners"] == ["ann"]


def finished_game() -> State:
    """A finished 1-round game with both variants on; ann holds a miniature and cards in hand."""
    tasks = {"ann": {"A": "emperor", "B": "samurai", "C": "monk"}, "bob": {"A": "empress", "B": "ninja", "C": "farmer"}}
    state = new_game(
        ["ann", "bob"], Options(rounds=1, imperial_tasks=True, ninja_power=True), decks=[deck(2)], tasks=tasks
    )
    state.ninjas[0] = 1
    state.ninja_supply = 3
    end_round(state, {"ann": sets(*FIVE), "bob": {"monk": 3}}, "farmer")
    assert state_summary(state)["status"] == "revealing"
    play(state, "ann reveal A", "bob reveal B")
    return state


def test_finished_state() -> None:
    state = finished_game()
    summary = state_summary(state)
    assert summary["status"] == "finished"
    assert summary["current_player"] is None
    assert state.current_player is None
    assert state.is_finished
    assert (summary["step"], summary["draws_left"]) == (None, None)
    assert summary["start_player"] == "ann"
    assert summary["winners"] == ["ann"]
    assert legal_moves(state) == []
    assert round_details(state)[-1]["next_start_player"] is None


AFTER_END = [
    "ann draw draw1",
    "bob draw draw2",
    "ann lay farmer 2",
    "ann discard farmer",
    "ann discard farmer discard2",
    "ann ninja bob monk",
    "ann reveal C",
    "bob reveal A",
    "ann pref larger",
    "bob pref pile2",
]


@pytest.mark.parametrize("text", AFTER_END)
def test_moves_after_the_end_are_refused(text: str) -> None:
    state = finished_game()
    before = state_summary(state)
    assert not can_apply(state, move(text))
    with pytest.raises(IllegalMove) as err:
        apply(state, move(text))
    assert err.value.rule == "R10"
    assert state_summary(state) == before


def test_game_end_event_names_winners() -> None:
    state = game(("ann", "bob"), rounds=1)
    arrange(state, tables={"ann": sets(*FIVE), "bob": sets("monk")}, hands={"ann": {"farmer": 2}})
    events = play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2")
    assert events[-1] == {"event": "game_end", "winners": ["ann"]}
    assert not any(e["event"] == "round_start" for e in events)
