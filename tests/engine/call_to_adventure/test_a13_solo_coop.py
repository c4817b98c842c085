"""A13, the solo and co-op variant: the Adversary and its quest, its deck fed by card faces, the last turn
spent facing it, and the ends: all win against a defeated Adversary, all lose when it reaches its goal."""

from __future__ import annotations

import json

import pytest

from engine import GAMES, FormatError, OptionsError
from engine.call_to_adventure import Move, apply, legal_moves, new_game
from engine.call_to_adventure.files import packaged_set
from engine.call_to_adventure.state import needs_opponent, places

from .helpers import ONE, ZERO, do, finish_turn

GAME = GAMES["call-to-adventure"]
QUEST = "q-the-drowned-lantern"  # its Adversary: the Mire Hag, difficulty 7, Wisdom
STARTER = packaged_set()


def solo(n: int = 1, casts: list[list[int]] | None = None, adversary: list[str] | None = None) -> object:
    given = {
        "quest": [QUEST],
        "origin": ["o-lighthouse-orphan", "o-salt-marsh-herbalist", "o-ice-fisher"],
        "motivation": ["m-repay-an-old-debt", "m-earn-a-true-name", "m-outrun-the-past"],
    }
    if adversary:
        given["adversary"] = adversary
    players = ["ann", "bob", "cy"][:n]
    return new_game(players, {"coop": True, "first_game": True, "first_player": "ann"}, 3, STARTER, given, casts)


def test_setup_draws_a_quest_and_its_adversary() -> None:
    state = solo()
    assert state.adversary == {  # type: ignore[attr-defined]
        "quest": QUEST, "card": "s2-mire-hag", "experience": 0, "goal": 5, "defeated_by": None, "reshuffles": 0,
    }  # fmt: skip
    aside = state.decks["aside"]  # type: ignore[attr-defined]
    assert {"s2-the-ash-baron", "s3-the-hollow-king", "s3-choir-of-cinders"} <= set(aside)
    assert set(places(state).values()) == {1}  # type: ignore[arg-type]
    assert solo(3).adversary["goal"] == 5 + 2 + 2  # type: ignore[attr-defined]
    assert GAME.player_view(state, "ann")["adversary"]["goal"] == 5


def test_one_player_only_with_the_variant() -> None:
    with pytest.raises(OptionsError):
        GAME.parse_options({}, ["ann"])
    assert GAME.parse_options({"coop": True}, ["ann"])["coop"] is True
    with pytest.raises(FormatError, match="no quests"):
        from .helpers import small_set

        new_game(["ann"], {"coop": True}, 1, small_set())


def test_a_card_face_reveals_the_adversarys_card_after_the_draw() -> None:
    from engine.call_to_adventure.rules import runes

    state = solo(adversary=["x-growing-legion"])
    card = next(c for c in state.rows[0] if c and STARTER.cards[c].type == "challenge")  # type: ignore[attr-defined]
    do(state, "ann", "attempt", card=card, path="bottom")  # type: ignore[arg-type]
    count = len(runes(STARTER, state.ps[0], STARTER.cards[card], 0))  # type: ignore[attr-defined]
    state.given_casts = [[ONE, ONE, ZERO] + [0] * (count - 3)]  # type: ignore[attr-defined]
    do(state, "ann", "cast")  # type: ignore[arg-type]
    assert state.phase == "draw"  # type: ignore[attr-defined]
    events = do(state, "ann", "draw", deck="hero")  # type: ignore[arg-type]
    kinds = [e["event"] for e in events]
    assert kinds.index("draw") < kinds.index("adversary_card")
    assert state.adversary["experience"] == 2  # type: ignore[attr-defined]
    assert state.decks["adversary_discard"] == ["x-growing-legion"]  # type: ignore[attr-defined]


def _eight(state: object) -> None:
    """Give ann eight story cards whose paths show no Wisdom icon (the Mire Hag asks Wisdom)."""
    ann = state.ps[0]  # type: ignore[attr-defined]
    for key in ("act1", "act2", "act3"):
        deck = state.decks[key]  # type: ignore[attr-defined]
        for c in [c for c in deck if "wisdom" not in STARTER.cards[c].paths[0].icons]:
            if len(ann.story) < 8:
                deck.remove(c)
                ann.story.append((c, 0))


def test_the_last_turn_faces_the_adversary_and_a_failure_keeps_it() -> None:
    state = solo(casts=[[ZERO, ZERO, ONE]])
    ann = state.ps[0]  # type: ignore[attr-defined]
    _eight(state)
    main = [m for m in legal_moves(state, "ann") if m.do in ("trait", "attempt", "discard", "pass")]  # type: ignore[arg-type]
    assert main == [Move("ann", "attempt", card="s2-mire-hag", path="top")]
    do(state, "ann", "attempt", card="s2-mire-hag", path="top")  # type: ignore[arg-type]
    xp = ann.xp
    do(state, "ann", "cast")  # type: ignore[arg-type]
    finish_turn(state, "ann")  # type: ignore[arg-type]
    assert state.status == "playing" and state.adversary["defeated_by"] is None  # type: ignore[attr-defined]
    assert ann.xp >= xp + 1 and "s2-mire-hag" not in state.discards[1]  # type: ignore[attr-defined]


