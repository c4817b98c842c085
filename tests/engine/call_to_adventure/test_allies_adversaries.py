"""Allies & Adversaries (A2, A4.4, A5.7, A9): allies tucked under challenges, won with them, their powers;
adversaries with their one path and what they do while face up."""

from __future__ import annotations

import pytest

from engine import GAMES, IllegalMove
from engine.call_to_adventure import Move, apply, legal_moves
from engine.call_to_adventure.rules import icons
from engine.call_to_adventure.state import places

from .helpers import ONE, ZERO, do, finish_turn, small_set
from .helpers import game as _game

SEATS = {"origins": ["o0", "o1", "o2", "o3"], "motivations": ["m-str", "m0", "m1", "m2"]}


def game(**kw: object) -> object:
    return _game(**SEATS, **kw)  # type: ignore[arg-type]


GAME = GAMES["call-to-adventure"]


def test_without_the_option_allies_and_adversaries_are_set_aside() -> None:
    state = game()
    aside = set(state.decks["aside"])
    assert aside == {"al-wise", "al-hound", "ad-baron", "ad-hag"}
    assert not aside & {c for a in range(3) for c in state.decks[f"act{a + 1}"]}
    with_them = game(allies=True)
    assert not with_them.decks["aside"] and set(places(with_them).values()) == {1}


def test_an_ally_turned_up_goes_under_a_challenge_the_active_player_chooses() -> None:
    state = game(allies=True, act1=["t-free", "al-wise", "c-easy", "c-five", "f1-0", "al-hound", "f1-1"])
    assert state.rows[0] == ["t-free", "f1-0", "c-easy", "c-five"]
    assert state.under == {"c-easy": "al-wise"}
    do(state, "ann", "trait", card="t-free")  # the refill turns up al-hound: ann chooses where it goes
    assert state.rows[0][0] is None and GAME.player_view(state, "bob")["allies_waiting"] == ["al-hound"]
    assert GAME.waiting_for(state)["ann"].prompt == "Put the ally turned up under a challenge"
    assert {m.card for m in legal_moves(state, "ann")} == {"f1-0", "c-five"}
    assert all(m.do == "tuck" for m in legal_moves(state, "ann"))
    with pytest.raises(IllegalMove):
        apply(state, Move("ann", "end"))
    do(state, "ann", "tuck", card="c-five")
    assert state.under == {"c-easy": "al-wise", "c-five": "al-hound"} and not state.tucks
    assert state.rows[0][0] == "f1-1"  # the place is refilled once the ally is placed
    assert GAME.player_view(state, "bob")["allies_under"] == {"c-easy": "al-wise", "c-five": "al-hound"}
    assert set(places(state).values()) == {1}


def test_an_ally_with_no_challenge_free_is_discarded() -> None:
    state = game(allies=True, act1=["t-free", "t-spend", "t-icon", "al-wise", "t-corr"])
    assert state.rows[0] == ["t-free", "t-spend", "t-icon", "t-corr"] and state.discards[0] == ["al-wise"]


def test_winning_a_challenge_wins_its_ally_with_its_icons_and_power() -> None:
    state = game(
        allies=True, act1=["c-easy", "al-wise", "c-five", "t-free", "f1-0", "f1-1"], casts=[[ONE, ONE, ONE, 0]]
    )
    ann = state.ps[0]
    assert icons(small_set(), ann)["wisdom"] == 0
    do(state, "ann", "attempt", card="c-easy", path="bottom")
    events = do(state, "ann", "cast")
    fight = next(e for e in events if e["event"] in ("overcome", "fail"))
    assert fight == {"event": "overcome", "player": "ann", "card": "c-easy", "total": 5, "difficulty": 2}
    assert ann.allies == ["al-wise"] and icons(small_set(), ann)["wisdom"] == 1 and not state.under


