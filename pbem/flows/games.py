"""A game's life: created (invitations and the first turn email), paused, resumed, aborted.

Each runs in the caller's transaction and queues the emails its change calls for (``mail.notify``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session

from .. import timing
from ..core import games, seats, waits
from ..core.errors import GameOver
from ..i18n import N_, StoredText
from ..mail import notify
from ..models import Game
from . import play


def create(
    *,
    session: Session,
    name: str,
    seats: Sequence[games.SeatSpec],
    game: str = games.DEFAULT_GAME,
    options: Mapping[str, Any] | None = None,
    random_order: bool = False,
    seed: int | None = None,
    organiser_email: str | None = None,
    policy: timing.Policy | None = None,
) -> Game:
    """Create a game (``core.games.create_game``), then invite its players and queue the first turn email."""
    outcome = games.create_game(
        session=session,
        name=name,
        seats=seats,
        game=game,
        options=options,
        random_order=random_order,
        seed=seed,
        organiser_email=organiser_email,
        policy=policy,
    )
    notify.after_create(session=session, game=outcome.game, seats=outcome.seats, outcome=outcome)
    return outcome.game


def pause(*, session: Session, game_id: int, reason: StoredText, now: datetime) -> Game:
    """Pause a game (no moves, reminders or deadlines until it is resumed), for ``reason`` (a code, put into
    words in each reader's language); nothing changes if it already is."""
    game = seats.get_game(session=session, game_id=game_id, lock=True)
    if game.status == "finished":
        raise GameOver(N_("The game is over: there is nothing to pause."))
    if game.paused_at is None:
        game.paused_at = now
        game.paused_reason, game.paused_why = None, reason
        waits.pause(session, game)
    return game


def resume(*, session: Session, game_id: int, now: datetime) -> int:
    """Resume a paused game: each seat waited on gets a fresh wait (reminders and deadline counted from now), and
    a bot that must act plays at once; the number of bot moves made."""
    game = seats.get_game(session=session, game_id=game_id, lock=True)
    if game.paused_at is None:
        return 0
    game.paused_at = None
    game.paused_reason = game.paused_why = None
    waits.resume(session=session, game=game, rules=games.rules_of(game), state=games.load_state(game), now=now)
    session.flush()
    return play.play_bots(session=session, game=game)


def abort(*, session: Session, game: Game, reason: StoredText, now: datetime) -> Game:
    """Stop a game for good, for ``reason`` (a code): no more moves, reminders or deadlines; it stays readable.
    Every player is told why, in their language."""
    game.aborted_at = now
    game.paused_at = game.paused_at or now
    game.paused_reason, game.paused_why = None, reason
    waits.clear(session, game)
    session.add(game)
    session.flush()
    notify.queue_aborted(session=session, game=game, seats=seats.seats_of(session=session, game_id=game.id or 0))
    return game
