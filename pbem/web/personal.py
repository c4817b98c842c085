"""A player asks the organiser to erase their personal data from a game that is over (a POST from their page; the
organiser confirms it on the admin page)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, url_for
from flask_babel import gettext as _

from .. import db, timing
from ..core import personal
from . import tokens

bp = Blueprint("personal", __name__)


@bp.post("/play/<token>/erase")
def request_erasure(token: str) -> Any:
    """Store the request (once), then show the seat's page again with a word that the organiser has it."""
    with db.write_session() as session:
        found = tokens.seat(session, lock=True)
        personal.request_erasure(
            session=session, game_id=found.game.id or 0, seat=found.seat.position, now=timing.now()
        )
    # "told": kept on the game-over page, unlike a move's "done"
    flash(_("Your request is with the organiser, who will erase your data from this game."), "done told")
    return redirect(url_for("play.page", token=token), code=303)
