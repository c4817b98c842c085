"""A10: the Destiny score (the rulebook's worked example is 41), the final turns, the end without cards."""

from __future__ import annotations

from engine import GAMES
from engine.call_to_adventure import apply, legal_moves, parse, score
from engine.call_to_adventure.rules import _finish, set_score
from engine.call_to_adventure.state import Player

from .helpers import ONE, do, finish_turn, game, set_text

TRIUMPHS = [3, 2, 2, 2, 2, 2, 2, 1, 1]
NATURE = '"nature", "wisdom"'
STRENGTH = '"strength"'
WORKED = "".join(
    f'[[story]]\nid = "w{i}"\nkind = "trait"\nact = 1\nname = {{ en = "Worked {i}" }}\n'
    f"path = {{ icons = [{NATURE if i < 4 else STRENGTH}], triumph = {t}"
    f"{', tragedy = 1' if i >= 7 else ''} }}\n"
    for i, t in enumerate(TRIUMPHS)
) + (
    '[[destiny]]\nid = "d-worked"\nname = { en = "Worked destiny" }\nicons = ["nature"]\n'
    'scoring = [{ kind = "threshold", icon = "nature", at_least = 5, points = 5 }]\n'
)


def test_the_worked_example_scores_41() -> None:
    cards = parse(set_text(WORKED), "worked.toml")
    p = Player("ann", origin="o0", motivation="m0", destiny="d-worked", xp=2, level=4)
    p.story = [(f"w{i}", 0) for i in range(9)]
    p.played = ["h-plus2", "h-xp", "a-steal"]
    parts = score(cards, p)
    assert parts == {
        "printed": 17 + 2,
        "icon_sets": 8,  # five Nature icons, the Destiny's among them
        "played_cards": 3,
        "experience": 2,
        "track": 4,  # C2: 4 Tragedy
        "destiny": 5,
        "total": 41,
    }


def test_icon_sets_and_destiny_conditions() -> None:
    assert [set_score(n) for n in range(7)] == [0, 0, 2, 4, 8, 8, 8]
    extra = (
        '[[destiny]]\nid = "d-all"\nname = { en = "All" }\nscoring = [\n'
        '{ kind = "per_icon", icon = "strength", points = 2 },\n'
        '{ kind = "per_ability_kind", at_least = 1, points = 1 },\n'
        '{ kind = "track", at_least = -2, at_most = -1, points = 3 },\n'
        '{ kind = "under", character = "motivation", icon = "nature", points = 4 },\n]\n'
    )
    cards = parse(set_text(WORKED + extra), "x.toml")
    p = Player("ann", origin="o-str", motivation="m0", destiny="d-all", xp=0, level=1)
    p.story = [("w5", 0), ("w6", 0), ("w7", 0), ("w0", 0)]  # w0 is the first card under the Motivation
    # strength: 2 (origin) + 3 paths = 5 -> 10; kinds: strength, charisma, nature-free wisdom -> 3; V1 -> 3; 4
    assert score(cards, p)["destiny"] == 10 + 3 + 3 + 4


def test_the_others_take_one_final_turn_when_a_destiny_is_complete() -> None:
    state = game(3, act3=["t3-free"], heroes=["h-plus2", "h-recast", "h-per"])
    ann = state.ps[0]
    for key in ("act1", "act2"):
        while state.decks[key] and len(ann.story) < 8:
            ann.story.append((state.decks[key].pop(), 0))
    assert len(ann.story) == 8
    state.up = [True, True, True]
    events = do(state, "ann", "trait", card="t3-free")
    assert any(e["event"] == "final" for e in events) and state.final == 0
    finish_turn(state, "ann")
    assert state.status == "playing" and state.players[state.current] == "bob"
    apply(state, next(m for m in legal_moves(state, "bob") if m.do == "attempt"))
    finish_turn(state, "bob")
    assert state.players[state.current] == "cy"
    apply(state, next(m for m in legal_moves(state, "cy") if m.do == "attempt"))
    finish_turn(state, "cy")
    assert state.status == "finished" and state.ended_by == "destiny"
    assert GAMES["call-to-adventure"].result(state) is not None


def test_the_game_ends_when_no_card_can_be_gained() -> None:
    state = game(act1=["t-free"], heroes=["h-plus2", "h-recast"])
    rest = state.decks["act1"]
    state.decks["act1"] = []
    state.rows[0] = ["t-free", None, None, None]
    del rest
    do(state, "ann", "trait", card="t-free")
    assert state.status == "finished" and state.ended_by == "no_cards"


def test_a_tie_is_a_shared_victory() -> None:
    state = game(casts=[[ONE] * 3])
    state.ps[1].destiny, state.ps[0].destiny = "d0", "d1"
    state.ps[0].origin, state.ps[1].origin = "o0", "o1"
    state.ps[0].motivation, state.ps[1].motivation = "m0", "m1"
    _finish(state, "test", None)
    result = GAMES["call-to-adventure"].result(state)
    assert result is not None and result.shared and set(result.winners) == {"ann", "bob"}
