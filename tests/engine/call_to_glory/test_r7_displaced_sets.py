"""R7 (with R6): where a beaten set goes, the standing discard preference, and the preference move."""

from __future__ import annotations

import pytest

from engine.call_to_glory import IllegalMove, Options, State, apply, can_apply, legal_moves, new_game, state_summary
from tests.conftest import arrange, card_total, deck, game, move, play

FILL1 = "emperor"
FILL2 = "empress"


def beat_situation(d1: int, d2: int, first: str = "bob") -> State:
    """ann owns a Monk set of 2; bob (to move) holds 3 Monks; the discard piles hold d1 Emperors
    and d2 Empresses (types that take no part in the test)."""
    state = game(("ann", "bob"), first_player=first)
    return arrange(
        state,
        tables={"ann": {"monk": 2}},
        hands={"bob": {"monk": 3}},
        discards=[[FILL1] * d1, [FILL2] * d2],
    )


def expected_piles(d1: int, d2: int, pile: int, cards: list[str]) -> list[list[str]]:
    """The discard piles after ``cards`` went on top of discard pile ``pile`` (1 or 2)."""
    piles = [[FILL1] * d1, [FILL2] * d2]
    piles[pile - 1] += cards
    return piles


CASES = [
    # preference, cards on discard pile 1, on discard pile 2, pile the beaten set goes to
    ("smaller", 3, 1, 2),
    ("smaller", 1, 3, 1),
    ("smaller", 2, 2, 1),
    ("larger", 3, 1, 1),
    ("larger", 1, 3, 2),
    ("larger", 2, 2, 1),
    ("pile1", 1, 3, 1),
    ("pile1", 3, 1, 1),
    ("pile1", 2, 2, 1),
    ("pile2", 3, 1, 2),
    ("pile2", 1, 3, 2),
    ("pile2", 2, 2, 2),
]


@pytest.mark.parametrize(("preference", "d1", "d2", "target"), CASES)
def test_beaten_set_follows_owner_preference(preference: str, d1: int, d2: int, target: int) -> None:
    state = beat_situation(d1, d2)
    play(state, f"ann pref {preference}")
    # bob's own preference points the other way wherever it can: it must not matter
    play(state, f"bob pref {'pile2' if target == 1 else 'pile1'}")
    events = play(state, "bob draw draw1", "bob draw draw2", "bob lay monk 3")
    summary = state_summary(state)
    assert summary["discard_piles"] == expected_piles(d1, d2, target, ["monk", "monk"])
    assert summary["tables"]["ann"] == {}
    assert summary["tables"]["bob"] == {"monk": 3}
    assert events[-1]["beaten"] == {"player": "ann", "count": 2, "pile": f"discard{target}"}
    assert card_total(state) == 110


def test_default_preference_is_smaller() -> None:
    state = beat_situation(3, 1)
    assert state_summary(state)["preferences"] == {"ann": "smaller", "bob": "smaller"}
    play(state, "bob draw draw1", "bob draw draw2", "bob lay monk 3")
    assert state_summary(state)["discard_piles"] == expected_piles(3, 1, 2, ["monk", "monk"])


@pytest.mark.parametrize("preference", ["smaller", "larger", "pile1", "pile2"])
def test_both_discard_piles_empty_forces_pile1(preference: str) -> None:
    state = beat_situation(0, 0)
    play(state, f"ann pref {preference}", "bob draw draw1", "bob draw draw2", "bob lay monk 3")
    assert state_summary(state)["discard_piles"] == [["monk", "monk"], []]


@pytest.mark.parametrize("preference", ["smaller", "larger", "pile1", "pile2"])
@pytest.mark.parametrize(("d1", "d2", "target"), [(0, 3, 1), (3, 0, 2), (0, 1, 1), (1, 0, 2)])
def test_one_empty_discard_pile_must_be_used(preference: str, d1: int, d2: int, target: int) -> None:
    state = beat_situation(d1, d2)
    play(state, f"ann pref {preference}", "bob draw draw1", "bob draw draw2", "bob lay monk 3")
    assert state_summary(state)["discard_piles"] == expected_piles(d1, d2, target, ["monk", "monk"])


def test_whole_beaten_set_goes_as_one_batch() -> None:
    state = game(("ann", "bob", "cy"), first_player="cy")
    arrange(state, tables={"ann": {"farmer": 5}}, hands={"cy": {"farmer": 6}}, discards=[[FILL1], [FILL2, FILL2]])
    play(state, "cy draw draw1", "cy draw draw2", "cy lay farmer 6")
    assert state_summary(state)["discard_piles"] == [[FILL1, *["farmer"] * 5], [FILL2, FILL2]]
    assert card_total(state) == 110


