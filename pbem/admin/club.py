"""A club's games: the invitations of a game that waits for answers (fill a declined seat, start it now) and a
rematch of a finished game. Each writes an ``AdminAction`` in the transaction of its change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_babel import gettext
from sqlmodel import Session

from ..core import audit, games
from ..core import rematch as core_rematch
from ..core import seats as seat_rows
from ..flows import invites as invite_flows
from ..flows import rematch as rematch_flows
from .common import Actor

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""


def fill_seat(
    *,
    session: Session,
    game_id: int,
    seat: int,
    kind: str,
    actor: Actor,
    name: str = "",
    email: str = "",
    language: str = "en",
    timezone: str = "UTC",
) -> str:
    """Give a seat of a game that waits for answers to a new person (who is invited at once) or to a bot."""
    old = seat_rows.load(session=session, game_id=game_id, seat=seat).seat
    was = f"{old.name} <{old.email}>" if not old.is_bot else f"{old.name} ({old.kind} bot)"
    target = invite_flows.fill_seat(
        session=session,
        game_id=game_id,
        seat=seat,
        kind=kind,
        name=name,
        email=email,
        language=language,
        timezone=timezone,
    )
    game = seat_rows.get_game(session=session, game_id=game_id)
    if kind == games.HUMAN:
        detail = f"gave seat {seat + 1} (was {was}) to {target.name} <{target.email}>, who is invited"
        message = _("%(name)s is invited to seat %(number)d.", name=target.name, number=seat + 1)
    else:
        detail = f"gave seat {seat + 1} (was {was}) to the {kind} bot, as {target.name}"
        message = _("The %(kind)s bot plays seat %(number)d.", kind=kind, number=seat + 1)
    audit.log_action(session, game, actor, "fill_seat", detail, seat=seat)
    if game.status != games.INVITED:
        message += " " + _("Everyone has accepted: the game has started.")
    return message


def start_now(*, session: Session, game_id: int, actor: Actor) -> str:
    """Start a game that waits for answers now, as it would at its start date (bots in the seats nobody accepted,
    or without them)."""
    started = invite_flows.start(session=session, game_id=game_id)
    game = started.outcome.game
    what = f"; bots play for {', '.join(started.bots)}" if started.bots else ""
    what += f"; without {', '.join(started.dropped)}" if started.dropped else ""
    audit.log_action(session, game, actor, "start", f"started the game before everyone had accepted{what}")
    return _("The game has started; the first turn email is on its way.")


def rematch(*, session: Session, game_id: int, actor: Actor) -> str:
    """Make the rematch of a finished game: the same people, game and options, seats rotated, new invitations."""
    old = seat_rows.get_game(session=session, game_id=game_id)
    new = rematch_flows.make(session=session, game_id=game_id)
    audit.log_action(session, old, actor, "rematch", f"made the rematch: game {new.id}")
    audit.log_action(session, new, actor, "create", f"created the game as the rematch of game {game_id}")
    return _("Game %(id)d, the rematch, is created; the invitations are on their way.", id=new.id)


def club_view(*, session: Session, game_id: int) -> dict[str, Any]:
    """What the club panel of a game's admin page adds: its rematch (if made), and who asked to play again."""
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    return {
        "rematch": core_rematch.rematch_of(session=session, game_id=game_id),
        "again": [(s.name, s.again_at) for s in seats if s.again_at is not None],
    }
