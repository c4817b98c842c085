"""A game that waits for answers to its invitations: the player's page asks "will you play?" (the seat's
personal link shows it instead of the board), and Accept / Decline are CSRF-protected POSTs back to it."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from .. import db, i18n, timing
from ..core import invites, links
from ..core.errors import ServiceError
from ..flows import invites as invite_flows
from ..i18n import N_
from ..mail import compose
from . import pages, tokens
from .errors import titled

bp = Blueprint("invite", __name__)
ANSWERS = {"accept": True, "decline": False}


def page(data: pages.SeatPage) -> Any:
    """The page of a seat of a game that waits for answers: the game, who plays, who has answered, Accept/Decline."""
    start_at = timing.utc(data.game.start_at)
    return render_template(
        "invite/page.html",
        page=data,
        options=compose.option_lines(data.game),  # type: ignore[arg-type]
        start_at=i18n.when(start_at, data.seat.timezone) if start_at is not None else None,
        accepted=[s.name for s in data.seats if s.is_bot or s.answer == invites.ACCEPTED],
        declined=[s.name for s in data.seats if not s.is_bot and s.answer == invites.DECLINED],
        waiting=[s.name for s in data.seats if not s.is_bot and s.answer is None],
        mine_token=links.mine_token(data.seat.email) if data.seat.email else None,
    )


@bp.post("/play/<token>/answer")
@titled(N_("Answer not stored"))
def answer(token: str) -> Any:
    """Accept (``answer=accept``) or decline (``answer=decline``) the invitation; the game starts when this was the
    last acceptance it waited for."""
    accept = ANSWERS.get(request.form.get("answer", ""))
    if accept is None:
        raise ServiceError(N_("The form did not say whether you accept. Reload the page and choose again."))
    with db.write_session() as session:
        found = tokens.seat(session, lock=True)
        done = invite_flows.answer_invitation(session=session, seat=found.seat, accept=accept)
        personal = tokens.personal()
    if done.started:
        flash(_("Everyone has accepted: the game starts now."), "done")
    elif accept:
        flash(_("You accept: the game starts when everyone has answered. You will get an email then."), "done")
    else:
        flash(_("You decline: the organiser is told. Thank you for answering."), "done")
    return redirect(url_for("play.page", token=personal), code=303)
