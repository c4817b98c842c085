"""The compound moves (contract §2): a challenge in one move, and taking the result with the end of the turn."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import GAMES, FormatError, IllegalMove
from engine.call_to_adventure import Move, State, apply, legal_moves
from engine.call_to_adventure.state import to_json

from .helpers import ONE, game

GAME = GAMES["call-to-adventure"]


def _steps(state: State, moves: list[Move]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for move in moves:
        apply(state, move, events)
    return events


def test_a_challenge_equals_attempt_dark_runes_and_cast() -> None:
    for dark in range(4):
        one = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"], heroes=["h-plus2"], seed=dark)
        steps = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"], heroes=["h-plus2"], seed=dark)
        one.ps[0].xp = steps.ps[0].xp = 3
        got = _steps(one, [Move("ann", "challenge", card="c-five", path="top", dark=str(dark))])
        split = [Move("ann", "attempt", card="c-five", path="top"), *[Move("ann", "dark")] * dark, Move("ann", "cast")]
        assert got == _steps(steps, split)
        assert to_json(one) == to_json(steps)


def test_compound_moves_equal_their_steps_through_whole_games() -> None:
    """Random games where every challenge and ending resolve is replayed step by step on a copy."""
    for seed in range(3):
        state = GAME.new_game(["a", "b"], {"allies_adversaries": seed == 1}, seed)
        rng = random.Random(seed)
        seen = 0
        while GAME.waiting_for(state) and seen < 60:
            player = sorted(GAME.waiting_for(state))[0]
            legal = legal_moves(state, player)
            compound = [m for m in legal if m.do == "challenge" or (m.do == "resolve" and m.end)]
            move = rng.choice(compound or legal)
            if move in compound:
                seen += 1
                copy = state.clone()
                if move.do == "challenge":
                    split = [
                        Move(player, "attempt", card=move.card, path=move.path),
                        *[Move(player, "dark")] * int(move.dark or 0),
                        Move(player, "cast"),
                    ]
                else:
                    split = [Move(player, "resolve")]
                expected = _steps(copy, split)
                if (
                    move.do == "resolve"
                    and copy.turn == state.turn
                    and Move(player, "end") in legal_moves(copy, player)
                ):
                    expected += _steps(copy, [Move(player, "end")])
                got: list[dict[str, Any]] = []
                apply(state, move, got)
                assert got == expected and to_json(state) == to_json(copy)
            else:
                apply(state, move)
        assert seen


def test_take_the_result_and_end_the_turn() -> None:
    state = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"], heroes=["h-plus2"], casts=[[ONE] * 5])
    apply(state, Move("ann", "challenge", card="c-easy", path="top", dark="0"))
    assert state.phase == "facing"
    assert Move("ann", "resolve", end="yes") in legal_moves(state, "ann")
    events: list[dict[str, Any]] = []
    apply(state, Move("ann", "resolve", end="yes"), events)
    kinds = [e["event"] for e in events]
    assert "overcome" in kinds and kinds[-1] == "turn" and "end" in kinds
    assert state.players[state.current] == "bob"


def test_refusals_name_the_rule_and_change_nothing() -> None:
    state = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"])
    state.ps[0].xp = 1
    before = to_json(state)
    cases = [
        (Move("ann", "challenge", card="c-easy", path="top", dark="2"), "A5.3"),
        (Move("ann", "challenge", card="t-free", path="top", dark="0"), "A4"),
        (Move("ann", "challenge", card="f2-0", path="top", dark="0"), "A6"),  # a face-down row
        (Move("bob", "challenge", card="c-easy", path="top", dark="0"), "A4"),
        (Move("ann", "resolve", end="yes"), "A5.7"),
        (Move("ann", "challenge", card="c-easy", path="top", dark="4"), "A5.3"),
        (Move("ann", "challenge", card="c-easy", path="left", dark="1"), "A5.2"),
    ]
    for move, rule in cases:
        with pytest.raises(IllegalMove) as exc:
            apply(state, move)
        assert exc.value.rule == rule, move
        assert to_json(state) == before
    state.ps[0].level = 6  # C4: no dark runes
    with pytest.raises(IllegalMove) as exc:
        apply(state, Move("ann", "challenge", card="c-easy", path="top", dark="1"))
    assert exc.value.rule == "A7"


def test_a_challenge_that_fails_late_leaves_the_state_unchanged() -> None:
    """A record's cast that does not fit the runes fails the cast step: nothing of the attempt stays."""
    state = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"], casts=[[ONE, ONE]])
    before = to_json(state)
    with pytest.raises(FormatError):
        apply(state, Move("ann", "challenge", card="c-easy", path="top", dark="1"))
    assert to_json(state) == before


def test_compound_moves_parse_strictly_and_go_into_records() -> None:
    assert GAME.parse_move("ann", {"do": "challenge", "card": "c", "path": "top"}).dark == "0"
    for bad in (
        {"do": "challenge", "card": "c", "path": "top", "dark": 1},
        {"do": "challenge", "path": "top", "dark": "1"},
        {"do": "challenge", "card": "c", "path": "top", "dark": True},
        {"do": "resolve", "end": True},
        {"do": "end", "end": "yes"},
        {"do": "attempt", "card": "c", "path": "top", "dark": "1"},
    ):
        with pytest.raises(FormatError):
            GAME.parse_move("ann", bad)
    start = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"], heroes=["h-plus2"])
    state = start.clone()
    moves = [Move("ann", "challenge", card="c-easy", path="top", dark="1"), Move("ann", "resolve", end="yes")]
    for move in moves:
        apply(state, move)
    record = GAME.record(start, moves)
    assert record["moves"][0] == {"player": "ann", "do": "challenge", "card": "c-easy", "path": "top", "dark": "1"}
    _start, replayed, _moves = GAME.replay(record)
    assert to_json(replayed) == to_json(state)