@pytest.mark.parametrize(
    ("ann_pref", "bob_pref", "d1", "d2", "target"),
    [
        ("larger", "smaller", 1, 3, 2),
        ("smaller", "larger", 1, 3, 1),
        ("pile1", "pile2", 3, 1, 1),
        ("pile2", "pile1", 1, 3, 2),
    ],
)
def test_beating_own_set_uses_own_preference(ann_pref: str, bob_pref: str, d1: int, d2: int, target: int) -> None:
    state = game(("ann", "bob"))
    arrange(state, tables={"ann": {"monk": 2}}, hands={"ann": {"monk": 3}}, discards=[[FILL1] * d1, [FILL2] * d2])
    events = play(state, f"ann pref {ann_pref}", f"bob pref {bob_pref}", "ann draw draw1", "ann draw draw2")
    events += play(state, "ann lay monk 3")
    summary = state_summary(state)
    assert summary["tables"]["ann"] == {"monk": 3}
    assert summary["discard_piles"] == expected_piles(d1, d2, target, ["monk", "monk"])
    assert events[-1]["beaten"] == {"player": "ann", "count": 2, "pile": f"discard{target}"}
    # no question was asked: the turn passed on at once
    assert summary["current_player"] == "bob"
    assert summary["step"] == "draw"


@pytest.mark.parametrize("draws", [0, 1, 2])
@pytest.mark.parametrize("who", ["ann", "bob", "cy"])
def test_preference_allowed_out_of_turn_at_any_step(draws: int, who: str) -> None:
    state = game(("ann", "bob", "cy"))
    play(state, *["ann draw draw1", "ann draw draw2"][:draws])
    before = state_summary(state)
    pref = move(f"{who} pref pile2")
    assert can_apply(state, pref)
    events: list[dict[str, object]] = []
    apply(state, pref, events)
    after = state_summary(state)
    assert after["preferences"][who] == "pile2"
    assert events == [{"event": "preference", "player": who, "discard_preference": "pile2"}]
    # nothing else changed: the turn goes on where it was
    assert {k: v for k, v in after.items() if k != "preferences"} == {
        k: v for k, v in before.items() if k != "preferences"
    }


def test_preference_can_be_changed_again_and_latest_applies() -> None:
    state = beat_situation(1, 3)
    play(state, "ann pref pile2", "ann pref larger", "ann pref pile1")
    assert state_summary(state)["preferences"]["ann"] == "pile1"
    play(state, "bob draw draw1", "bob draw draw2", "bob lay monk 3")
    assert state_summary(state)["discard_piles"] == expected_piles(1, 3, 1, ["monk", "monk"])


def test_preference_allowed_while_tasks_are_revealed() -> None:
    players = ("ann", "bob")
    tasks = {"ann": {"A": "emperor", "B": "samurai", "C": "monk"}, "bob": {"A": "empress", "B": "ninja", "C": "farmer"}}
    state = new_game(list(players), Options(imperial_tasks=True), seed=3, decks=[deck(2)], tasks=tasks)
    kinds = {"emperor": 2, "empress": 2, "daimyo": 2, "shogun": 2, "envoy": 2}
    arrange(state, tables={"ann": kinds}, hands={"ann": {"farmer": 2}})
    play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2")
    assert state_summary(state)["status"] == "revealing"
    play(state, "bob pref larger")
    assert state_summary(state)["preferences"]["bob"] == "larger"
    assert state_summary(state)["status"] == "revealing"


def test_preference_moves_are_not_listed_but_applicable() -> None:
    state = game(("ann", "bob"))
    assert all(m.do != "preference" for m in legal_moves(state))
    assert can_apply(state, move("bob pref larger"))


@pytest.mark.parametrize("who", ["ann", "bob"])
def test_preference_refused_after_game_end(who: str) -> None:
    state = game(("ann", "bob"), rounds=1)
    arrange(
        state,
        tables={"ann": {"emperor": 2, "empress": 2, "daimyo": 2, "shogun": 2, "samurai": 2}},
        hands={"ann": {"farmer": 2}},
    )
    play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2")
    assert state_summary(state)["status"] == "finished"
    pref = move(f"{who} pref pile2")
    assert not can_apply(state, pref)
    with pytest.raises(IllegalMove) as err:
        apply(state, pref)
    assert err.value.rule == "R10"
    assert state_summary(state)["preferences"][who] == "smaller"


def test_preference_by_a_stranger_is_refused() -> None:
    state = game(("ann", "bob"))
    with pytest.raises(IllegalMove):
        apply(state, move("zed pref larger"))
    assert "zed" not in state_summary(state)["preferences"]
