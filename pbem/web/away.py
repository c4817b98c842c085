"""Time away, quiet hours and the seat's language from the player's page: CSRF-protected POSTs that go back to the
page."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from flask import Blueprint, flash, redirect, request, url_for
from flask_babel import gettext as _

from .. import db, i18n, timing
from ..core import seats
from ..core.errors import ServiceError
from ..i18n import N_
from . import tokens
from .errors import titled

bp = Blueprint("away", __name__)
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _back() -> Any:
    return redirect(url_for("play.page", token=tokens.personal(), _anchor="away"), code=303)


@bp.post("/play/<token>/away")
@titled(N_("Time away not set"))
def set_away(token: str) -> Any:
    """Mark the seat away until the date in the form (``until``, YYYY-MM-DD, in the player's time zone)."""
    link = tokens.link()
    tokens.seat()  # the seat's language from here on
    until = parse_date(request.form.get("until", ""))
    if until is None:
        raise ServiceError(N_("Choose the date you are back, like 2026-03-12."), title=N_("That date is not valid"))
    with db.write_session() as session:
        seats.set_absence(
            session=session,
            game_id=link.game_id,
            seat=link.seat,
            until=until,
            now=timing.now(),
            nonce_tag=link.nonce_tag,
        )
    flash(
        _("You are away until %(date)s: no reminders until then, and your deadlines wait.", date=i18n.day(until)),
        "done",
    )
    return _back()


@bp.post("/play/<token>/back")
@titled(N_("Time away not changed"))
def back(token: str) -> Any:
    """End the seat's time away now."""
    link = tokens.link()
    tokens.seat()
    with db.write_session() as session:
        seats.end_absence(
            session=session, game_id=link.game_id, seat=link.seat, now=timing.now(), nonce_tag=link.nonce_tag
        )
    flash(_("Welcome back: you are no longer marked as away."), "done")
    return _back()


@bp.post("/play/<token>/quiet")
@titled(N_("Quiet hours not changed"))
def quiet(token: str) -> Any:
    """Set the seat's quiet hours (``start`` and ``end``, HH:MM), or go back to the default (``default``)."""
    link = tokens.link()
    tokens.seat()
    form = request.form
    start: str | None = None
    end: str | None = None
    if "default" not in form:
        start, end = form.get("start", ""), form.get("end", "")
    with db.write_session() as session:
        seat = seats.set_quiet_hours(
            session=session,
            game_id=link.game_id,
            seat=link.seat,
            start=start,
            end=end,
            now=timing.now(),
            nonce_tag=link.nonce_tag,
        )
        chosen = f"{seat.quiet_start}-{seat.quiet_end}" if seat.quiet_start else None
    flash(_("Quiet hours: %(hours)s.", hours=chosen) if chosen else _("Quiet hours: the default."), "done")
    return _back()


@bp.post("/play/<token>/language")
@titled(N_("Language not changed"))
def language(token: str) -> Any:
    """Change the language of the seat's pages and emails (``language``: one of i18n.SUPPORTED); the page it goes
    back to, and the seat's next email, speak it."""
    with db.write_session() as session:
        found = tokens.seat(session, lock=True)
        seats.set_language(session=session, seat=found.seat, language=request.form.get("language", ""))
        tokens.speak(found.seat)  # the answer speaks the new language
        personal = tokens.personal()
    flash(_("From now on your pages and emails are in %(language)s.", language=i18n.NAMES[i18n.current()]), "done")
    return redirect(url_for("play.page", token=personal, _anchor="language"), code=303)


def parse_date(text: str) -> date | None:
    """A YYYY-MM-DD date from a form, or None."""
    if not DATE.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None