def test_ally_powers_cost_experience_or_a_sacrifice() -> None:
    state = game(allies=True, act1=["c-hard", "f1-0", "f1-1", "t-free"], casts=[[ZERO, ZERO, ONE]])
    ann = state.ps[0]
    ann.allies = ["al-wise", "al-hound"]
    state.decks["act1"] = [c for c in state.decks["act1"] if c not in ("al-wise", "al-hound")]
    state.discards[0] = [c for c in state.discards[0] if c not in ("al-wise", "al-hound")]
    state.under = {k: v for k, v in state.under.items() if v not in ("al-wise", "al-hound")}
    assert set(places(state).values()) == {1}
    do(state, "ann", "attempt", card="c-hard", path="top")
    do(state, "ann", "cast")
    uses = {m.card for m in legal_moves(state, "ann") if m.do == "use"}
    assert uses == {"al-wise", "al-hound"}
    xp = ann.xp
    do(state, "ann", "use", card="al-wise")
    do(state, "ann", "use", card="al-wise")  # no limit but the experience
    assert ann.xp == xp - 2 and state.attempt is not None and state.attempt.bonus == 4
    do(state, "ann", "use", card="al-hound")
    assert ann.sacrificed == ["al-hound"] and ann.allies == ["al-wise"] and state.attempt.bonus == 7
    assert icons(small_set(), ann)["nature"] >= 1  # a sacrificed ally keeps its icons in the Story
    with pytest.raises(IllegalMove):
        apply(state, Move("ann", "use", card="al-hound"))


def test_a_failed_or_journeyed_challenge_takes_its_ally_along() -> None:
    state = game(
        allies=True, act1=["c-hard", "al-wise", "c-five", "al-hound", "f1-0", "f1-1", "f1-2"], casts=[[ZERO, ZERO, ONE]]
    )
    assert state.under == {"c-hard": "al-wise", "f1-0": "al-hound"}
    do(state, "ann", "journey", card="f1-0")
    assert state.discards[0] == ["f1-0", "al-hound"]
    do(state, "ann", "attempt", card="c-hard", path="top")
    do(state, "ann", "cast")
    finish_turn(state, "ann")
    assert state.discards[0][-2:] == ["c-hard", "al-wise"] and "c-hard" not in state.under


def test_adversaries_have_one_path_and_act_while_face_up() -> None:
    state = game(
        allies=True,
        act1=["c-easy", "c-five", "c-hard", "t-free"],
        act2=["ad-baron", "ad-hag", "f2-0", "f2-1", "f2-2"],
        casts=[[ONE, ONE, ONE], [ZERO, ZERO, ONE]],
    )
    state.up[1] = True
    attempts = [m for m in legal_moves(state, "ann") if m.do == "attempt" and m.card and m.card.startswith("ad-")]
    assert {(m.card, m.path) for m in attempts} == {("ad-baron", "top"), ("ad-hag", "top")}
    do(state, "ann", "attempt", card="f2-0", path="top")
    assert GAME.player_view(state, "ann")["attempt"]["difficulty"] == 3 + 1  # the baron makes it harder
    do(state, "ann", "cast")
    finish_turn(state, "ann")
    level = state.ps[1].level
    do(state, "bob", "attempt", card="f2-1", path="top")
    do(state, "bob", "cast")  # 0 + 0 + 1 < 4: failing next to the hag corrupts
    assert state.ps[1].level == level + 1


POWERS = (
    '[[origin]]\nid = "o-pow"\nname = { en = "Powered" }\nicons = ["strength"]\n'
    'power = { timing = "facing", cost = 1, once_per_turn = true, effect = { kind = "modify", n = 2 } }\n'
    '[[motivation]]\nid = "m-pow"\nname = { en = "Driven" }\nicons = ["wisdom"]\n'
    'power = { timing = "on_fail", effect = { kind = "experience", n = 2 } }\n'
    '[[motivation]]\nid = "m-nat"\nname = { en = "Green" }\n'
    'power = { timing = "on_gain_icon", icon = "nature", effect = { kind = "virtue", n = 1 } }\n'
    '[[motivation]]\nid = "m-win"\nname = { en = "Proud" }\n'
    'power = { timing = "on_success", effect = { kind = "experience", n = 1 } }\n'
)


