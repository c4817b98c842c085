"""R12: the adaptations for play by email: no Ninja after the action, standing preferences, chosen start player."""

from __future__ import annotations

import pytest

from engine.call_to_glory import IllegalMove, Move, Options, apply, can_apply, legal_moves, new_game, state_summary
from tests.conftest import arrange, deck, game, move, play

PLAYERS = ("ann", "bob", "cy")


@pytest.mark.parametrize("action", ["ann lay monk 2", "ann discard monk"])
def test_no_ninja_use_after_the_lay_or_discard(action: str) -> None:
    state = game(PLAYERS, ninja_power=True)
    arrange(state, tables={"bob": {"farmer": 3}, "cy": {"envoy": 3}}, hands={"ann": {"monk": 2}})
    state.ninjas[0] = 2
    state.ninja_supply = 2
    play(state, "ann draw draw1", "ann draw draw2", action)
    summary = state_summary(state)
    assert (summary["current_player"], summary["step"], summary["draws_left"]) == ("bob", "draw", 2)
    for use in ("ann ninja bob farmer", "ann ninja cy envoy"):
        assert not can_apply(state, move(use))
        with pytest.raises(IllegalMove) as err:
            apply(state, move(use))
        assert err.value.rule == "R4"  # the lay or discard ended the turn
    assert state_summary(state) == summary
    assert state_summary(state)["ninjas"]["ann"] == 2


@pytest.mark.parametrize(("preference", "pile"), [("smaller", 2), ("larger", 1), ("pile1", 1), ("pile2", 2)])
@pytest.mark.parametrize("n", [2, 3])
def test_displaced_set_uses_standing_preference_and_turn_passes_on(preference: str, pile: int, n: int) -> None:
    players = PLAYERS[:n]
    state = game(players, first_player="bob")
    arrange(
        state,
        tables={"ann": {"monk": 2}},
        hands={"bob": {"monk": 3}},
        discards=[["emperor", "emperor"], ["empress"]],
    )
    play(state, f"ann pref {preference}", "bob draw draw1", "bob draw draw2", "bob lay monk 3")
    summary = state_summary(state)
    nxt = players[2 % n]
    assert (summary["current_player"], summary["step"], summary["draws_left"]) == (nxt, "draw", 2)
    assert summary["status"] == "playing"
    piles = [["emperor", "emperor"], ["empress"]]
    piles[pile - 1] += ["monk", "monk"]
    assert summary["discard_piles"] == piles
    # nobody is asked anything: the next player may only draw
    assert legal_moves(state) and all(m.do == "draw" and m.player == nxt for m in legal_moves(state))


def test_ninja_removal_asks_the_target_nothing() -> None:
    state = game(("ann", "bob"), ninja_power=True)
    arrange(state, tables={"bob": {"farmer": 3}}, discards=[["emperor"], ["empress", "empress"]])
    state.ninjas[0] = 1
    state.ninja_supply = 3
    play(state, "bob pref larger", "ann ninja bob farmer")
    summary = state_summary(state)
    assert summary["discard_piles"] == [["emperor"], ["empress", "empress", "farmer"]]
    assert (summary["current_player"], summary["step"], summary["draws_left"]) == ("ann", "draw", 2)
    assert all(m.player == "ann" for m in legal_moves(state))


@pytest.mark.parametrize("first", PLAYERS)
def test_round_one_start_player_chosen_by_organiser(first: str) -> None:
    hands = [["farmer"] * 3, ["monk"] * 3, ["emperor"] * 3]
    state = new_game(list(PLAYERS), Options(first_player=first), seed=1, decks=[deck(3, hands)])
    summary = state_summary(state)
    assert summary["start_player"] == first
    assert summary["current_player"] == first
    # dealing starts with the start player (R3)
    k = PLAYERS.index(first)
    order = [PLAYERS[(k + i) % 3] for i in range(3)]
    assert summary["hands"] == {
        order[0]: {"farmer": 3},
        order[1]: {"monk": 3},
        order[2]: {"emperor": 3},
    }
    assert {m.player for m in legal_moves(state)} == {first}
    for other in PLAYERS:
        if other != first:
            with pytest.raises(IllegalMove) as err:
                apply(state, Move.draw(other, "draw1"))
            assert err.value.rule == "R4"


def test_default_start_player_is_first_seat() -> None:
    state = new_game(list(PLAYERS), seed=1)
    assert state_summary(state)["start_player"] == "ann"
    assert state_summary(state)["current_player"] == "ann"


def test_first_player_only_fixes_round_one() -> None:
    """Round 2 starts with the lowest total (R4), whoever the organiser chose for round 1."""
    state = game(PLAYERS, rounds=2, first_player="cy")
    arrange(
        state,
        tables={"cy": {"emperor": 2, "empress": 2, "daimyo": 2, "shogun": 2}, "ann": {"monk": 2}},
        hands={"cy": {"farmer": 2}},
    )
    play(state, "cy draw draw1", "cy draw draw2", "cy lay farmer 2")
    summary = state_summary(state)
    assert summary["round_scores"] == [{"ann": 18, "bob": 0, "cy": 50}]
    assert summary["start_player"] == "bob"
    assert summary["current_player"] == "bob"


def test_unknown_first_player_is_refused() -> None:
    with pytest.raises(ValueError):
        new_game(list(PLAYERS), Options(first_player="zed"), seed=1)
