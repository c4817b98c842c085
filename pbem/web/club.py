"""Play again: from the game-over page, a player asks the organiser for a rematch (a CSRF-protected POST that goes
back to the page)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, url_for
from flask_babel import gettext as _

from .. import db
from ..flows import rematch
from ..i18n import N_
from . import tokens
from .errors import titled

bp = Blueprint("club", __name__)


@bp.post("/play/<token>/again")
@titled(N_("Request not sent"))
def again(token: str) -> Any:
    """Ask the organiser of this finished game for a rematch (once: asking again changes nothing)."""
    link = tokens.link()
    tokens.seat()  # the seat's language from here on
    with db.write_session() as session:
        rematch.ask_again(session=session, game_id=link.game_id, seat=link.seat, nonce_tag=link.nonce_tag)
    # "told": kept on the game-over page, unlike a move's "done"
    flash(_("The organiser is told that you would like to play again."), "done told")
    return redirect(url_for("play.page", token=tokens.personal(), _anchor="again"), code=303)
