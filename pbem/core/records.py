"""Game records and fair play: a stored game's record (the game's own format), what a player may see of it before
the end, and the seed's commitment that every invitation announces."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlmodel import Session

from ..models import Game, Seat
from . import games, seats


def commitment(seed: int | str) -> str:
    """The SHA-256 of a seed's decimal digits, in hex: announced at the start, checked against the seed at the end."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def of_game(*, session: Session, game: Game, seat_rows: list[Seat] | None = None) -> dict[str, Any]:
    """The record of a stored game (its ``record_format``): players, options, seed and every move, replayable."""
    rules = games.rules_of(game)
    names = [s.name for s in (seat_rows or seats.seats_of(session=session, game_id=game.id or 0))]
    start = rules.new_game(names, game.options, game.seed)
    logged = games.move_log(session=session, game_id=game.id or 0)
    return rules.record(start, [rules.parse_move(names[r.seat], r.move) for r in logged])


def as_seen_by(*, session: Session, game: Game, viewer: Seat) -> dict[str, Any]:
    """The record as ``viewer`` (a player of the running game) may see it: the game's ``public_record``, with what
    it leaves out named under ``omitted`` (such a record cannot be replayed)."""
    record = games.rules_of(game).public_record(of_game(session=session, game=game), viewer.name)
    omitted = dict(record.get("omitted") or {})
    omitted["why"] = (
        f"exported before the game ended by someone who plays in it (as {viewer.name}): the seed and everything "
        "that tells hidden or future cards are left out, so this record cannot be replayed"
    )
    return {**record, "omitted": omitted}


def as_json(record: dict[str, Any]) -> str:
    """A record as the JSON text of a download or an attachment."""
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"
