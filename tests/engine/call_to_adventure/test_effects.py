"""Each effect kind of the card-set vocabulary (docs/card-sets.md, "Effects") does what the format page says."""

from __future__ import annotations

import dataclasses

import pytest

from engine.call_to_adventure import CardSetError, legal_moves, parse

from .helpers import ONE, _card, do, game, set_text

ROW = ["c-hard", "c-easy", "c-five", "t-free", "f1-0", "f1-1", "f1-2"]


def _with(card: str, **kw: object) -> object:
    state = game(act1=ROW, heroes=["h-plus2", "h-recast"], origins=["o0", "o1"], motivations=["m-str", "m0"], **kw)  # type: ignore[arg-type]
    for deck in ("hero", "antihero"):
        if card in state.decks[deck]:
            state.decks[deck].remove(card)
    state.ps[0].hand.append(card)
    return state


def test_experience_gain() -> None:
    state = _with("h-xp")
    do(state, "ann", "play", card="h-xp")  # type: ignore[arg-type]
    assert state.ps[0].xp == 5 and state.ps[0].played == ["h-xp"]  # type: ignore[attr-defined]


def test_lose_experience_and_steal_name_an_opponent() -> None:
    state = _with("a-lose")
    state.ps[1].xp = 1  # type: ignore[attr-defined]
    assert {m.target for m in legal_moves(state, "ann") if m.card == "a-lose"} == {"bob"}  # type: ignore[arg-type]
    do(state, "ann", "play", card="a-lose", target="bob")  # type: ignore[arg-type]
    assert state.ps[1].xp == 0 and state.ps[0].xp == 3  # type: ignore[attr-defined]
    state = _with("a-steal")
    state.ps[1].xp = 1  # type: ignore[attr-defined]
    do(state, "ann", "play", card="a-steal", target="bob")  # type: ignore[arg-type]
    assert state.ps[1].xp == 0 and state.ps[0].xp == 4  # type: ignore[attr-defined]


def test_draw_after_a_challenge() -> None:
    state = _with("a-draw", casts=[[ONE, ONE, ONE]], antiheroes=["a-curse1", "a-curse2"])
    assert not any(m.card == "a-draw" for m in legal_moves(state, "ann"))  # type: ignore[arg-type]
    do(state, "ann", "attempt", card="c-hard", path="top")  # type: ignore[arg-type]
    do(state, "ann", "cast")  # type: ignore[arg-type]
    do(state, "ann", "resolve")  # type: ignore[arg-type]
    do(state, "ann", "play", card="a-draw")  # type: ignore[arg-type]
    assert state.ps[0].hand[-2:] == ["a-curse1", "a-curse2"]  # type: ignore[attr-defined]


def test_corruption_moves_down_the_track() -> None:
    state = _with("a-fall")
    do(state, "ann", "play", card="a-fall")  # type: ignore[arg-type]
    assert state.cards.track[state.ps[0].level].name == "C2"  # type: ignore[attr-defined]


def test_a_free_dark_rune_counts_toward_three_and_costs_nothing() -> None:
    state = _with("a-dark", casts=[[ONE, ONE, ONE, 1, 1, 1]])
    do(state, "ann", "attempt", card="c-hard", path="top")  # type: ignore[arg-type]
    do(state, "ann", "dark")  # type: ignore[arg-type]
    do(state, "ann", "dark")  # type: ignore[arg-type]
    do(state, "ann", "play", card="a-dark")  # type: ignore[arg-type]
    assert state.attempt.dark == 3 and state.ps[0].xp == 1  # type: ignore[attr-defined]
    assert not any(m.do == "dark" for m in legal_moves(state, "ann"))  # type: ignore[arg-type]
    events = do(state, "ann", "cast")  # type: ignore[arg-type]
    assert next(e for e in events if e["event"] == "cast")["total"] == 3 + 3


def test_replace_a_row_card() -> None:
    state = _with("a-row")
    assert {m.row for m in legal_moves(state, "ann") if m.card == "a-row"} == set(ROW[:4])  # type: ignore[arg-type]
    do(state, "ann", "play", card="a-row", row="c-five")  # type: ignore[arg-type]
    assert state.discards[0] == ["c-five"] and state.rows[0][2] == "f1-0"  # type: ignore[attr-defined]


def test_a_bonus_per_rune_of_a_kind_in_the_cast() -> None:
    state = _with("h-plus2", casts=[[ONE, ONE, ONE, 1, 1]])
    card = state.cards.cards["h-plus2"]  # type: ignore[attr-defined]
    per_dark = {"kind": "modify", "n": 1, "per": "rune:dark"}
    state.cards.cards["h-plus2"] = dataclasses.replace(card, effect=per_dark)  # type: ignore[attr-defined]
    do(state, "ann", "attempt", card="c-hard", path="top")  # type: ignore[arg-type]
    do(state, "ann", "dark")  # type: ignore[arg-type]
    do(state, "ann", "dark")  # type: ignore[arg-type]
    do(state, "ann", "cast")  # type: ignore[arg-type]
    do(state, "ann", "play", card="h-plus2")  # type: ignore[arg-type]
    assert state.attempt.bonus == 2, "+1 for each of the two dark runes cast"  # type: ignore[attr-defined]


def test_a_bonus_per_rune_is_played_once_the_runes_have_fallen() -> None:
    bad = 'timing = "before"\neffect = { kind = "modify", n = 1, per = "rune:core" }'
    with pytest.raises(CardSetError, match=r"'h-early'.*needs the timing facing"):
        parse(set_text(_card("hero", "h-early", bad)), "test.toml")
