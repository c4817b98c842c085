"""Choices for pages (contract §4): card names, every legal move once, closed cards with reasons, refinements."""

from __future__ import annotations

import json
import random
import re

from engine import GAMES
from engine.call_to_adventure import Move, State, apply, legal_moves
from engine.call_to_adventure.state import PLAYING

from .helpers import ONE, game

GAME = GAMES["call-to-adventure"]
ID = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b")


def _key(move: Move) -> str:
    return json.dumps(move.to_json(), sort_keys=True)


def _check(state: State, player: str) -> None:
    legal = sorted(_key(m) for m in legal_moves(state, player))
    offered = []
    ids = set(state.cards.cards)
    for group in GAME.choices(state, player):
        assert group.title and not ID.search(group.title)
        for choice in group.choices:
            words = " ".join((choice.label, choice.note))
            assert not set(ID.findall(words)) & ids, words
            assert choice.confirm == (choice.move["do"] == "challenge")
            if choice.move["do"] != "challenge":
                offered.append(_key(GAME.parse_move(player, dict(choice.move))))
                continue
            variants = GAME.refine(state, player, choice.move)
            assert variants and variants[0].move == {**choice.move, "dark": "0"}
            for variant in variants:
                offered.append(_key(GAME.parse_move(player, dict(variant.move))))
                assert Move.from_json({**variant.move, "player": player}) in legal_moves(state, player)
                assert not set(ID.findall(variant.label + variant.note)) & ids
                assert "%" in variant.note or variant.move["do"] == "attempt", variant
        for closed in group.closed:
            assert closed.reason and not set(ID.findall(closed.label + closed.reason)) & ids
    assert sorted(offered) == legal


def test_choices_offer_every_legal_move_once_in_words() -> None:
    for options in ({"allies_adversaries": True}, {"coop": True}, {"first_game": True}):
        state = GAME.new_game(["p1", "p2"], options, 5)
        rng = random.Random(2)
        for _step in range(300):
            waiting = GAME.waiting_for(state)
            if not waiting:
                break
            for player in state.players:
                _check(state, player)
            player = sorted(waiting)[0]
            apply(state, rng.choice(legal_moves(state, player)))


def test_every_row_card_not_open_is_closed_with_its_reason() -> None:
    state = game(act1=["t-icon", "t-spend", "c-five", "t-corr"], origins=["o-str"])
    state.ps[0].xp = 1
    groups = {g.key: g for g in GAME.choices(state, "ann")}
    closed = {c.label: c.reason for c in groups["trait"].closed}
    assert closed == {
        "t-icon card": "needs a Wisdom icon in your Story",
        "t-spend card": "needs 2 experience",
        "t-corr card": "needs your marker at C2 or lower",
    }
    assert [c.label for c in groups["attempt"].choices] == [
        "Attempt c-five card (top path) and cast",
        "Attempt c-five card (bottom path) and cast",
    ]
    assert all("% chance against 5" in c.note for c in groups["attempt"].choices)
    state.ps[0].story = [("f1-1", 0), ("f1-2", 0), ("f1-3", 0)]
    groups = {g.key: g for g in GAME.choices(state, "ann")}
    assert {c.reason for g in ("trait", "attempt") for c in groups[g].closed} == {"Act I is over for you"}
    assert not groups["attempt"].choices and "discard" in groups


def test_refine_gives_the_dark_rune_variants_with_their_odds() -> None:
    state = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"])
    state.ps[0].xp = 2
    move = {"do": "challenge", "card": "c-five", "path": "bottom", "dark": "0"}
    *variants, step = GAME.refine(state, "ann", move)
    assert [v.move["dark"] for v in variants] == ["0", "1", "2"]
    assert step.move == {"do": "attempt", "card": "c-five", "path": "bottom"}, "last: step by step, to play cards"
    assert step.label.startswith("Declare c-five card (bottom path)")
    assert variants[2].label == "Attempt c-five card (bottom path) with 2 dark runes and cast"
    assert variants[2].note.startswith("Runes 3 core, 2 Strength, 2 dark: ")
    chances = [int(v.note.split(": ")[1].split(" %")[0]) for v in variants]
    assert chances == GAME.player_view(state, "ann")["odds"]["c-five"]["bottom"]["chances"]
    assert GAME.refine(state, "ann", {"do": "trait", "card": "t-free"}) == []
    assert GAME.refine(state, "ann", {"do": "challenge", "card": "nothing", "path": "top"}) == []
    assert "experience" not in variants[0].note, "no dark rune: no cost"
    for k in (1, 2):  # each dark-rune variant says what it costs: experience, and the corruption it may bring
        cost = f" · costs {k} experience; each dark rune that shows 2 also brings 1 corruption"
        assert variants[k].note.endswith(cost)
    assert GAME.refine(state, "bob", move) == []
    assert GAME.refine(state, "ann", {"do": "challenge", "dark": 9}) == []


def test_facing_a_challenge_offers_two_ways_to_take_the_result_and_closes_unplayable_cards() -> None:
    state = game(
        act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"], heroes=["h-plus2", "h-per"], casts=[[ONE] * 5]
    )
    state.ps[1].hand.remove("h-per")
    state.ps[0].hand.append("h-per")
    apply(state, Move("ann", "challenge", card="c-easy", path="top", dark="0"))
    assert state.status == PLAYING and state.phase == "facing"
    groups = {g.key: g for g in GAME.choices(state, "ann")}
    assert [c.label for c in groups["resolve"].choices] == ["Take the result", "Take the result and end your turn"]
    assert "you overcome it" in groups["resolve"].choices[0].note
    assert {c.label: c.reason for c in groups["play"].closed} == {"h-per card": "played before the cast"}
    state.ps[0].level = 4  # C2: Hero cards are closed
    groups = {g.key: g for g in GAME.choices(state, "ann")}
    assert {c.reason for c in groups["play"].closed} == {"Hero cards are closed to you at C2"}
