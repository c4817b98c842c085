"""A game's record to download, and a check that its move log replays to the stored state."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from engine.errors import FormatError, IllegalMove

from .. import audit, games
from .common import Actor


@dataclass(frozen=True)
class Export:
    """A game record ready to download."""

    filename: str
    text: str


def game_record(*, session: Session, game_id: int) -> dict[str, Any]:
    """The game's record (its ``record_format``): players, options, seed and every move, replayable by the engine."""
    game = games.get_game(session=session, game_id=game_id)
    rules = games.rules_of(game)
    names = [s.name for s in games.seats_of(session=session, game_id=game_id)]
    start = rules.new_game(names, game.options, game.seed)
    moves = [rules.parse_move(names[r.seat], r.move) for r in games.move_log(session=session, game_id=game_id)]
    return rules.record(start, moves)


def export_record(*, session: Session, game_id: int, actor: Actor) -> Export:
    """The game's record as a JSON download; logged, since it reveals everything hidden."""
    record = game_record(session=session, game_id=game_id)
    game = games.get_game(session=session, game_id=game_id)
    moves = len(games.move_log(session=session, game_id=game_id))
    audit.log_action(session, game, actor, "export", f"exported the game record ({moves} moves)")
    slug = re.sub(r"[^a-z0-9]+", "-", game.name.lower()).strip("-")[:40] or "game"
    return Export(f"{game.game}-{game.id}-{slug}.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def verify(*, session: Session, game_id: int, actor: Actor) -> tuple[bool, str]:
    """Replay the move log from the seed and compare it with the stored snapshot; the result is logged."""
    game = games.get_game(session=session, game_id=game_id)
    moves = len(games.move_log(session=session, game_id=game_id))
    try:
        ok = games.verify_game(session=session, game_id=game_id)
        result = (
            f"replayed {moves} moves: the stored state matches"
            if ok
            else f"replayed {moves} moves: the stored state DIFFERS from the replay"
        )
    except (IllegalMove, FormatError) as exc:
        ok = False
        result = f"the move log does not replay: {getattr(exc, 'message', str(exc))}"
    audit.log_action(session, game, actor, "verify", f"verified the game: {result}")
    return ok, result[0].upper() + result[1:] + "."
