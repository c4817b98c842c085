"""What every game's records share: the outer shape of a record (JSON object, format, known keys, lists)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, TypeVar

from .errors import FormatError, IllegalMove, RecordError

S = TypeVar("S")
M = TypeVar("M")


def check_shape(data: Any, record_format: str, keys: Collection[str]) -> dict[str, Any]:
    """``data`` as a record of ``record_format`` with only ``keys`` and list-valued ``players`` and ``moves``;
    else FormatError saying what is wrong."""
    if not isinstance(data, dict):
        raise FormatError("a game record must be a JSON object")
    if data.get("format") != record_format:
        raise FormatError(f"not a game record of format {record_format!r}")
    if "omitted" in data:
        left = data["omitted"].get("keys") if isinstance(data["omitted"], dict) else None
        what = ", ".join(map(str, left))[:200] if isinstance(left, list) and left else "some of its keys"
        raise FormatError(
            f"this record leaves out {what} (it was exported before the game ended, by an organiser who plays in "
            "it), so it cannot be replayed"
        )
    extra = set(data) - set(keys)
    if extra:
        raise FormatError(f"unknown key {sorted(extra)[0]!r} in the record")
    for key in ("players", "moves"):
        if not isinstance(data.get(key), list):
            raise FormatError(f"{key!r} must be a list")
    return data


def apply_all(state: S, entries: list[Any], parse: Callable[[Any], M], apply: Callable[[S, M], None]) -> list[M]:
    """Parse and apply a record's moves in order; the first bad one raises RecordError with its index (a move
    that is not of the format has no rule; an illegal one names the rule that forbids it)."""
    moves: list[M] = []
    for i, entry in enumerate(entries):
        try:
            move = parse(entry)
            apply(state, move)
        except FormatError as exc:
            raise RecordError(i, None, str(exc)) from None
        except IllegalMove as exc:
            raise RecordError(i, exc.rule, exc.message) from None
        moves.append(move)
    return moves
