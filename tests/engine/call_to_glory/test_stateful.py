"""Stateful property tests: random legal play for 2-4 players and every variant combination (R1-R12).

A Hypothesis state machine plays random legal moves, changes discard preferences (R7) and tries
illegal moves; after every step it checks the invariants that hold in any game: 110 character
cards (R1, R3), at most one set of each type on the table (R5.2), what a player's view hides
(R11), replay of the record (GAME_RECORD.md), the JSON round trip of the full state, and that
``can_apply`` agrees with ``legal_moves``. A plain test plays whole games for all 12 configurations
with the same checks at every step.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import lru_cache
from itertools import product
from typing import Any

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine import call_to_glory as glory
from engine.call_to_glory import PILES, PREFERENCES, TYPES, IllegalMove, Move, Options, State
from tests.conftest import card_total

NAMES = ("ann", "bob", "cy", "dee")
STRANGER = "zed"
CONFIGS = list(product((2, 3, 4), (False, True), (False, True)))
SECTIONS = {f"R{i}" for i in range(1, 13)} | {"R5.1", "R5.2", "R5.3"}
"""Every section of RULES.md an IllegalMove may name."""


def candidates(state: State) -> list[Move]:
    """Moves of every kind, for every player of the game and a stranger: most of them illegal now."""
    return _candidates(state.players)


@lru_cache(maxsize=8)
def _candidates(players: tuple[str, ...]) -> list[Move]:
    out: list[Move] = []
    people = (*players, STRANGER)
    for p in people:
        out += [Move.draw(p, pile) for pile in PILES]
        out += [Move.lay(p, t, c) for t in TYPES for c in range(1, 21)]
        out += [Move.discard(p, t, pile) for t in TYPES for pile in (None, "discard1", "discard2")]
        out += [Move.ninja(p, q, t) for q in people for t in TYPES]
        out += [Move.reveal_task(p, d) for d in "ABC"]
        out += [Move.set_preference(p, x) for x in PREFERENCES]
    return out


class Legal:
    """Whether a move may be applied now, judged from ``legal_moves`` alone (plus R7 and R6's omitted pile)."""

    def __init__(self, state: State) -> None:
        self.finished = state.is_finished
        self.players = set(state.players)
        self.moves = set(glory.legal_moves(state))
        self.discards = Counter((m.player, m.type) for m in self.moves if m.do == "discard")

    def __contains__(self, move: Move) -> bool:
        if self.finished or move.player not in self.players:
            return False
        if move.do == "preference":
            return True  # R7: any player, any time before the game is finished
        if move.do == "discard" and move.pile is None:
            # R6: the pile may be left out exactly where only one discard pile can take the card.
            return self.discards[move.player, move.type] == 1
        return move in self.moves


def check_candidate(state: State, legal: Legal, move: Move, try_apply: bool) -> None:
    """``can_apply`` is True iff the move is legal; an illegal one raises IllegalMove and changes nothing."""
    ok = move in legal
    assert glory.can_apply(state, move) is ok, (move, state.status, state.step)
    if ok or not try_apply:
        return
    before = glory.to_json(state)
    events: list[dict[str, Any]] = []
    with pytest.raises(IllegalMove) as info:
        glory.apply(state, move, events)
    assert info.value.rule in SECTIONS, info.value.rule
    with pytest.raises(IllegalMove):
        glory.verify(state, move)
    assert events == []
    assert glory.to_json(state) == before


def check_invariants(initial: State, state: State, moves: list[Move], replay: bool = True) -> None:
    """Everything that holds after any sequence of legal moves (the record's replay only if ``replay``)."""
    summary = glory.state_summary(state)
    legal = glory.legal_moves(state)
    if state.is_finished:
        assert legal == []
        assert summary["winners"]
        assert summary["current_player"] is None
    else:
        # R1, R3: the 110 character cards are all somewhere.
        assert card_total(state) == 110
        assert legal, "a player who must act always has a legal move"
        assert all(m.player == state.current_player for m in legal)
        assert len(set(legal)) == len(legal)
    # R5.2: at most one set of each type on the table.
    for t in TYPES:
        owners = [p for p, row in summary["tables"].items() if row.get(t, 0) > 0]
        assert len(owners) <= 1, (t, owners)
    check_views(state, summary)
    # The full state survives JSON, also through text.
    data = glory.to_json(state)
    assert glory.to_json(glory.from_json(data)) == data
    assert glory.to_json(glory.from_json(json.loads(json.dumps(data)))) == data
    if replay:
        check_replay(initial, state, moves)


def check_replay(initial: State, state: State, moves: list[Move]) -> None:
    """The record of the moves, through JSON text, replays to the same state."""
    data = glory.to_json(state)
    record = glory.record_of(initial, moves).to_json()
    assert record["format"] == glory.RECORD_FORMAT
    replayed_record, replayed = glory.replay(json.loads(json.dumps(record)))
    assert glory.to_json(replayed) == data
    assert replayed_record.moves == moves


def check_views(state: State, summary: dict[str, Any]) -> None:
    """R11: a view shows one's own hand and tasks, other hands only as sizes, draw piles only as sizes."""
    for name in state.players:
        view = glory.player_view(state, name)
        json.dumps(view)
        assert set(view) == set(summary) | {"hand_sizes"}
        assert view["hands"] == {name: summary["hands"][name]}
        assert view["hand_sizes"] == {q: sum(h.values()) for q, h in summary["hands"].items() if q != name}
        assert len(view["draw_piles"]) == 2
        assert all(type(size) is int for size in view["draw_piles"])
        assert view["draw_piles"] == [len(pile) for pile in state.draw_piles]
        if state.options.imperial_tasks:
            assert view["tasks"] == {name: summary["tasks"][name]}
        else:
            assert "tasks" not in view
        shared = set(summary) - {"hands", "tasks"}
        assert {k: view[k] for k in shared} == {k: summary[k] for k in shared}


def new_state(n: int, v1: bool, v2: bool, seed: int, rounds: int | None = None) -> State:
    """A game of ``n`` of NAMES with the given variants, shuffled from ``seed``."""
    options = Options(rounds=rounds, imperial_tasks=v1, ninja_power=v2)
    return glory.new_game(list(NAMES[:n]), options, seed=seed)


class RandomPlay(RuleBasedStateMachine):
    """Random legal play, preference changes and illegal attempts, with every invariant checked after each step."""

    state: State
    initial: State
    moves: list[Move]
    replayed: tuple[int, dict[str, Any]] | None

    @initialize(
        config=st.sampled_from(CONFIGS),
        seed=st.integers(min_value=0, max_value=2**63 - 1),
        rounds=st.sampled_from([None, 1, 2]),
    )
    def start(self, config: tuple[int, bool, bool], seed: int, rounds: int | None) -> None:
        n, v1, v2 = config
        self.state = new_state(n, v1, v2, seed, rounds)
        self.initial = self.state.clone()
        self.moves = []
        self.replayed = None

    def _apply(self, move: Move) -> None:
        glory.apply(self.state, move)
        self.moves.append(move)
        if move.do in ("ninja", "reveal_task"):
            event(f"a {move.do} move was played")
        if self.state.is_finished:
            event("a game was finished")

    @precondition(lambda self: not self.state.is_finished)
    @rule(choice=st.integers(min_value=0, max_value=10**6))
    def play_legal(self, choice: int) -> None:
        legal = glory.legal_moves(self.state)
        self._apply(legal[choice % len(legal)])

    @precondition(lambda self: not self.state.is_finished)
    @rule(choices=st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=40))
    def play_several(self, choices: list[int]) -> None:
        for choice in choices:
            if self.state.is_finished:
                break
            legal = glory.legal_moves(self.state)
            self._apply(legal[choice % len(legal)])

    @rule(seat=st.integers(min_value=0, max_value=3), preference=st.sampled_from(PREFERENCES))
    def set_preference(self, seat: int, preference: str) -> None:
        name = self.state.players[seat % self.state.n]
        move = Move.set_preference(name, preference)
        before = glory.to_json(self.state)
        if self.state.is_finished:
            with pytest.raises(IllegalMove) as info:
                glory.apply(self.state, move)
            assert info.value.rule == "R10"
            assert glory.to_json(self.state) == before
            return
        self._apply(move)
        after = glory.to_json(self.state)
        assert after["preferences"][name] == preference
        before["preferences"][name] = preference
        assert after == before, "a preference changes nothing but the preference (R7)"

    @rule(picks=st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=20))
    def try_moves(self, picks: list[int]) -> None:
        cands = candidates(self.state)
        legal = Legal(self.state)
        for pick in picks:
            check_candidate(self.state, legal, cands[pick % len(cands)], try_apply=True)

    @rule(seat=st.integers(min_value=0, max_value=4))
    def try_illegal_of(self, seat: int) -> None:
        """One illegal move of a chosen player (or the stranger), applied: IllegalMove and no change."""
        who = (*self.state.players, STRANGER)[seat % (self.state.n + 1)]
        legal = Legal(self.state)
        illegal = [m for m in candidates(self.state) if m.player == who and m not in legal]
        assert illegal
        check_candidate(self.state, legal, illegal[len(self.moves) % len(illegal)], try_apply=True)

    @rule()
    def every_candidate(self) -> None:
        legal = Legal(self.state)
        for move in candidates(self.state):
            check_candidate(self.state, legal, move, try_apply=False)

    @invariant()
    def holds(self) -> None:
        # Replaying costs the whole game so far: when no move was made since the last replay, the state
        # must simply be the one that replay reproduced.
        if self.replayed is not None and self.replayed[0] == len(self.moves):
            check_invariants(self.initial, self.state, self.moves, replay=False)
            assert glory.to_json(self.state) == self.replayed[1]
            return
        check_invariants(self.initial, self.state, self.moves)
        self.replayed = (len(self.moves), glory.to_json(self.state))


