"""Links by email: a fresh personal link for an expired one, and every current link of an address that lost them.

Both are rate-limited by what the outbox already holds, and answer the same whether or not anything was sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from .. import i18n, timing
from ..core import checks, links, seats
from ..core.errors import LinkInvalid, TooMany
from ..i18n import N_
from ..mail import compose, notify
from ..models import Game, OutboxEmail, Seat

FRESH_LINK_LIMITS = ((timedelta(minutes=10), 1), (timedelta(days=1), 5))
"""At most 1 fresh-link email per seat in 10 minutes and 5 in a day."""
LOST_LINKS_LIMITS = ((timedelta(minutes=10), 1), (timedelta(days=1), 3))
"""At most 1 "your links" email per address in 10 minutes and 3 in a day."""
LOST_LINKS_GAMES = 20


def fresh_link(*, session: Session, token: str, now: datetime | None = None) -> OutboxEmail | None:
    """Mail a seat its current personal link, to the address it has on file, for a genuine but expired token.

    The token's signature is checked, not its age; a forged or revoked token raises LinkInvalid.
    Returns None (nothing sent) for a seat without an email address; raises TooMany past FRESH_LINK_LIMITS,
    counted from the seat's fresh-link emails in the outbox.
    """
    now = now or timing.now()
    link = links.read_any_age(token)
    seat = session.exec(
        select(Seat).where(Seat.game_id == link.game_id, Seat.position == link.seat).with_for_update()
    ).first()
    if seat is None or link.nonce_tag != links.nonce_tag(seat.nonce):
        raise LinkInvalid
    if not notify.reachable(seat):
        return None
    if _sent_too_often(
        session, FRESH_LINK_LIMITS, now, OutboxEmail.kind == "fresh_link", OutboxEmail.seat_id == seat.id
    ):
        raise TooMany(
            N_("A fresh link was sent to this seat a short while ago. Please try again later."), retry_after=600
        )
    game = seats.get_game(session=session, game_id=link.game_id)
    everyone = seats.seats_of(session=session, game_id=link.game_id)
    with i18n.in_language(seat.language):
        email = compose.fresh_link(game=game, seats=everyone, seat=seat)
    return notify.queue_email(session, game, seat, email, None, now=now)


def lost_links(*, session: Session, address: str, now: datetime | None = None) -> OutboxEmail | None:
    """Email ``address`` the current links of every game it plays (the newest LOST_LINKS_GAMES), if it plays any.

    ``address`` is checked (ServiceError if it is not one). Nothing is queued for an address that plays in no
    game, nor past LOST_LINKS_LIMITS: the caller answers the same either way, so nobody learns who plays here.
    """
    now = now or timing.now()
    address = checks.check_email(address, i18n.text(N_("the address")))
    found = list(
        session.exec(
            select(Seat)
            .join(Game, col(Game.id) == col(Seat.game_id))
            .where(func.lower(col(Seat.email)) == address.lower(), col(Seat.left_at).is_(None))
            .where(col(Seat.kind) == "human")
            .order_by(col(Game.id).desc())
            .limit(LOST_LINKS_GAMES)
        )
    )
    if not found:
        return None
    to_address = func.lower(col(OutboxEmail.to_addr)) == address.lower()
    if _sent_too_often(session, LOST_LINKS_LIMITS, now, OutboxEmail.kind == "lost_links", to_address):
        return None
    entries = [(seats.get_game(session=session, game_id=seat.game_id), seat) for seat in found]
    with i18n.in_language(found[0].language):  # the language its newest game speaks to it, not the asker's browser
        email = compose.lost_links(to=address, entries=entries)
    return notify.queue_email(session, None, None, email, None, now=now)


def _sent_too_often(session: Session, limits: Sequence[tuple[timedelta, int]], now: datetime, *which: Any) -> bool:
    """True if the outbox holds ``most`` emails matching ``which`` in the last ``window``, for any of ``limits``."""
    for window, most in limits:
        recent = select(func.count()).select_from(OutboxEmail).where(*which, col(OutboxEmail.created_at) > now - window)
        if session.exec(recent).one() >= most:
            return True
    return False
