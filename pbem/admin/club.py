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
from ..i18n import N_
from ..i18n import stored as said
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
    was = (
        said(N_("%(name)s <%(email)s>"), name=old.name, email=old.email or "")
        if not old.is_bot
        else said(N_("%(name)s (%(kind)s bot)"), name=old.name, kind=old.kind)
    )
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
        detail = said(
            N_("gave seat %(number)d (was %(was)s) to %(name)s <%(email)s>, who is invited"),
            number=seat + 1,
            was=was,
            name=target.name,
            email=target.email or "",
        )
        message = _("%(name)s is invited to seat %(number)d.", name=target.name, number=seat + 1)
    else:
        detail = said(
            N_("gave seat %(number)d (was %(was)s) to the %(kind)s bot, as %(name)s"),
            number=seat + 1,
            was=was,
            kind=kind,
            name=target.name,
        )
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
    if started.bots:
        detail = said(
            N_("started the game before everyone had accepted; bots play for %(names)s"), names=", ".join(started.bots)
        )
    elif started.dropped:
        detail = said(
            N_("started the game before everyone had accepted; without %(names)s"), names=", ".join(started.dropped)
        )
    else:
        detail = said(N_("started the game before everyone had accepted"))
    audit.log_action(session, game, actor, "start", detail)
    return _("The game has started; the first turn email is on its way.")


def rematch(*, session: Session, game_id: int, actor: Actor) -> str:
    """Make the rematch of a finished game: the same people, game and options, seats rotated, new invitations."""
    old = seat_rows.get_game(session=session, game_id=game_id)
    new = rematch_flows.make(session=session, game_id=game_id)
    audit.log_action(session, old, actor, "rematch", said(N_("made the rematch: game %(id)d"), id=new.id or 0))
    audit.log_action(
        session, new, actor, "create", said(N_("created the game as the rematch of game %(id)d"), id=game_id)
    )
    return _("Game %(id)d, the rematch, is created; the invitations are on their way.", id=new.id)


def club_view(*, session: Session, game_id: int) -> dict[str, Any]:
    """What the club panel of a game's admin page adds: its rematch (if made), and who asked to play again."""
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    return {
        "rematch": core_rematch.rematch_of(session=session, game_id=game_id),
        "again": [(s.name, s.again_at) for s in seats if s.again_at is not None],
    }
