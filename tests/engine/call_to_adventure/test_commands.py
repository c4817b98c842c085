"""Commands for replies by email: a short command per open choice in the reader's language, read back liberally,
English understood in every language, numbers always: a whole turn can be played by replies."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES
from engine.call_to_adventure.state import State

GAME = GAMES["call-to-adventure"]
CASES = Path(__file__).resolve().parent / "oracle_cases"


def start() -> State:
    data: dict[str, Any] = json.loads(next(CASES.glob("F1-*.json")).read_text())
    data["moves"] = []
    return GAME.replay(data)[1]


def test_a_challenge_with_its_dark_runes_and_a_trait_by_their_names() -> None:
    state = start()
    fire = {"do": "challenge", "card": "s1-fire-at-the-ferry", "path": "top"}
    assert GAME.parse_command(state, "ann", "attempt fire at the ferry top 2") == {**fire, "dark": "2"}
    assert GAME.parse_command(state, "ann", "Attempt the Fire at the Ferry, top path, with 2 dark runes!") == {
        **fire,
        "dark": "2",
    }
    assert GAME.parse_command(state, "ann", "attempt fire at the ferry top") == {**fire, "dark": "0"}
    assert GAME.parse_command(state, "ann", "gain quick hands") == {"do": "trait", "card": "s1-quick-hands"}
    assert GAME.parse_command(state, "ann", "journey quick hands") == {"do": "journey", "card": "s1-quick-hands"}
    assert GAME.parse_command(state, "ann", "hello bob, nice move") is None
    assert GAME.parse_command(state, "bob", "gain quick hands") is None  # not bob's turn


@pytest.mark.parametrize("lang", ["en", "nl", "fr"])
def test_numbers_own_words_and_english_in_every_language(lang: str) -> None:
    game = GAME.speaking(lang)
    state = start()
    listed = game.commands(state, "ann")
    texts = [c.text for c in listed]
    assert len(set(texts)) == len(texts)
    for n, command in enumerate(listed, 1):
        assert game.parse_command(state, "ann", str(n)) == command.move
        assert game.parse_command(state, "ann", command.text.upper()) == command.move
    assert game.parse_command(state, "ann", str(len(listed) + 1)) is None
    assert game.parse_command(state, "ann", "gain quick hands") == {"do": "trait", "card": "s1-quick-hands"}


def test_a_whole_turn_by_replies() -> None:
    state = start()
    for line in ("attempt fire at the ferry top", "play try again runes 3", "draw hero", "result end"):
        if GAME.waiting_for(state).get("ann") is None:
            break
        move = GAME.parse_command(state, "ann", line)
        assert move is not None, (line, [c.text for c in GAME.commands(state, "ann")])
        GAME.apply(state, GAME.parse_move("ann", move))
    assert state.players[state.current] == "bob"  # the turn ended


def test_every_command_of_random_games_reads_back_as_its_move() -> None:
    for options in ({"allies_adversaries": True}, {"coop": True}, {}):
        state = GAME.new_game(["ann", "bob"], options, 11)
        rng = random.Random(3)
        for _ in range(80):
            waiting = GAME.waiting_for(state)
            if not waiting:
                break
            player = sorted(waiting)[0]
            for lang in ("en", "fr"):
                game = GAME.speaking(lang)
                listed = game.commands(state, player)
                assert len({c.text for c in listed}) == len(listed), [c.text for c in listed]
                for command in rng.sample(listed, min(4, len(listed))):
                    assert game.parse_command(state, player, command.text) == command.move
            move = rng.choice(GAME.legal_moves(state, player))
            GAME.apply(state, move)
