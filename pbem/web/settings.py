"""A seat's settings page (its email choices, leaving the game) and fresh links for expired ones.

A GET only shows a page. Every change is a CSRF-protected POST, except RFC 8058 one-click
unsubscribe (a POST whose body is ``List-Unsubscribe=One-Click``, sent by mail clients without
a form): the signed settings token authenticates it, and all it can do is turn reminders off.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from .. import db, flows, games, i18n, links
from ..extensions import csrf
from ..mail import notify
from ..models import utcnow
from .errors import error_page

bp = Blueprint("settings", __name__)
ACTIONS = ("choices", "reminders-off", "leave", "language")
ON_OFF = {"on": True, "off": False}
FRESH_LINK_RETRY_SECONDS = 600


def expired_page(token: str) -> tuple[str, int, list[tuple[str, str]]]:
    """The page for a genuine but expired link, with a button that emails the seat a fresh one."""
    _speak_any_age(token)
    return render_template("settings/expired.html", token=token), 410, []


def _speak_any_age(token: str) -> None:
    """Speak the language of the seat of a genuine link, however old (its nonce current); else change nothing."""
    try:
        link = links.read_any_age(token)
        seats = games.seats_of(session=db.get_session(), game_id=link.game_id)
    except (links.LinkInvalid, links.LinkExpired, games.ServiceError):
        return
    if 0 <= link.seat < len(seats) and link.nonce_tag == links.nonce_tag(seats[link.seat].nonce):
        i18n.use(seats[link.seat].language, seats[link.seat].timezone)


def _speak(token: str) -> None:
    """Speak the language of a settings token's seat, if the token is good (the view then answers as it would)."""
    try:
        _game, _seats, seat = notify.settings_seat(session=db.get_session(), token=token)
    except REFUSALS:
        return
    i18n.use(seat.language, seat.timezone)


def _refused(exc: Exception) -> tuple[str, int, list[tuple[str, str]]]:
    if isinstance(exc, links.LinkExpired):
        return error_page(
            410, _("This settings link has expired. Use the one in your latest email."), _("This link has expired")
        )
    if isinstance(exc, games.ServiceError | notify.Refused):
        return error_page(exc.status, exc.message)
    return error_page(
        400, _("This link is not valid. Check that it was copied whole, or use the one in your latest email.")
    )


REFUSALS = (links.LinkInvalid, links.LinkExpired, games.ServiceError, notify.Refused)


@bp.get("/settings/<token>")
def page(token: str) -> Any:
    """The seat's notification settings and "leave the game" (``?confirm=leave`` asks to confirm)."""
    try:
        game, _seats, seat = notify.settings_seat(session=db.get_session(), token=token)
    except REFUSALS as exc:
        return _refused(exc)
    i18n.use(seat.language, seat.timezone)
    rules = games.rules_of(game)
    return render_template(
        "settings/page.html",
        game=game,
        title=rules.title,
        seat=seat,
        token=token,
        finished=games.is_over(rules, games.load_state(game)),
        confirm=request.args.get("confirm") == "leave",
        personal_token=links.personal_token(game.id or 0, seat.position, seat.nonce),
    )


@bp.post("/settings/<token>")
def change(token: str) -> Any:
    """Store the email choices, turn reminders on or off, or leave the game (CSRF-protected forms); or RFC 8058
    one-click unsubscribe."""
    one_click = request.form.get("List-Unsubscribe") == "One-Click"
    if not one_click:
        csrf.protect()
    _speak(token)
    db.drop_session()
    action = "reminders-off" if one_click else request.form.get("action", "")
    if action not in ACTIONS:
        return error_page(400, _("The form did not name a setting to change."))
    reminders = ON_OFF.get(request.form.get("reminders", ""))
    if action == "choices" and reminders is None:
        return error_page(400, _("The form did not say whether you want reminders. Reload the page and choose again."))
    try:
        with db.write_session() as session:
            if action == "choices":
                notify.set_email_choices(
                    session=session,
                    token=token,
                    reminders=bool(reminders),
                    score_sheets=request.form.get("score_sheets", ""),
                    digest=request.form.get("digest", ""),
                    now=utcnow(),
                )
            elif action == "leave":
                game, _seats, seat = notify.settings_seat(session=session, token=token)
                flows.leave_seat(session=session, game_id=game.id or 0, seat=seat.position)
                name, game_name = seat.name, game.name
            elif action == "language":
                _game, _seats, seat = notify.settings_seat(session=session, token=token)
                notify.set_language(session=session, seat=seat, language=request.form.get("language", ""))
                i18n.use(seat.language, seat.timezone)  # the answer speaks the new language
            else:
                notify.set_reminders(session=session, token=token, on=False)
    except REFUSALS as exc:
        return _refused(exc)
    if action == "leave":
        return render_template("settings/left.html", name=name, game_name=game_name)
    if one_click:
        return render_template("settings/unsubscribed.html")
    if action == "language":
        flash(_("From now on your pages and emails are in %(language)s.", language=i18n.NAMES[i18n.current()]), "done")
        return redirect(url_for("settings.page", token=token, _anchor="language"), code=303)
    flash(_("Your email choices are saved.") if action == "choices" else _("Reminders are off."), "done")
    return redirect(url_for("settings.page", token=token), code=303)


csrf.exempt(change)  # checked in the view itself: every POST but the one-click unsubscribe needs the token


@bp.post("/fresh-link")
def fresh_link() -> Any:
    """Email a fresh personal link to the address the seat of an expired (but genuine) link has on file."""
    token = request.form.get("token", "")
    _speak_any_age(token)
    db.drop_session()
    try:
        with db.write_session() as session:
            notify.request_fresh_link(session=session, token=token)
    except notify.TooManyRequests as exc:
        return error_page(429, exc.message, headers=[("Retry-After", str(FRESH_LINK_RETRY_SECONDS))])
    except (links.LinkInvalid, links.LinkExpired):
        return error_page(400, _("This link is not valid, or it was replaced by a newer one: no fresh link was sent."))
    return render_template("settings/fresh_sent.html")
