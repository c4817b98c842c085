"""A game's record to download, and a check that its move log replays to the stored state."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext as _
from sqlmodel import Session

from engine.errors import FormatError, IllegalMove

from .. import i18n
from ..core import audit, games, records
from ..core import seats as seat_rows
from ..i18n import N_, Np_
from .common import Actor
from .playing import hidden_seat


@dataclass(frozen=True)
class Export:
    """A game record ready to download."""

    filename: str
    text: str


def game_record(*, session: Session, game_id: int, actor: Actor | None = None) -> dict[str, Any]:
    """The game's record (its ``record_format``): players, options, seed and every move, replayable by the engine.

    While ``actor`` plays in the running game and has not chosen to see everything, the record is what their seat
    may see of it (the game's ``public_record``): what it leaves out is named under ``omitted``, and it cannot be
    replayed.
    """
    game = seat_rows.get_game(session=session, game_id=game_id)
    everyone = seat_rows.seats_of(session=session, game_id=game_id)
    seat = hidden_seat(session=session, game=game, seats=everyone, actor=actor)
    if seat is None:
        return records.of_game(session=session, game=game, seat_rows=everyone)
    return records.as_seen_by(session=session, game=game, viewer=seat)


def export_record(*, session: Session, game_id: int, actor: Actor) -> Export:
    """The game's record as a JSON download; logged, since it reveals everything hidden (unless the organiser plays
    in the running game: then it leaves out the seed and hidden cards, and its file name says so)."""
    record = game_record(session=session, game_id=game_id, actor=actor)
    game = seat_rows.get_game(session=session, game_id=game_id)
    moves = len(games.move_log(session=session, game_id=game_id))
    partial = "omitted" in record
    exported = (
        Np_(
            "exported the game record (%(num)d move; without its seed and hidden cards, as the organiser plays)",
            "exported the game record (%(num)d moves; without its seed and hidden cards, as the organiser plays)",
        )
        if partial
        else Np_("exported the game record (%(num)d move)", "exported the game record (%(num)d moves)")
    )
    audit.log_action(session, game, actor, "export", i18n.stored(exported, num=moves))
    slug = re.sub(r"[^a-z0-9]+", "-", game.name.lower()).strip("-")[:40] or "game"
    name = f"{game.game}-{game.id}-{slug}{'-without-seed' if partial else ''}.json"
    return Export(name, json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def verify(*, session: Session, game_id: int, actor: Actor) -> tuple[bool, str]:
    """Replay the move log from the seed and compare it with the stored snapshot; the result is logged."""
    game = seat_rows.get_game(session=session, game_id=game_id)
    moves = len(games.move_log(session=session, game_id=game_id))
    try:
        ok = games.verify_game(session=session, game_id=game_id)
        result = i18n.stored(
            Np_("replayed %(num)d move: the stored state matches", "replayed %(num)d moves: the stored state matches")
            if ok
            else Np_(
                "replayed %(num)d move: the stored state DIFFERS from the replay",
                "replayed %(num)d moves: the stored state DIFFERS from the replay",
            ),
            num=moves,
        )
        # one message whatever the count: tests/admin/test_services.py pins the English "Replayed 1 moves"
        if ok:
            said = _("Replayed %(num)d moves: the stored state matches.", num=moves)
        else:
            said = _("Replayed %(num)d moves: the stored state DIFFERS from the replay.", num=moves)
    except (IllegalMove, FormatError) as exc:
        ok = False
        why = getattr(exc, "message", str(exc))
        result = i18n.stored(N_("the move log does not replay: %(why)s"), why=why)
        said = _("The move log does not replay: %(why)s.", why=why)
    audit.log_action(session, game, actor, "verify", i18n.stored(N_("verified the game: %(result)s"), result=result))
    return ok, said
