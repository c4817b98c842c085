"""Moves: one class for the six kinds of move of GAME_RECORD.md, parsed strictly."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from ..errors import FormatError
from .cards import PILE_INDEX, PILES, PREFERENCES, TASK_DECKS, TYPE_INDEX, TYPES, VALUES

KINDS: Final = ("draw", "lay", "discard", "ninja", "reveal_task", "preference")
_FIELDS: Final = {
    "draw": ("pile",),
    "lay": ("type", "count"),
    "discard": ("type", "pile"),
    "ninja": ("target", "type"),
    "reveal_task": ("deck",),
    "preference": ("discard_preference",),
}
_REQUIRED: Final = {
    kind: set(fields) - {"pile"} if kind == "discard" else set(fields) for kind, fields in _FIELDS.items()
}


@dataclass(frozen=True, slots=True)
class Move:
    """One move by one player, exactly as one entry of a record's ``moves``.

    Build moves with the class methods (``Move.draw("ann", "draw1")``) or
    ``Move.from_json``; both check names and types, so every Move is well formed.
    Whether it is legal now is for ``apply``/``verify`` to say.
    """

    player: str
    do: str
    pile: str | None = None
    type: str | None = None
    count: int | None = None
    target: str | None = None
    deck: str | None = None
    discard_preference: str | None = None
    pile_id: int = field(default=-1, init=False, repr=False, compare=False)
    type_id: int = field(default=-1, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.player, str) or not self.player:
            raise FormatError("a move needs the name of the player who makes it")
        for name in ("do", "pile", "type", "target", "deck", "discard_preference"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise FormatError(f"{name!r} must be a string, not {value!r}")
        if self.do not in _FIELDS:
            raise FormatError(f"unknown move {self.do!r} (expected one of {', '.join(KINDS)})")
        allowed = _FIELDS[self.do]
        for name in ("pile", "type", "count", "target", "deck", "discard_preference"):
            value = getattr(self, name)
            if value is not None and name not in allowed:
                raise FormatError(f"a {self.do} move has no field {name!r}")
            if value is None and name in _REQUIRED[self.do]:
                raise FormatError(f"a {self.do} move needs {name!r}")
        if self.pile is not None:
            if self.pile not in PILE_INDEX or (self.do == "discard" and not self.pile.startswith("discard")):
                choices = PILES[2:] if self.do == "discard" else PILES
                raise FormatError(f"unknown pile {self.pile!r} (expected {', '.join(choices)})")
            object.__setattr__(self, "pile_id", PILE_INDEX[self.pile])
        if self.type is not None:
            if self.type not in TYPE_INDEX:
                raise FormatError(f"unknown card type {self.type!r} (expected one of {', '.join(TYPES)})")
            object.__setattr__(self, "type_id", TYPE_INDEX[self.type])
        if self.count is not None and (type(self.count) is not int or self.count < 1):
            raise FormatError(f"count must be a whole number of at least 1, not {self.count!r}")
        if self.target is not None and (not isinstance(self.target, str) or not self.target):
            raise FormatError("target must be a player's name")
        if self.deck is not None and self.deck not in TASK_DECKS:
            raise FormatError(f"unknown task deck {self.deck!r} (expected A, B or C)")
        if self.discard_preference is not None and self.discard_preference not in PREFERENCES:
            raise FormatError(
                f"unknown discard preference {self.discard_preference!r} (expected {', '.join(PREFERENCES)})"
            )

    @classmethod
    def draw(cls, player: str, pile: str) -> Move:
        """Draw the top card of ``pile`` (R5.1)."""
        return cls(player, "draw", pile=pile)

    @classmethod
    def lay(cls, player: str, type: str, count: int) -> Move:
        """Lay ``count`` cards of ``type`` (R5.2)."""
        return cls(player, "lay", type=type, count=count)

    @classmethod
    def discard(cls, player: str, type: str, pile: str | None = None) -> Move:
        """Discard one card of ``type``; ``pile`` may be left out where R6 forces it (R5.3)."""
        return cls(player, "discard", type=type, pile=pile)

    @classmethod
    def ninja(cls, player: str, target: str, type: str) -> Move:
        """Return a miniature to remove one ``type`` card from ``target``'s set (R9)."""
        return cls(player, "ninja", target=target, type=type)

    @classmethod
    def reveal_task(cls, player: str, deck: str) -> Move:
        """Reveal one's unrevealed task card of ``deck`` (R8, V1)."""
        return cls(player, "reveal_task", deck=deck)

    @classmethod
    def set_preference(cls, player: str, preference: str) -> Move:
        """Change one's standing discard preference, at any time (R7)."""
        return cls(player, "preference", discard_preference=preference)

    def to_json(self) -> dict[str, Any]:
        """The move as a record entry: ``{"player": …, "do": …, <fields>}``."""
        out: dict[str, Any] = {"player": self.player, "do": self.do}
        for name in _FIELDS[self.do]:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    @classmethod
    def from_json(cls, data: Any) -> Move:
        """Parse a record entry, refusing unknown keys and wrong types with a FormatError."""
        if not isinstance(data, dict):
            raise FormatError("a move must be a JSON object")
        do = data.get("do")
        if not isinstance(do, str) or do not in _FIELDS:
            raise FormatError(f"unknown move {do!r} (expected one of {', '.join(KINDS)})")
        extra = set(data) - {"player", "do", *_FIELDS[do]}
        if extra:
            raise FormatError(f"a {do} move has no field {sorted(extra)[0]!r}")
        player = data.get("player")
        if not isinstance(player, str):
            raise FormatError("a move needs 'player', a player's name")
        for name in ("pile", "type", "target", "deck", "discard_preference"):
            if name in data and not isinstance(data[name], str):
                raise FormatError(f"{name!r} must be a string")
        count = data.get("count")
        if "count" in data and (type(count) is not int):
            raise FormatError("'count' must be a whole number")
        return cls(
            player,
            do,
            pile=data.get("pile"),
            type=data.get("type"),
            count=count,
            target=data.get("target"),
            deck=data.get("deck"),
            discard_preference=data.get("discard_preference"),
        )


