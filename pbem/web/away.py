"""Time away, quiet hours and the seat's language from the player's page: CSRF-protected POSTs that go back to the
page."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from flask import Blueprint, flash, redirect, request, url_for
from flask_babel import gettext as _

from .. import db, games, i18n, links, pages, sweeps, timing
from ..mail import notify
from ..models import utcnow
from .errors import error_page
from .play import link_error

bp = Blueprint("away", __name__)
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


LINK_ERRORS = (links.LinkInvalid, links.LinkExpired, games.ServiceError)


def _link(token: str) -> tuple[links.Link, str]:
    """The verified link and the seat's personal token (raises one of LINK_ERRORS)."""
    link, _game, _seats, seat = pages.resolve(session=db.get_session(), token=token)
    personal = links.personal_token(link.game_id, link.seat, seat.nonce)
    db.get_session().close()
    return link, personal


def _back(personal: str) -> Any:
    return redirect(url_for("play.page", token=personal, _anchor="away"), code=303)


@bp.post("/play/<token>/away")
def set_away(token: str) -> Any:
    """Mark the seat away until the date in the form (``until``, YYYY-MM-DD, in the player's time zone)."""
    try:
        link, personal = _link(token)
    except LINK_ERRORS as exc:
        return link_error(exc)
    until = _date(request.form.get("until", ""))
    if until is None:
        return error_page(400, _("Choose the date you are back, like 2026-03-12."), _("That date is not valid"))
    try:
        with db.write_session() as session:
            sweeps.set_absence(
                session=session,
                game_id=link.game_id,
                seat=link.seat,
                until=until,
                now=utcnow(),
                nonce_tag=link.nonce_tag,
            )
    except games.ServiceError as exc:
        return error_page(exc.status, exc.message, _("Time away not set"))
    flash(
        _(
            "You are away until %(date)s: no reminders until then, and your deadlines wait.",
            date=timing.long_date(until),
        ),
        "done",
    )
    return _back(personal)


@bp.post("/play/<token>/back")
def back(token: str) -> Any:
    """End the seat's time away now."""
    try:
        link, personal = _link(token)
    except LINK_ERRORS as exc:
        return link_error(exc)
    try:
        with db.write_session() as session:
            sweeps.end_absence(
                session=session, game_id=link.game_id, seat=link.seat, now=utcnow(), nonce_tag=link.nonce_tag
            )
    except games.ServiceError as exc:
        return error_page(exc.status, exc.message, _("Time away not changed"))
    flash(_("Welcome back: you are no longer marked as away."), "done")
    return _back(personal)


@bp.post("/play/<token>/quiet")
def quiet(token: str) -> Any:
    """Set the seat's quiet hours (``start`` and ``end``, HH:MM), or go back to the default (``default``)."""
    try:
        link, personal = _link(token)
    except LINK_ERRORS as exc:
        return link_error(exc)
    form = request.form
    start: str | None = None
    end: str | None = None
    if "default" not in form:
        start, end = form.get("start", ""), form.get("end", "")
    try:
        with db.write_session() as session:
            seat = sweeps.set_quiet_hours(
                session=session,
                game_id=link.game_id,
                seat=link.seat,
                start=start,
                end=end,
                now=utcnow(),
                nonce_tag=link.nonce_tag,
            )
            chosen = f"{seat.quiet_start}-{seat.quiet_end}" if seat.quiet_start else None
    except games.ServiceError as exc:
        return error_page(exc.status, exc.message, _("Quiet hours not changed"))
    flash(_("Quiet hours: %(hours)s.", hours=chosen) if chosen else _("Quiet hours: the default."), "done")
    return _back(personal)


@bp.post("/play/<token>/language")
def language(token: str) -> Any:
    """Change the language of the seat's pages and emails (``language``: one of i18n.SUPPORTED); the page it goes
    back to, and the seat's next email, speak it."""
    try:
        link, personal = _link(token)
    except LINK_ERRORS as exc:
        return link_error(exc)
    try:
        with db.write_session() as session:
            _game, _seats, seat = games.find_seat(session=session, link=link)
            notify.set_language(session=session, seat=seat, language=request.form.get("language", ""))
            i18n.use(seat.language, seat.timezone)  # the answer speaks the new language
    except games.LinkRevoked as exc:
        return link_error(exc)
    except (games.ServiceError, notify.Refused) as exc:
        return error_page(exc.status, exc.message, _("Language not changed"))
    flash(_("From now on your pages and emails are in %(language)s.", language=i18n.NAMES[i18n.current()]), "done")
    return redirect(url_for("play.page", token=personal, _anchor="language"), code=303)


def _date(text: str) -> date | None:
    if not DATE.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None
