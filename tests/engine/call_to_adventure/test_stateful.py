"""A Hypothesis state machine over 1–4 players and every option (first game, Allies & Adversaries, solo/co-op):
random legal play with illegal tries.

After every step: every card of the set is in exactly one place, no view shows what is hidden from its
player (a reshuffle of the hidden cards leaves it unchanged), the JSON round trip, the record replays to
the same state, and ``legal_moves`` is exactly what ``apply`` accepts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine import GAMES, IllegalMove
from engine.call_to_adventure import Move, State
from engine.call_to_adventure.moves import FIELDS
from engine.call_to_adventure.state import places

GAME = GAMES["call-to-adventure"]
NAMES = ("ann", "bob", "cy", "dee")
SECTION = re.compile(r"A\d+(\.\d+)?")
"""Every refusal cites a section of ADVENTURE_RULES.md."""
WITHOUT_NOW = {"stranger", "game_over", "not_your_turn", "chosen", "unknown_move"}
"""The refusals of a player who has nothing to do now: every other one says what is possible now."""


class Adventure(RuleBasedStateMachine):
    """Plays one game of random legal moves, trying illegal ones on the way."""

    state: State
    start: State

    @initialize(
        n=st.integers(1, 4),
        first_game=st.booleans(),
        allies=st.booleans(),
        coop=st.booleans(),
        seed=st.integers(0, 10**6),
    )
    def setup(self, n: int, first_game: bool, allies: bool, coop: bool, seed: int) -> None:
        options = {"first_game": first_game, "allies_adversaries": allies, "coop": coop or n == 1}
        self.start = GAME.new_game(NAMES[:n], options, seed)
        self.state = GAME.clone(self.start)
        self.moves: list[Move] = []
        self.seen: list[Move] = []

    @precondition(lambda self: bool(GAME.waiting_for(self.state)))
    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        waiting = sorted(GAME.waiting_for(self.state))
        player = data.draw(st.sampled_from(waiting))
        legal = GAME.legal_moves(self.state, player)
        move = data.draw(st.sampled_from(legal))
        before = GAME.waiting_for(self.state)
        GAME.apply(self.state, move)
        self.moves.append(move)
        self.seen = ([*self.seen, *legal[:3]])[-30:]
        after = GAME.waiting_for(self.state)
        for other, decision in before.items():
            if other != player and other in after:
                assert after[other] == decision

    @rule(data=st.data())
    def try_a_move(self, data: st.DataObject) -> None:
        cards = sorted(self.state.cards.cards)
        kind = data.draw(st.sampled_from(sorted(FIELDS)))
        fields: dict[str, Any] = {"player": data.draw(st.sampled_from(self.state.players)), "do": kind}
        for name in FIELDS[kind]:
            if name in ("card", "row", "origin", "motivation", "destiny"):
                fields[name] = data.draw(st.sampled_from(cards))
            elif name == "path":
                fields[name] = data.draw(st.sampled_from(["top", "bottom"]))
            elif name == "deck":
                fields[name] = data.draw(st.sampled_from(["hero", "antihero"]))
            elif name == "target" and data.draw(st.booleans()):
                fields[name] = data.draw(st.sampled_from(self.state.players))
            elif name == "order":
                fields[name] = ",".join(data.draw(st.lists(st.sampled_from(cards), min_size=1, max_size=3)))
            elif name == "runes" and data.draw(st.booleans()):
                fields[name] = data.draw(st.sampled_from(["0", "1", "0,2", "3"]))
            elif name == "act" and data.draw(st.booleans()):
                fields[name] = data.draw(st.sampled_from(["1", "2", "3"]))
        candidates = [Move.from_json(fields), *self.seen[-5:]]
        for move in candidates:
            listed = move
            effect = self.state.cards.cards[move.card].effect if move.card in self.state.cards.cards else None
            aimed_at_you = effect is not None and effect["kind"] in ("experience", "draw", "virtue", "corruption")
            if move.target == move.player and move.do == "play" and self.state.adversary is not None and aimed_at_you:
                listed = move._replace(target=None)  # A14.3: naming yourself is naming no one, listed once
            legal = listed in GAME.legal_moves(self.state, move.player)
            trial = GAME.clone(self.state)
            try:
                GAME.apply(trial, move)
                accepted = True
            except IllegalMove as exc:
                accepted = False
                assert SECTION.fullmatch(exc.rule), exc.rule
                assert exc.key and exc.message
                assert exc.key in WITHOUT_NOW or exc.params.get("now"), (exc.key, exc.params)
                for lang in ("nl", "fr"):
                    assert GAME.speaking(lang).explain(exc) != exc.message
                assert GAME.to_json(trial) == GAME.to_json(self.state)
            assert accepted == legal, move

    @invariant()
    def a_card_face_shown_is_drawn_before_the_result(self) -> None:
        a = self.state.attempt
        if a is not None and a.pending:
            assert self.state.phase == "draw"  # A14.1
            assert {m.do for m in GAME.legal_moves(self.state, self.state.players[self.state.current])} == {"draw"}

    @invariant()
    def no_ally_in_a_row(self) -> None:
        table = self.state.cards.cards
        for a in range(3):
            if self.state.up[a]:
                assert all(c is None or table[c].type != "ally" for c in self.state.rows[a])  # A4.4

    @invariant()
    def every_card_in_one_place(self) -> None:
        counts = places(self.state)
        assert set(counts) == set(self.state.cards.cards) and set(counts.values()) == {1}

    @invariant()
    def views_hide_what_they_should(self) -> None:
        for i, viewer in enumerate(self.state.players):
            view = GAME.player_view(self.state, viewer)
            json.dumps(view)
            assert GAME.player_view(GAME.reshuffle_hidden(self.state, viewer, i + len(self.moves)), viewer) == view

    @invariant()
    def json_round_trip_and_replay(self) -> None:
        data = json.loads(json.dumps(GAME.to_json(self.state)))
        assert GAME.to_json(GAME.from_json(data)) == data
        if len(self.moves) % 5 == 0:
            record = json.loads(json.dumps(GAME.record(self.start, self.moves)))
            assert GAME.to_json(GAME.replay(record)[1]) == GAME.to_json(self.state)


Adventure.TestCase.settings = settings(
    max_examples=25, stateful_step_count=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestAdventure = Adventure.TestCase


def test_whole_games_keep_every_card_in_one_place() -> None:
    for n in (2, 3, 4):
        for options in ({"first_game": False}, {"first_game": True}, {"allies_adversaries": True}, {"coop": True}):
            state = GAME.new_game(NAMES[:n], options, n * 17)
            bots = [GAME.bots["random"](i) for i in range(n)]
            steps = 0
            while waiting := GAME.waiting_for(state):
                player = sorted(waiting)[0]
                GAME.apply(state, bots[state.index(player)].choose(state, player))
                assert set(places(state).values()) == {1}
                steps += 1
            assert GAME.result(state) is not None and steps > 20