class MoveTable:
    """Every move a seat order can make (but preference changes), made once: listing the legal moves of a turn
    picks from these instead of building new ones (``State.moves``).

    Indexes: ``draws[p][first]``, the draws from every pile but ``first``, the pile of the turn's first draw (-1:
    none yet); ``lays[p][type][count]``; ``discards[p][piles][type]``, the discards of one card of ``type`` to the
    discard piles R6 allows: ``piles`` 0 = discard pile 1 only, 1 = discard pile 2 only, 2 = either;
    ``ninjas[p][target][type]``; ``reveals[p][deck]``."""

    __slots__ = ("discards", "draws", "lays", "ninjas", "reveals")

    def __init__(self, players: tuple[str, ...]) -> None:
        top = max(VALUES)
        draws = [[Move.draw(p, pile) for pile in PILES] for p in players]
        self.draws = tuple(
            {first: tuple(m for i, m in enumerate(row) if i != first) for first in range(-1, len(PILES))}
            for row in draws
        )
        self.lays = tuple(
            tuple(tuple(Move.lay(p, t, c) if c else None for c in range(top + 1)) for t in TYPES) for p in players
        )
        self.discards = tuple(_discards(p) for p in players)
        self.ninjas = tuple(tuple(tuple(Move.ninja(p, q, t) for t in TYPES) for q in players) for p in players)
        self.reveals = tuple({d: Move.reveal_task(p, d) for d in TASK_DECKS} for p in players)


def _discards(player: str) -> tuple[tuple[tuple[Move, ...], ...], ...]:
    one = [Move.discard(player, t, "discard1") for t in TYPES]
    two = [Move.discard(player, t, "discard2") for t in TYPES]
    return (
        tuple((m,) for m in one),
        tuple((m,) for m in two),
        tuple(zip(one, two, strict=True)),
    )


@lru_cache(maxsize=256)
def move_table(players: tuple[str, ...]) -> MoveTable:
    """The moves of this seat order (shared by every game with the same players)."""
    return MoveTable(players)
