"""R9 (variant V2): taking Ninja miniatures, using them, and where the removed card goes."""

from __future__ import annotations

import pytest

from engine.call_to_glory import IllegalMove, State, apply, can_apply, legal_moves, state_summary
from tests.conftest import arrange, card_total, game, move, play

FILL1 = "emperor"
FILL2 = "empress"
DRAWS = ["draw draw1", "draw draw2"]


def ninja_game(players: tuple[str, ...] = ("ann", "bob"), **options: object) -> State:
    """A V2 game from the conftest deck (round 1); ann starts unless told otherwise."""
    return game(players, ninja_power=True, **options)


def give_miniatures(state: State, **held: int) -> None:
    """Hand out miniatures from the supply (keeping 4 in all)."""
    for name, k in held.items():
        state.ninjas[state.index[name]] += k
        state.ninja_supply -= k
    assert state.ninja_supply >= 0


def miniatures(state: State) -> tuple[dict[str, int], int]:
    summary = state_summary(state)
    assert sum(summary["ninjas"].values()) + summary["ninja_supply"] == 4
    return summary["ninjas"], summary["ninja_supply"]


def draws(player: str, k: int = 2) -> list[str]:
    return [f"{player} {d}" for d in DRAWS[:k]]


# --- taking miniatures ------------------------------------------------------------------------------

LAYS = {
    # situation before ann lays 3 Ninjas: tables, ann's hand
    "new set": ({}, {"ninja": 3}),
    "beating an opponent's set": ({"bob": {"ninja": 2}}, {"ninja": 3}),
    "beating own set": ({"ann": {"ninja": 2}}, {"ninja": 3}),
}


@pytest.mark.parametrize("case", list(LAYS))
def test_any_ninja_lay_takes_a_miniature(case: str) -> None:
    tables, hand = LAYS[case]
    state = arrange(ninja_game(), tables=tables, hands={"ann": hand})
    events = play(state, *draws("ann"), "ann lay ninja 3")
    assert miniatures(state) == ({"ann": 1, "bob": 0}, 3)
    assert events[-1]["ninja_taken"] is True


@pytest.mark.parametrize("other", ["farmer", "monk", "samurai"])
def test_other_lays_take_no_miniature(other: str) -> None:
    state = arrange(ninja_game(), hands={"ann": {other: 3}})
    events = play(state, *draws("ann"), f"ann lay {other} 3")
    assert miniatures(state) == ({"ann": 0, "bob": 0}, 4)
    assert events[-1]["ninja_taken"] is False


def test_four_lays_take_all_miniatures_and_fifth_takes_none() -> None:
    """Four Ninja lays in a row empty the supply (4 in all); the fifth takes none."""
    state = ninja_game()
    expected = {"ann": 0, "bob": 0}
    for k, size in enumerate([2, 3, 4, 5, 6]):
        p, other = ("ann", "bob") if k % 2 == 0 else ("bob", "ann")
        # the previous set lies; the layer holds what beats it (hands and discards go back to the draw piles)
        arrange(state, discards=[[FILL1], [FILL2]])
        arrange(state, hands={p: {"ninja": size}, other: {"farmer": 1}})
        events = play(state, *draws(p), f"{p} lay ninja {size}")
        if k < 4:
            expected[p] += 1
        assert events[-1]["ninja_taken"] is (k < 4)
        assert miniatures(state) == (expected, 4 - sum(expected.values()))
        assert card_total(state) == 110
    assert miniatures(state) == ({"ann": 2, "bob": 2}, 0)


def test_supply_empty_takes_none() -> None:
    state = arrange(ninja_game(), hands={"ann": {"ninja": 3}})
    give_miniatures(state, bob=4)
    events = play(state, *draws("ann"), "ann lay ninja 3")
    assert miniatures(state) == ({"ann": 0, "bob": 4}, 0)
    assert events[-1]["ninja_taken"] is False


# --- when a miniature may be used -----------------------------------------------------------------


def test_not_usable_in_the_turn_taken_the_lay_ends_it() -> None:
    state = arrange(ninja_game(), tables={"bob": {"farmer": 3}}, hands={"ann": {"ninja": 3}})
    play(state, *draws("ann"), "ann lay ninja 3")
    assert miniatures(state)[0]["ann"] == 1
    assert state_summary(state)["current_player"] == "bob"
    use = move("ann ninja bob farmer")
    assert not can_apply(state, use)
    with pytest.raises(IllegalMove):
        apply(state, use)
    assert state_summary(state)["tables"]["bob"] == {"farmer": 3}


