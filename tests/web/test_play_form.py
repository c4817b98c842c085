"""How a page's form becomes a move: the texts a browser sends, typed as the game reads them."""

from __future__ import annotations

import pytest

import engine
from engine.errors import FormatError
from pbem.web.play import _typed

GLORY = engine.GAMES["call-to-glory"]
ADVENTURE = engine.GAMES["call-to-adventure"]


def test_small_whole_numbers_become_numbers() -> None:
    assert _typed(GLORY, "ann", {"do": "lay", "type": "samurai", "count": "3"}) == {
        "do": "lay",
        "type": "samurai",
        "count": 3,
    }


def test_digits_the_game_reads_as_text_stay_text() -> None:
    """A player called "12" is a name, an Act is "2" in Call to Adventure: the game refuses the number, not the text."""
    assert _typed(GLORY, "ann", {"do": "ninja", "target": "12", "type": "samurai"})["target"] == "12"
    move = {"do": "play", "card": "a-card", "act": "2"}
    assert _typed(ADVENTURE, "ann", move) == move


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        ({"do": "lay", "type": "samurai", "count": "x"}, "count"),
        ({"do": "lay", "type": "samurai", "count": "0001"}, "count"),
        ({"do": "teleport"}, "unknown move"),
        ({"do": "draw", "pile": "draw1", "colour": "3"}, "has no field"),
    ],
)
def test_what_the_game_does_not_know_is_refused_in_its_words(texts: dict[str, str], message: str) -> None:
    with pytest.raises(FormatError, match=message):
        _typed(GLORY, "ann", texts)