def _powered_game(motivation: str, casts: list[list[int]]) -> object:
    from engine.call_to_adventure import new_game, parse

    from .helpers import NAMES, order, set_text

    cards = parse(set_text(POWERS), "powers.toml")
    plain = [c for c in cards.acts[0] if cards.cards[c].type in ("trait", "challenge")]
    given = {
        "origin": order(cards.origins, ["o-pow"]),
        "motivation": order(cards.motivations, [motivation]),
        "act1": order(plain, ["c-hard", "t-free", "c-five", "f1-0"]),
        "hero": order(cards.heroes, ["h-xp", "h-after"]),
    }
    return new_game(NAMES[:2], {"first_game": True, "first_player": "ann"}, 1, cards, given, casts)


def test_origin_powers_are_used_once_per_turn_and_paid() -> None:
    state = _powered_game("m-pow", [[ONE, ONE, ONE]])
    ann = state.ps[0]  # type: ignore[attr-defined]
    do(state, "ann", "attempt", card="c-hard", path="top")  # type: ignore[arg-type]
    do(state, "ann", "cast")  # type: ignore[arg-type]
    assert [m.card for m in legal_moves(state, "ann") if m.do == "use"] == ["o-pow"]  # type: ignore[arg-type]
    do(state, "ann", "use", card="o-pow")  # type: ignore[arg-type]
    assert ann.xp == 2 and state.attempt.bonus == 2  # type: ignore[attr-defined]
    assert not [m for m in legal_moves(state, "ann") if m.do == "use"]  # type: ignore[arg-type]
    events = do(state, "ann", "resolve")  # type: ignore[arg-type]
    assert {"event": "trigger", "player": "ann", "card": "m-pow", "when": "on_fail"} in events
    assert ann.xp == 2 + 1 + 2  # failing: 1, and the Motivation's trigger: 2


def test_a_power_triggers_on_gaining_a_card_with_its_icon() -> None:
    state = _powered_game("m-nat", [])
    ann = state.ps[0]  # type: ignore[attr-defined]
    events = do(state, "ann", "trait", card="t-free")  # type: ignore[arg-type]
    assert any(e["event"] == "trigger" and e["card"] == "m-nat" for e in events)
    assert small_set().track[ann.level].name == "V1"


@pytest.mark.parametrize(
    ("power", "words"),
    [
        ('{ timing = "on_fail", effect = { kind = "modify", n = 1 } }', "a triggered power does one of"),
        ('{ timing = "any", cost = "sacrifice", effect = { kind = "experience" } }', "only an ally"),
        ('{ timing = "on_gain_icon", effect = { kind = "experience" } }', "'power.icon'"),  # missing icon
        ('{ timing = "whenever", effect = { kind = "experience" } }', "unknown timing"),
    ],
)
def test_bad_powers_are_named(power: str, words: str) -> None:
    from engine.call_to_adventure import CardSetError, parse

    from .helpers import set_text

    text = set_text('[[origin]]\nid = "o-bad"\nname = { en = "Bad" }\npower = ' + power + "\n")
    with pytest.raises(CardSetError) as caught:
        parse(text, "bad.toml")
    assert "bad.toml: card 'o-bad'" in str(caught.value) and words in str(caught.value)


def test_a_power_triggers_on_overcoming_a_challenge() -> None:
    state = _powered_game("m-win", [[ONE, ONE, ONE]])
    ann = state.ps[0]  # type: ignore[attr-defined]
    do(state, "ann", "attempt", card="f1-0", path="top")  # type: ignore[arg-type]
    do(state, "ann", "cast")  # type: ignore[arg-type]
    xp = ann.xp
    events = do(state, "ann", "resolve")  # type: ignore[arg-type]
    assert {"event": "trigger", "player": "ann", "card": "m-win", "when": "on_success"} in events
    assert "f1-0" in [c for c, _path in ann.story] and ann.xp == xp + 1