@pytest.mark.parametrize("drawn", [0, 1, 2])
def test_usable_on_a_later_turn_before_between_after_draws(drawn: int) -> None:
    state = arrange(ninja_game(), tables={"bob": {"farmer": 3}}, hands={"ann": {"ninja": 3}})
    play(state, *draws("ann"), "ann lay ninja 3")
    play(state, *draws("bob"), "bob discard farmer")
    play(state, *draws("ann", drawn))
    before = state_summary(state)
    use = move("ann ninja bob farmer")
    assert use in legal_moves(state)
    events = play(state, "ann ninja bob farmer")
    after = state_summary(state)
    assert after["tables"]["bob"] == {"farmer": 2}
    assert miniatures(state) == ({"ann": 0, "bob": 0}, 4)
    assert events[-1]["event"] == "ninja"
    # the turn goes on where it was
    assert (after["current_player"], after["step"], after["draws_left"]) == (
        "ann",
        before["step"],
        before["draws_left"],
    )
    play(state, *[f"ann {d}" for d in DRAWS[drawn:]])
    play(state, f"ann discard {first_card(state, 'ann')}{pile_word(state)}")
    assert state_summary(state)["current_player"] == "bob"


def test_several_uses_in_one_turn() -> None:
    state = arrange(ninja_game(("ann", "bob", "cy")), tables={"bob": {"farmer": 3}, "cy": {"monk": 2}})
    give_miniatures(state, ann=3)
    play(state, "ann ninja bob farmer", "ann draw draw1", "ann ninja cy monk", "ann draw draw2", "ann ninja bob farmer")
    summary = state_summary(state)
    assert summary["tables"]["bob"] == {"farmer": 1}
    assert summary["tables"]["cy"] == {"monk": 1}
    assert miniatures(state) == ({"ann": 0, "bob": 0, "cy": 0}, 4)
    assert summary["step"] == "act"
    assert card_total(state) == 110


def test_cannot_target_yourself() -> None:
    state = arrange(ninja_game(), tables={"ann": {"farmer": 3}, "bob": {"monk": 3}})
    give_miniatures(state, ann=1)
    assert move("ann ninja ann farmer") not in legal_moves(state)
    with pytest.raises(IllegalMove) as err:
        apply(state, move("ann ninja ann farmer"))
    assert err.value.rule == "R9"
    assert miniatures(state)[0]["ann"] == 1


def test_needs_a_miniature() -> None:
    state = arrange(ninja_game(), tables={"bob": {"monk": 3}})
    give_miniatures(state, bob=1)
    assert not any(m.do == "ninja" for m in legal_moves(state))
    with pytest.raises(IllegalMove) as err:
        apply(state, move("ann ninja bob monk"))
    assert err.value.rule == "R9"
    assert state_summary(state)["tables"]["bob"] == {"monk": 3}


def test_needs_a_set_of_that_type() -> None:
    state = arrange(ninja_game(), tables={"bob": {"monk": 3}})
    give_miniatures(state, ann=1)
    with pytest.raises(IllegalMove) as err:
        apply(state, move("ann ninja bob farmer"))
    assert err.value.rule == "R9"


def test_only_on_own_turn() -> None:
    state = arrange(ninja_game(), tables={"ann": {"monk": 3}})
    give_miniatures(state, bob=1)
    with pytest.raises(IllegalMove):
        apply(state, move("bob ninja ann monk"))
    assert state_summary(state)["tables"]["ann"] == {"monk": 3}


def test_legal_moves_list_every_target_card_type() -> None:
    state = arrange(ninja_game(("ann", "bob", "cy")), tables={"ann": {"envoy": 3}, "bob": {"monk": 3, "farmer": 2}})
    give_miniatures(state, ann=1)
    listed = {(m.target, m.type) for m in legal_moves(state) if m.do == "ninja"}
    assert listed == {("bob", "monk"), ("bob", "farmer")}


# --- effects ------------------------------------------------------------------------------------------


def test_last_card_removed_makes_set_disappear_and_type_free_again() -> None:
    state = arrange(ninja_game(), tables={"bob": {"farmer": 2}}, hands={"ann": {"farmer": 2}})
    give_miniatures(state, ann=2)
    events = play(state, "ann ninja bob farmer", "ann ninja bob farmer")
    assert events[-1]["left"] == 0
    assert state_summary(state)["tables"]["bob"] == {}
    play(state, *draws("ann"))
    assert move("ann lay farmer 2") in legal_moves(state)
    play(state, "ann lay farmer 2")
    assert state_summary(state)["tables"]["ann"] == {"farmer": 2}


def test_another_player_lays_freed_type_at_minimum() -> None:
    """cy (3 players, Samurai minimum 3) lays 3 Samurai after ann's Ninja removed bob's only Samurai card."""
    state = arrange(ninja_game(("ann", "bob", "cy")), tables={"bob": {"samurai": 1}}, hands={"cy": {"samurai": 3}})
    give_miniatures(state, ann=1)
    play(state, "ann ninja bob samurai", *draws("ann"), "ann discard " + first_card(state, "ann"))
    play(state, *draws("bob"), "bob discard " + first_card(state, "bob") + pile_word(state))
    play(state, *draws("cy"))
    assert move("cy lay samurai 3") in legal_moves(state)
    play(state, "cy lay samurai 3")
    assert state_summary(state)["tables"]["cy"] == {"samurai": 3}
    assert state_summary(state)["tables"]["bob"] == {}


