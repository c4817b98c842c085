"""Card types, values, lay minimums and pile names (RULES.md R1, R5.1)."""

from __future__ import annotations

from typing import Final

TYPES: Final = (
    "emperor",
    "empress",
    "daimyo",
    "shogun",
    "samurai",
    "ninja",
    "envoy",
    "monk",
    "farmer",
)
"""The nine character types, in the order of R1 (index = internal type id)."""

VALUES: Final = (6, 7, 8, 9, 12, 14, 16, 18, 20)
"""Value of each type, which is also its number of copies in the deck (R1)."""

TYPE_INDEX: Final = {name: i for i, name in enumerate(TYPES)}
NINJA: Final = TYPE_INDEX["ninja"]
DECK_SIZE: Final = sum(VALUES)

_MIN3: Final = frozenset({TYPE_INDEX["samurai"], NINJA, TYPE_INDEX["envoy"]})
LAY_MINIMUM: Final = {n: tuple(3 if (n >= 3 and t in _MIN3) else 2 for t in range(len(TYPES))) for n in (2, 3, 4)}
"""Lay minimum per player count and type (R1)."""

PILES: Final = ("draw1", "draw2", "discard1", "discard2")
PILE_INDEX: Final = {name: i for i, name in enumerate(PILES)}
DISCARD1: Final = 2
DISCARD2: Final = 3

END_TYPES: Final = {2: 6, 3: 5, 4: 4}
"""Number of different types in front of one player that ends a round (R8.1)."""

TASK_BONUS: Final = {"A": 5, "B": 4, "C": 3}
TASK_DECKS: Final = ("A", "B", "C")
DEFAULT_TASK_TABLE: Final = {
    "A": ("emperor", "empress", "daimyo", "shogun"),
    "B": ("shogun", "samurai", "ninja", "envoy"),
    "C": ("ninja", "envoy", "monk", "farmer"),
}
"""The default Imperial Task cards of R1 (an organiser may replace them)."""

MINIATURES: Final = 4
PREFERENCES: Final = ("smaller", "larger", "pile1", "pile2")

FULL_DECK: Final = tuple(t for t in range(len(TYPES)) for _ in range(VALUES[t]))
"""The 110 cards as type ids, in a fixed canonical order."""


def counts_json(row: list[int]) -> dict[str, int]:
    """Counts per type id as ``{"farmer": 2}``, zero counts left out (GAME_RECORD.md)."""
    return {TYPES[t]: c for t, c in enumerate(row) if c}


def kinds(row: list[int]) -> int:
    """How many types a row of counts per type holds (a table's sets: R8.1)."""
    return len(row) - row.count(0)


def names(cards: list[int]) -> list[str]:
    """Type ids as card names."""
    return [TYPES[t] for t in cards]
