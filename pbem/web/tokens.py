"""Token → seat, once per request: every view that takes a ``<token>`` asks here.

``link()`` verifies the request's token (a personal or move link); ``seat()`` finds its game and seat through
``core.seats`` (the nonce checked once) and from then on the request speaks the seat's language, with times on
its clock, error pages included. Errors (``LinkInvalid``, ``LinkExpired``, ``LinkRevoked``, ``NotFound``) go to the
one error handler (``pbem.web.errors``).
"""

from __future__ import annotations

from flask import g, request
from sqlmodel import Session

from .. import db, i18n
from ..core import links, seats
from ..core.errors import Gone, LinkExpired, LinkInvalid, LinkRevoked
from ..i18n import N_
from ..models import Record, Seat, SeatRecord


def token() -> str:
    """The request's ``<token>`` (from the URL)."""
    value = (request.view_args or {}).get("token")
    if not isinstance(value, str):
        raise LinkInvalid
    return value


def link() -> links.Link:
    """The request's verified personal or move link."""
    found: links.Link | None = g.get("pbem_link")
    if found is None:
        found = g.pbem_link = links.read(token())
    return found


def speak(seat: Seat | SeatRecord) -> None:
    """The rest of the request speaks the seat's language, with times on the seat's clock."""
    i18n.use(seat.language, seat.timezone)


def seat(session: Session | None = None, *, lock: bool = False) -> seats.Loaded:
    """The game, seats and seat of the request's link: in ``session`` (a write transaction, locked when asked), or
    read once per request and kept (the read's transaction is ended at once, so a write can follow)."""
    if session is not None:
        found = seats.of_link(session=session, link=link(), lock=lock)
    else:
        found = g.get("pbem_seat")
        if found is None:
            read = db.get_session()
            found = g.pbem_seat = seats.of_link(session=read, link=link())
            read.close()
    speak(found.seat)
    return found


def seat_rows() -> tuple[Record, list[SeatRecord], SeatRecord]:
    """The game and seats of the request's link as plain rows, for a page that only shows them (read once per
    request)."""
    found: tuple[Record, list[SeatRecord], SeatRecord] | None = g.get("pbem_rows")
    if found is None:
        found = g.pbem_rows = seats.read(session=db.get_session(), link=link())
    speak(found[2])
    return found


def settings_seat(session: Session | None = None, *, lock: bool = False) -> seats.Loaded:
    """The game, seats and seat of the request's settings token (its own purpose and words when it fails)."""
    try:
        found_link = links.read_settings(token())
    except LinkExpired:
        raise Gone(
            N_("This settings link has expired. Use the one in your latest email."), title=N_("This link has expired")
        ) from None
    try:
        found = seats.of_link(session=session or db.get_session(), link=found_link, lock=lock)
    except LinkRevoked:
        raise LinkRevoked(
            N_("This settings link no longer works: the seat has newer links, or its player left the game.")
        ) from None
    speak(found.seat)
    return found


def personal() -> str:
    """The seat's personal token: the request's own if it is one, else made from the seat's nonce."""
    found = link()
    if found.purpose == links.PERSONAL:
        return token()
    return links.personal_token(found.game_id, found.seat, seat().seat.nonce)