def first_card(state: State, player: str) -> str:
    row = state_summary(state)["hands"][player]
    return next(iter(row))


def pile_word(state: State) -> str:
    return " discard1" if all(state.discard_piles) else ""


def test_reduced_set_is_beaten_by_more_than_its_new_size() -> None:
    state = arrange(ninja_game(), tables={"bob": {"monk": 4}}, hands={"ann": {"monk": 4}})
    give_miniatures(state, ann=1)
    play(state, *draws("ann"))
    assert not can_apply(state, move("ann lay monk 4"))
    play(state, "ann ninja bob monk")
    assert state_summary(state)["tables"]["bob"] == {"monk": 3}
    with pytest.raises(IllegalMove) as err:
        apply(state, move("ann lay monk 3"))
    assert err.value.rule == "R5.2"
    assert can_apply(state, move("ann lay monk 4"))
    events = play(state, "ann lay monk 4")
    assert events[-1]["beaten"]["count"] == 3
    assert state_summary(state)["tables"] == {"ann": {"monk": 4}, "bob": {}}


def test_reduced_set_keeps_scoring_its_value() -> None:
    state = arrange(
        ninja_game(rounds=1),
        tables={"ann": {"emperor": 2, "empress": 2, "daimyo": 2, "shogun": 2, "samurai": 2}, "bob": {"monk": 3}},
        hands={"ann": {"farmer": 2}},
    )
    give_miniatures(state, ann=2)
    play(state, "ann ninja bob monk", "ann ninja bob monk", *draws("ann"), "ann lay farmer 2")
    assert state_summary(state)["round_scores"] == [{"ann": 62, "bob": 18}]


CASES = [
    # bob's preference, cards on discard pile 1, on discard pile 2, pile the removed card goes to
    ("smaller", 0, 0, 1),
    ("pile2", 0, 0, 1),
    ("pile2", 0, 2, 1),
    ("pile1", 2, 0, 2),
    ("smaller", 3, 1, 2),
    ("smaller", 2, 2, 1),
    ("larger", 3, 1, 1),
    ("larger", 1, 3, 2),
    ("pile1", 1, 3, 1),
    ("pile2", 3, 1, 2),
]


@pytest.mark.parametrize(("preference", "d1", "d2", "target"), CASES)
def test_removed_card_goes_by_r6_with_target_preference(preference: str, d1: int, d2: int, target: int) -> None:
    state = arrange(ninja_game(), tables={"bob": {"monk": 3}}, discards=[[FILL1] * d1, [FILL2] * d2])
    give_miniatures(state, ann=1)
    # ann's own preference points the other way: it must not matter
    play(state, f"ann pref {'pile2' if target == 1 else 'pile1'}", f"bob pref {preference}")
    events = play(state, "ann ninja bob monk")
    piles = [[FILL1] * d1, [FILL2] * d2]
    piles[target - 1].append("monk")
    assert state_summary(state)["discard_piles"] == piles
    assert events[-1]["pile"] == f"discard{target}"
    assert card_total(state) == 110


def test_miniatures_kept_across_rounds() -> None:
    state = arrange(
        ninja_game(rounds=2),
        tables={"ann": {"emperor": 2, "empress": 2, "daimyo": 2, "shogun": 2, "samurai": 2}},
        hands={"ann": {"ninja": 2}},
    )
    give_miniatures(state, bob=2)
    play(state, *draws("ann"), "ann lay ninja 2")
    summary = state_summary(state)
    assert summary["round"] == 2
    assert summary["tables"] == {"ann": {}, "bob": {}}
    assert miniatures(state) == ({"ann": 1, "bob": 2}, 1)


def test_miniature_taken_in_round_one_usable_in_round_two() -> None:
    state = arrange(
        ninja_game(rounds=2),
        tables={"ann": {"emperor": 2, "empress": 2, "daimyo": 2, "shogun": 2, "samurai": 2}},
        hands={"ann": {"ninja": 2}},
    )
    play(state, *draws("ann"), "ann lay ninja 2")
    assert state_summary(state)["round"] == 2
    # round 2: bob (lowest total) starts; then ann uses her miniature
    starter = state_summary(state)["current_player"]
    assert starter == "bob"
    arrange(state, hands={"bob": {"monk": 2}})
    play(state, *draws("bob"), "bob lay monk 2", "ann ninja bob monk")
    assert state_summary(state)["tables"]["bob"] == {"monk": 1}


@pytest.mark.parametrize("drawn", [0, 2])
def test_refused_when_variant_off(drawn: int) -> None:
    state = arrange(game(("ann", "bob")), tables={"bob": {"monk": 3}})
    play(state, *draws("ann", drawn))
    assert not any(m.do == "ninja" for m in legal_moves(state))
    with pytest.raises(IllegalMove) as err:
        apply(state, move("ann ninja bob monk"))
    assert err.value.rule == "R9"
    assert "ninjas" not in state_summary(state)
    assert state_summary(state)["tables"]["bob"] == {"monk": 3}