TestRandomPlay = RandomPlay.TestCase
TestRandomPlay.settings = settings(
    max_examples=30,
    stateful_step_count=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_json_round_trip_between_draws_and_act(n: int) -> None:
    """A state stored after both draws (step "act") comes back from JSON: the simplest case of the invariant."""
    state = new_state(n, False, False, seed=1)
    glory.apply(state, Move.draw("ann", "draw1"))
    data = glory.to_json(state)
    assert glory.to_json(glory.from_json(data)) == data
    glory.apply(state, Move.draw("ann", "draw2"))
    assert glory.state_summary(state)["step"] == "act"
    data = glory.to_json(state)
    assert glory.to_json(glory.from_json(data)) == data


@pytest.mark.parametrize(("n", "v1", "v2"), CONFIGS)
def test_full_random_games(n: int, v1: bool, v2: bool) -> None:
    """Whole random games to the end, every invariant and every candidate move checked at every step.

    The record is replayed (which costs the whole game so far) at every 8th move, whenever the round or
    the status changes, and at the end; the state machine above replays it at every step."""
    rng = random.Random(1000 * n + 10 * v1 + v2)
    state = new_state(n, v1, v2, seed=rng.randrange(2**32))
    initial = state.clone()
    moves: list[Move] = []
    rounds_seen = {1}
    check_invariants(initial, state, moves)
    while not state.is_finished:
        if rng.random() < 0.05:
            move = Move.set_preference(rng.choice(state.players), rng.choice(PREFERENCES))
        else:
            move = rng.choice(glory.legal_moves(state))
        phase = (state.round, state.status)
        glory.apply(state, move)
        moves.append(move)
        rounds_seen.add(state.round)
        replay = len(moves) % 8 == 0 or phase != (state.round, state.status) or state.is_finished
        legal = Legal(state)
        cands = candidates(state)
        for candidate in cands:
            check_candidate(state, legal, candidate, try_apply=False)
        for candidate in rng.sample(cands, 3):
            check_candidate(state, legal, candidate, try_apply=True)
        check_invariants(initial, state, moves, replay)
    assert rounds_seen == set(range(1, state.rounds + 1))
    assert len(state.round_scores) == state.rounds
    for candidate in candidates(state):
        check_candidate(state, Legal(state), candidate, try_apply=True)
