"""Personal data: the organiser erases a person (an address) from the games they played that are over, and sees
the players' requests to be erased."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from flask_babel import gettext
from flask_babel import ngettext as _ngettext
from sqlmodel import Session

from ..core import audit, personal
from ..core import seats as seat_rows
from ..i18n import N_
from ..i18n import stored as said
from .common import Actor, now_or

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext


def erase_person(*, session: Session, address: str, actor: Actor, name: str = "", now: datetime | None = None) -> str:
    """Erase ``address`` from every game it played, each of them over (``core.personal.erase``); each seat is
    renamed ``name`` or "Player N". Logged in each game without the address or the old name."""
    done = personal.erase(session=session, address=address, name=name, now=now_or(now))
    for game_id, position, new in done.seats:
        game = seat_rows.get_game(session=session, game_id=game_id)
        detail = said(
            N_("erased the personal data of seat %(number)d, now called %(name)s"), number=position + 1, name=new
        )
        audit.log_action(session, game, actor, "erase", detail, seat=position)
    return ngettext(
        "The person is erased from %(num)d game.", "The person is erased from %(num)d games.", len(done.seats)
    )


def erasure_requests(*, session: Session) -> list[personal.Pending]:
    """The players' requests to be erased that are not carried out yet, oldest first."""
    return personal.pending_requests(session=session)
