"""A state names its card set by the digest of its text when the reader can find the set again (a packaged set,
or the game's own set from its options), so a stored game does not hold a copy of the set; else it holds the
text, as every state did before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.call_to_adventure.cardset import digest
from engine.call_to_adventure.files import packaged_set, sets_in
from engine.call_to_adventure.game import GAME
from engine.errors import FormatError

PLAYERS = ["ann", "bob", "cy"]
STARTER_DIGEST = "61f5e4126f5022e7108072bbe1a1b3f7f3c436e7ce4e22b7728c14fc47af6ceb"


def _own_set() -> dict[str, str]:
    """A card-set file's option: the starter set's cards, as another text."""
    return {"source": "mine.toml", "text": packaged_set().text + "\n# our own copy\n"}


def test_a_packaged_set_is_named_by_its_digest_and_found_again() -> None:
    state = GAME.new_game(PLAYERS, {}, 7)
    data = GAME.to_json(state)
    assert data["card_set"] == {"source": "starter.toml", "digest": STARTER_DIGEST}
    assert len(json.dumps(data)) < 10_000  # the set's text alone is about 48 KB
    assert GAME.to_json(GAME.from_json(data)) == data
    french = GAME.speaking("fr")
    assert french.to_json(french.from_json(data)) == data


def test_a_games_own_set_is_named_by_its_digest_for_the_game_and_spelled_out_for_others() -> None:
    options: dict[str, Any] = {"card_set": _own_set()}
    own = GAME.for_options(options)
    state = own.new_game(PLAYERS, options, 7)
    data = own.to_json(state)
    assert data["card_set"] == {"source": "mine.toml", "digest": digest(_own_set()["text"])}
    assert own.to_json(own.from_json(data)) == data
    with pytest.raises(FormatError, match=r"'mine\.toml' of this state is not known here"):
        GAME.from_json(data)  # a game that was not given the set cannot read the state
    whole = GAME.to_json(state)  # ... and so is given the text by the one that does not know it
    assert whole["card_set"] == {"source": "mine.toml", "toml": _own_set()["text"]}
    assert own.to_json(GAME.from_json(whole)) == data


def test_a_state_written_with_the_sets_text_is_read_and_written_again_by_digest() -> None:
    state = GAME.new_game(PLAYERS, {}, 7)
    data = GAME.to_json(state)
    old = {**data, "card_set": {"source": "starter.toml", "toml": packaged_set().text}}
    assert GAME.to_json(GAME.from_json(old)) == data


def test_the_starter_set_keeps_its_text_for_the_games_that_name_it() -> None:
    assert packaged_set().digest == STARTER_DIGEST, (
        "sets/starter.toml changed: games in progress name it by the digest of its text. Copy its former text "
        "(git show HEAD:engine/call_to_adventure/sets/starter.toml) to sets/archive/, then update STARTER_DIGEST."
    )


def test_an_archived_set_is_found_by_the_digest_of_its_text(tmp_path: Path) -> None:
    text = _own_set()["text"]
    (tmp_path / "starter-2026.toml").write_text(text, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a set", encoding="utf-8")
    found = sets_in(tmp_path)
    assert list(found) == [digest(text)]
    assert found[digest(text)].source == "starter-2026.toml"
    assert sets_in(tmp_path / "missing") == {}
