"""Play again: a player of a finished game asks its organiser for a rematch (``ask_again``), and the organiser's
rematch is the same game with the same people and options, each a seat further on (``rematch_of``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from .. import timing
from ..i18n import N_
from ..models import Game, Seat
from . import games
from . import seats as seat_rows
from .checks import MAX_GAME_NAME
from .errors import NotNow, ServiceError

_NUMBERED = re.compile(r"^(.*) #([0-9]{1,4})$")


def ask_again(
    *, session: Session, game_id: int, seat: int, now: datetime, nonce_tag: str | None = None
) -> tuple[Game, Seat, bool]:
    """Note that the person at ``seat`` of a finished game would like to play it again: the game, the seat, and
    whether this is new (an earlier request stands; nothing changes then)."""
    found = seat_rows.load(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag, lock=True)
    game, me = found.game, found.seat
    if game.status != "finished" or game.aborted_at is not None:
        raise NotNow(N_("The game is not over: a rematch can be asked for once it is."))
    if me.is_bot or not me.email:
        raise ServiceError(N_("%(name)s is played by a bot."), name=me.name)
    if me.again_at is not None:
        return game, me, False
    me.again_at = now
    session.add(me)
    session.flush()
    return game, me, True


def rematch_of(*, session: Session, game_id: int) -> Game | None:
    """The rematch already made of a game (the first, if several), or None."""
    return session.exec(select(Game).where(col(Game.rematch_of) == game_id).order_by(col(Game.id))).first()


@dataclass
class Rematch:
    """What a rematch of a game is made of: its name, seats (rotated), game, options and policy."""

    name: str
    seats: list[games.SeatSpec]
    game: str
    options: dict[str, Any]
    policy: timing.Policy
    organiser_email: str | None


def plan(*, session: Session, game_id: int) -> Rematch:
    """The rematch of a finished game: the same people (a seat left to a bot stays a bot) and options, everyone a
    seat further on (the first player last), named "<name> #2" (then #3 …). NotNow if the game is not over or
    already has its rematch."""
    game = seat_rows.get_game(session=session, game_id=game_id, lock=True)
    if game.status != "finished" or game.aborted_at is not None:
        raise NotNow(N_("The game is not over: a rematch can be made once it is."))
    done = rematch_of(session=session, game_id=game_id)
    if done is not None:
        raise NotNow(N_("This game already has its rematch: game %(id)s."), id=done.id)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    specs = [
        games.SeatSpec(s.name, None, s.language, s.timezone, s.kind)
        if s.is_bot
        else games.SeatSpec(s.name, s.email, s.language, s.timezone, games.HUMAN)
        for s in seats
    ]
    return Rematch(
        _next_name(game.name),
        specs[1:] + specs[:1],
        game.game,
        dict(game.options),
        timing.Policy.from_json(game.policy),
        game.organiser_email,
    )


def _next_name(name: str) -> str:
    numbered = _NUMBERED.match(name)
    base, number = (numbered.group(1), int(numbered.group(2)) + 1) if numbered else (name, 2)
    suffix = f" #{number}"
    return base[: MAX_GAME_NAME - len(suffix)] + suffix
