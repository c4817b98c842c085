"""A5: difficulty, the runes of an attempt (core, ability, special at 3 icons, dark), the cast, the result."""

from __future__ import annotations

import pytest

from engine import IllegalMove
from engine.call_to_adventure import Move, apply, legal_moves
from engine.call_to_adventure.rules import runes

from .helpers import ONE, ZERO, do, game, small_set

ROW = ["c-easy", "c-five", "c-hard", "t-free", "f1-0", "f1-1", "f1-2"]


def ann_game(**kw: object) -> object:
    return game(act1=ROW, origins=["o-str", "o-wis"], motivations=["m-str", "m0"], **kw)  # type: ignore[arg-type]


def test_runes_per_icon_with_the_special_rune_only_at_three() -> None:
    state = ann_game()
    cards = small_set().cards
    ann, bob = state.ps
    assert runes(small_set(), ann, cards["c-easy"], 0) == [
        ("core", "0"), ("core", "1"), ("core", "2"),
        ("ability", "strength"), ("ability", "strength"), ("special", "strength"),
    ]  # fmt: skip
    assert runes(small_set(), bob, cards["c-five"], 2) == [
        ("core", "0"), ("core", "1"), ("core", "2"), ("ability", "wisdom"), ("dark", ""), ("dark", ""),
    ]  # fmt: skip
    ann.motivation, bob.motivation = bob.motivation, ann.motivation  # ann now has two Strength icons
    assert runes(small_set(), ann, cards["c-easy"], 0)[3:] == [("ability", "strength")] * 2


def test_overcome_the_harder_path_and_gain_its_rewards() -> None:
    state = ann_game(casts=[[ZERO, ZERO, ONE, 1, 1, 1]], heroes=["h-xp", "h-after", "h-plus2"])
    do(state, "ann", "attempt", card="c-easy", path="top")
    assert state.phase == "prepare" and state.attempt is not None and state.attempt.path == 0
    events = do(state, "ann", "cast")
    cast = next(e for e in events if e["event"] == "cast")
    assert cast["faces"] == [ZERO, ZERO, ONE, 1, 1, 1] and cast["total"] == 3  # 0+0+1+1+1+0 (special: +1 xp)
    assert state.ps[0].xp == 4
    win = next(e for e in events if e["event"] == "overcome")
    assert win["difficulty"] == 2 and win["total"] == 3  # 1, +1 for the harder path
    ann = state.ps[0]
    assert ann.story == [("c-easy", 0)] and ann.hand == ["h-xp", "h-plus2"]  # the path's Hero card
    assert state.rows[0][0] == "f1-0"


def test_failing_discards_the_challenge_and_gives_one_experience() -> None:
    state = ann_game(casts=[[ZERO, ZERO, ONE, 1, 1, 1]], heroes=["h-xp"])
    do(state, "ann", "attempt", card="c-five", path="bottom")
    events = do(state, "ann", "cast")  # 1 + strength 1 + 1 + special 0 = 3 < 5
    assert any(e["event"] == "fail" for e in events)
    assert state.discards[0] == ["c-five"] and state.ps[0].xp == 3 + 1 + 1 and state.ps[0].story == []


def test_dark_runes_cost_experience_at_most_three_and_never_at_c4() -> None:
    state = ann_game(casts=[[ONE, ONE, ONE, 0, 1, 0]])  # c-hard asks Charisma: no ability rune
    do(state, "ann", "attempt", card="c-hard", path="top")
    for _ in range(3):
        do(state, "ann", "dark")
    assert state.ps[0].xp == 0 and state.attempt is not None and state.attempt.dark == 3
    with pytest.raises(IllegalMove) as caught:
        apply(state, Move("ann", "dark"))
    assert caught.value.rule == "A5.3"
    events = do(state, "ann", "cast")
    cast = next(e for e in events if e["event"] == "cast")
    assert cast["runes"][3:] == [["dark", ""]] * 3 and cast["total"] == 3 + 2 + 1 + 2
    assert small_set().track[state.ps[0].level].name == "C2"  # two dark runes showed a corruption
    state = ann_game()
    state.ps[0].level = 6
    do(state, "ann", "attempt", card="c-hard", path="top")
    assert Move("ann", "dark") not in legal_moves(state, "ann")
    with pytest.raises(IllegalMove) as caught:
        apply(state, Move("ann", "dark"))
    assert caught.value.rule == "A7"


def test_a_card_face_draws_a_card_that_is_played_in_the_same_cast() -> None:
    # core 2 shows its card face; ann draws h-plus2 and plays it before the result: 3 + 2 >= 5
    state = ann_game(casts=[[ONE, ZERO, ZERO, 1, 1, 1]], heroes=["h-xp", "h-after", "h-plus2"])
    do(state, "ann", "attempt", card="c-five", path="top")
    do(state, "ann", "cast")
    assert state.phase == "draw" and {m.deck for m in legal_moves(state, "ann")} == {"hero", "antihero"}
    do(state, "ann", "draw", deck="hero")
    assert state.phase == "facing" and "h-plus2" in state.ps[0].hand
    with pytest.raises(IllegalMove, match="A8"):
        apply(state, Move("ann", "play", card="h-xp"))  # any-time cards wait until after the challenge
    do(state, "ann", "play", card="h-plus2")
    events = do(state, "ann", "resolve")
    assert next(e for e in events if e["event"] == "overcome")["total"] == 5


def test_a_reattempt_keeps_the_dark_runes_and_bonuses_bought() -> None:
    state = ann_game(casts=[[ZERO, ZERO, ONE, 1], [ONE, ONE, ONE, 0]], heroes=["h-per", "h-xp", "h-again"])
    state.decks["hero"].remove("h-again")
    state.ps[0].hand.append("h-again")
    do(state, "ann", "attempt", card="c-hard", path="top")
    do(state, "ann", "dark")
    do(state, "ann", "play", card="h-per")  # +1 per Strength icon: +3
    do(state, "ann", "cast")
    assert state.attempt is not None and state.attempt.bonus == 3
    events = do(state, "ann", "play", card="h-again")
    cast = [e for e in events if e["event"] == "cast"][-1]
    assert len(cast["runes"]) == 4 and cast["runes"][-1] == ["dark", ""]
    assert cast["total"] == 3 + 2 + 3  # every rune cast again, the dark rune and the +3 kept


def test_recast_casts_the_chosen_runes_again() -> None:
    state = ann_game(casts=[[ZERO, ONE, ONE], [ONE]], heroes=["h-recast"])
    do(state, "ann", "attempt", card="c-hard", path="top")
    do(state, "ann", "cast")
    plays = [m.runes for m in legal_moves(state, "ann") if m.do == "play"]
    assert plays == ["0", "1", "2"]  # one rune of the three, chosen by the player
    events = do(state, "ann", "play", card="h-recast", runes="0")
    cast = [e for e in events if e["event"] == "cast"][-1]
    assert cast["runes"] == [["core", "0"]] and cast["total"] == 1 + 1 + 1


def test_the_declared_path_cannot_change() -> None:
    state = ann_game()
    do(state, "ann", "attempt", card="c-easy", path="top")
    with pytest.raises(IllegalMove):
        apply(state, Move("ann", "attempt", card="c-easy", path="bottom"))
