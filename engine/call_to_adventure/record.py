"""Game records of format ``call-to-adventure/1`` (docs/card-sets.md, "Records"): write, parse, replay.

A record carries the whole card set (its TOML text), so it replays whatever happens to the set files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ..errors import FormatError, IllegalMove, RecordError
from ..records import apply_all, check_shape
from .cardset import CardSet, parse
from .moves import FIELDS, Move
from .rules import apply
from .state import DECK_KEYS, State, new_game
from .words import EN

RECORD_FORMAT: Final = "call-to-adventure/1"
_KEYS: Final = {"format", "players", "options", "seed", "card_set", "decks", "casts", "moves"}


def record_of(start: State, moves: Sequence[Move]) -> dict[str, Any]:
    """The record of a game started as ``start``, with ``moves``."""
    out: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "players": list(start.players),
        "options": dict(start.options),
        "seed": start.seed,
        "card_set": {"source": start.cards.source, "toml": start.cards.text},
    }
    if start.given:
        out["decks"] = {k: list(v) for k, v in start.given.items()}
    if start.given_casts:
        out["casts"] = [list(c) for c in start.given_casts]
    out["moves"] = [m.to_json() for m in moves]
    return out


def _start(data: Any) -> State:
    data = check_shape(data, RECORD_FORMAT, _KEYS)
    card_set = data.get("card_set")
    if not isinstance(card_set, dict) or not isinstance(card_set.get("toml"), str):
        raise FormatError("'card_set' must be an object with the set's TOML text under 'toml'")
    cards: CardSet = parse(card_set["toml"], str(card_set.get("source", "record")))
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise FormatError("'options' must be an object")
    seed = data.get("seed", 0)
    if type(seed) is not int:
        raise FormatError("'seed' must be a whole number")
    decks = data.get("decks", {})
    if not isinstance(decks, dict) or any(k not in DECK_KEYS for k in decks):
        raise FormatError(f"'decks' must map deck names ({', '.join(DECK_KEYS)}) to card ids, top first")
    casts = data.get("casts", [])
    if not isinstance(casts, list) or any(not isinstance(c, list) or any(type(f) is not int for f in c) for c in casts):
        raise FormatError("'casts' must be a list of casts, each a list of face numbers")
    return new_game(data["players"], options, seed, cards, decks, casts)


def _move(entry: Any) -> Move:
    """A record's move; an unknown kind of move is refused citing A4 (the moves of a turn), with the kinds."""
    if isinstance(entry, dict) and isinstance(entry.get("do"), str) and entry["do"] not in FIELDS:
        params = {"value": entry["do"], "moves": list(FIELDS)}
        raise IllegalMove("A4", EN.refusal("unknown_move", params), "unknown_move", params)
    return Move.from_json(entry)


def replay(data: Any) -> tuple[State, State, list[Move]]:
    """(start, final state, moves) of a decoded record; RecordError names the first problem."""
    try:
        start = _start(data)
    except FormatError as exc:
        raise RecordError(None, None, str(exc)) from None
    state = start.clone()
    moves = apply_all(state, data["moves"], _move, apply)
    return start, state, moves