def test_defeating_the_adversary_wins_for_all_after_the_final_turns() -> None:
    state = solo(2, casts=[[ONE, ONE, ONE, 0, 0, 0]])
    ann = state.ps[0]  # type: ignore[attr-defined]
    _eight(state)
    do(state, "ann", "attempt", card="s2-mire-hag", path="top")  # type: ignore[arg-type]
    for _ in range(3):
        do(state, "ann", "dark")  # type: ignore[arg-type]
    do(state, "ann", "cast")  # type: ignore[arg-type]
    finish_turn(state, "ann")  # type: ignore[arg-type]
    assert state.adversary["defeated_by"] == 0 and ann.story[-1] == ("s2-mire-hag", 0)  # type: ignore[attr-defined]
    assert state.status == "playing" and state.players[state.current] == "bob"  # type: ignore[attr-defined]
    apply(state, next(m for m in legal_moves(state, "bob") if m.do in ("trait", "attempt")))  # type: ignore[arg-type]
    finish_turn(state, "bob")  # type: ignore[arg-type]
    result = GAME.result(state)
    assert result is not None and set(result.winners) == {"ann", "bob"}
    assert state.ended_by == "adversary_defeated"  # type: ignore[attr-defined]


def test_everyone_loses_when_the_adversary_reaches_its_goal() -> None:
    state = solo()
    state.adversary["experience"] = 5  # type: ignore[attr-defined]
    apply(state, next(m for m in legal_moves(state, "ann") if m.do in ("trait", "attempt")))  # type: ignore[arg-type]
    finish_turn(state, "ann")  # type: ignore[arg-type]
    result = GAME.result(state)
    assert result is not None and result.winners == () and state.ended_by == "adversary"  # type: ignore[attr-defined]


def test_co_op_games_of_bots_replay_exactly() -> None:
    for n in (1, 2, 3):
        players = ["ann", "bob", "cy"][:n]
        start = GAME.new_game(players, {"coop": True}, 40 + n)
        state = GAME.clone(start)
        bots = [GAME.bots["heuristic"](i) for i in range(n)]
        moves = []
        while waiting := GAME.waiting_for(state):
            player = sorted(waiting)[0]
            move = bots[players.index(player)].choose(state, player)
            GAME.apply(state, move)
            moves.append(move)
            assert set(places(state).values()) == {1}
            for viewer in players:
                view = GAME.player_view(state, viewer)
                assert GAME.player_view(GAME.reshuffle_hidden(state, viewer, len(moves)), viewer) == view
        record = json.loads(json.dumps(GAME.record(start, moves)))
        assert GAME.to_json(GAME.replay(record)[1]) == GAME.to_json(state)
        assert state.ended_by in ("adversary", "adversary_defeated", "no_cards", "stalled")


def test_in_co_op_a_card_aimed_at_you_may_aim_at_any_player() -> None:
    state = solo(2)
    ann, bob = state.ps  # type: ignore[attr-defined]
    card = "h-good-deed"  # any time: a virtue
    for p in (ann, bob):
        if card in p.hand:
            p.hand.remove(card)
            state.decks["hero"].append(card)  # type: ignore[attr-defined]
    state.decks["hero"].remove(card)  # type: ignore[attr-defined]
    ann.hand.append(card)
    assert {m.target for m in legal_moves(state, "ann") if m.card == card} == {None, "bob"}  # type: ignore[arg-type]
    do(state, "ann", "play", card=card, target="bob")  # type: ignore[arg-type]
    assert STARTER.track[bob.level].name == "V1" and STARTER.track[ann.level].name == "N"


def test_solo_sets_aside_the_cards_that_need_an_opponent() -> None:
    """A13.2, A14.5: a card aimed at an opponent (timing `opponent`, or an effect naming one) is never drawn in solo."""
    alone = GAME.new_game(["ann"], {"coop": True}, 3)
    table = alone.cards.cards
    needing = {c for c in (*alone.cards.heroes, *alone.cards.antiheroes) if needs_opponent(table[c])}
    assert needing and needing <= set(alone.decks["aside"])
    assert not needing & {*alone.decks["hero"], *alone.decks["antihero"], *alone.ps[0].hand}
    pair = GAME.new_game(["ann", "bob"], {"coop": True}, 3)
    assert needing <= {*pair.decks["hero"], *pair.decks["antihero"], *(c for p in pair.ps for c in p.hand)}
