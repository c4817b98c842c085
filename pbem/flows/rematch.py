"""Play again: a player asks the organiser for a rematch (the organiser is told by email), and the organiser makes
it: a new game of the same people, game and options, seats rotated, that starts when everyone has accepted."""

from __future__ import annotations

from datetime import datetime

from flask_babel import gettext as _
from sqlmodel import Session

from .. import i18n, timing
from ..core import rematch
from ..mail import notify
from ..models import Game, Seat
from . import invites


def ask_again(
    *, session: Session, game_id: int, seat: int, now: datetime | None = None, nonce_tag: str | None = None
) -> Seat:
    """A player of a finished game asks to play again: noted on their seat (the admin page shows it) and, the
    first time, told to the organiser by email."""
    game, me, new = rematch.ask_again(
        session=session, game_id=game_id, seat=seat, now=now or timing.now(), nonce_tag=nonce_tag
    )
    if new:
        with i18n.in_language(notify.organiser_language(session, game)):
            subject = _("%(name)s would like to play again", name=me.name)
            body = _(
                "%(name)s asks for a rematch of this game. On the game's admin page, one button makes it: the same "
                "players and options, each a seat further on, with new invitations.",
                name=me.name,
            )
        key = f"again:{game.id}:{me.position}"
        notify.queue_organiser_notice(session=session, game=game, subject=subject, body=body, dedupe_key=key)
    return me


def make(*, session: Session, game_id: int) -> Game:
    """The rematch of a finished game (``core.rematch.plan``), made and its invitations queued: it starts when
    everyone has accepted (bots in the seats nobody accepted if the organiser starts it earlier)."""
    plan = rematch.plan(session=session, game_id=game_id)
    return invites.create(
        session=session,
        name=plan.name,
        seats=plan.seats,
        game=plan.game,
        options=plan.options,
        organiser_email=plan.organiser_email,
        policy=plan.policy,
        rematch_of=game_id,
    )
