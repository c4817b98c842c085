"""Moves of Call to Adventure: one class, parsed strictly from a record entry (docs/card-sets.md, "Records")."""

from __future__ import annotations

import json
from typing import Any, Final, NamedTuple

from ..errors import FormatError

PATHS: Final = ("top", "bottom")
DECKS: Final = ("hero", "antihero")
FIELDS: Final = {
    "choose": ("origin", "motivation", "destiny"),
    "trait": ("card",),
    "attempt": ("card", "path"),
    "discard": ("card",),
    "pass": (),
    "journey": ("card",),
    "dark": (),
    "cast": (),
    "draw": ("deck",),
    "play": ("card", "target", "row", "runes", "act"),
    "order": ("order",),
    "tuck": ("card",),
    "use": ("card", "target", "row", "runes", "act"),
    "resolve": ("end",),
    "end": (),
    "challenge": ("card", "path", "dark"),
}
_OPTIONAL: Final = {"target", "row", "runes", "act", "end"}
_ALL: Final = (
    "card",
    "path",
    "target",
    "row",
    "deck",
    "origin",
    "motivation",
    "destiny",
    "runes",
    "act",
    "order",
    "dark",
    "end",
)
DARK: Final = ("0", "1", "2", "3")
"""How many dark runes a ``challenge`` move buys (A5.3: at most 3)."""


class Move(NamedTuple):
    """One move of one player, exactly as one entry of a record's ``moves`` (``do`` names its kind)."""

    player: str
    do: str
    card: str | None = None
    path: str | None = None
    target: str | None = None
    row: str | None = None
    deck: str | None = None
    origin: str | None = None
    motivation: str | None = None
    destiny: str | None = None
    runes: str | None = None
    act: str | None = None
    order: str | None = None
    dark: str | None = None
    end: str | None = None

    def check(self) -> Move:
        """This move if it is well formed (names and types), else FormatError naming the field. The values
        (a path, a deck, a count of dark runes …) are the rules' to refuse, citing the
        section and naming what is allowed (``rules.verify``). Moves the rules build are well formed."""
        if not isinstance(self.player, str) or not self.player:
            raise FormatError("a move needs the name of the player who makes it")
        if not isinstance(self.do, str) or self.do not in FIELDS:
            raise FormatError(f"unknown move {str(self.do)[:40]!r} (expected one of {', '.join(FIELDS)})")
        allowed = FIELDS[self.do]
        for name in _ALL:
            value = getattr(self, name)
            if value is None:
                if name in allowed and name not in _OPTIONAL:
                    raise FormatError(f"a {self.do} move needs {name!r}")
                continue
            if name not in allowed:
                raise FormatError(f"a {self.do} move has no field {name!r}")
            if not isinstance(value, str) or not value or len(value) > 2000:
                shown = json.dumps(value)[:40] if isinstance(value, int | float | bool | None) else type(value).__name__
                raise FormatError(f'{name!r} must be a non-empty text (in quotes, like "1"), not {shown}')
        return self

    @classmethod
    def from_json(cls, data: Any) -> Move:
        """A move from a record entry ``{"player": …, "do": …, <fields>}``; FormatError for anything else."""
        if not isinstance(data, dict):
            raise FormatError("a move must be a JSON object")
        extra = set(data) - {"player", "do", *_ALL}
        if extra:
            raise FormatError(f"unknown field {sorted(extra)[0]!r} in a move")
        fields = {k: data.get(k) for k in _ALL}
        if data.get("do") == "challenge" and fields["dark"] is None:
            fields["dark"] = "0"  # no dark rune unless said
        move = cls(data.get("player"), data.get("do"), **fields)  # type: ignore[arg-type]
        return move.check()

    def to_json(self) -> dict[str, Any]:
        """The record entry of this move."""
        out: dict[str, Any] = {"player": self.player, "do": self.do}
        for name in _ALL:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out
