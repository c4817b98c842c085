"""An address's "my games" page (a link signed for the address): every game it plays here, and time away from all of
them in one form. A GET only shows the page; time away is a CSRF-protected POST that goes back to it."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext

from .. import db, i18n, timing
from ..core import links, mine
from ..core.errors import Gone, LinkExpired, ServiceError
from ..i18n import N_
from .away import parse_date
from .errors import titled

bp = Blueprint("mine", __name__)


def address() -> str:
    """The address of the request's "my games" token (a Gone page for an expired one, LinkInvalid for any other)."""
    found: str | None = g.get("pbem_mine")
    if found is None:
        token = (request.view_args or {}).get("token", "")
        try:
            found = g.pbem_mine = links.read_mine(str(token))
        except LinkExpired:
            raise Gone(
                N_("This link to your games has expired. Ask for a fresh one on the front page: it comes by email."),
                title=N_("This link has expired"),
            ) from None
    return found


def _speak(entries: list[mine.MyGame]) -> None:
    """The page speaks the language of the address's newest game, on its clock (none: the reader's own choice)."""
    if entries:
        newest = max(entries, key=lambda e: e.game.id or 0).seat
        i18n.use(newest.language, newest.timezone)


@bp.get("/mine/<token>")
def page(token: str) -> Any:
    """The address's games: waiting on it first, then the others, then the finished ones with their results."""
    entries = mine.games_of(session=db.get_session(), address=address())
    _speak(entries)
    today = timing.now().date()
    finished = [e for e in entries if e.stands == "over"]
    return render_template(
        "mine/page.html",
        token=token,
        entries=entries,
        running=[e for e in entries if e.running],
        finished=finished,
        won=sum(1 for e in finished if e.won),
        away=[e for e in entries if e.running and e.seat.away_until is not None and e.seat.away_until >= today],
        today=today.isoformat(),
        day=i18n.day,
    )


@bp.post("/mine/<token>/away")
@titled(N_("Time away not set"))
def set_away(token: str) -> Any:
    """Mark the address away until ``until`` (YYYY-MM-DD) in every running game it plays, each within its cap."""
    who = address()
    until = parse_date(request.form.get("until", ""))
    if until is None:
        raise ServiceError(N_("Choose the date you are back, like 2026-03-12."), title=N_("That date is not valid"))
    with db.write_session() as session:
        done = mine.set_away(session=session, address=who, until=until, now=timing.now())
        _speak(mine.games_of(session=session, address=who))
        refused = [(a.game.name, a.refused.message) for a in done if a.refused is not None]
        changed = len(done) - len(refused)
    if not done:
        flash(_("None of your games is running: there is nothing to be away from."), "notice")
    else:
        flash(
            ngettext(
                "You are away until %(date)s in %(num)d game: no reminders until then, and your deadlines wait.",
                "You are away until %(date)s in %(num)d games: no reminders until then, and your deadlines wait.",
                changed,
                date=i18n.day(until),
            ),
            "done",
        )
    for name, why in refused:
        flash(_("Not in %(game)s: %(why)s", game=name, why=why), "notice")
    return redirect(url_for("mine.page", token=token, _anchor="away"), code=303)


@bp.post("/mine/<token>/back")
@titled(N_("Time away not changed"))
def back(token: str) -> Any:
    """End the address's time away now, in every running game."""
    who = address()
    with db.write_session() as session:
        mine.end_away(session=session, address=who, now=timing.now())
        _speak(mine.games_of(session=session, address=who))
    flash(_("Welcome back: you are no longer marked as away."), "done")
    return redirect(url_for("mine.page", token=token, _anchor="away"), code=303)
