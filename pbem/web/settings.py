"""A seat's settings page (its email choices, leaving the game) and fresh links for expired ones.

A GET only shows a page. Every change is a CSRF-protected POST, except RFC 8058 one-click
unsubscribe (a POST whose body is ``List-Unsubscribe=One-Click``, sent by mail clients without
a form): the signed settings token authenticates it, and all it can do is turn reminders off.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from .. import db, i18n, timing
from ..core import games, links, seats
from ..core.errors import LinkInvalid, ServiceError
from ..extensions import csrf
from ..flows import links as link_flows
from ..flows import play
from ..i18n import N_
from . import tokens

bp = Blueprint("settings", __name__)
ACTIONS = ("choices", "reminders-off", "leave", "language")
ON_OFF = {"on": True, "off": False}


def expired_page() -> tuple[str, int, list[tuple[str, str]]]:
    """The page for a genuine but expired link, with a button that emails the seat a fresh one."""
    token = tokens.token()
    _speak_any_age(token)
    return render_template("settings/expired.html", token=token), 410, []


def _speak_any_age(token: str) -> None:
    """Speak the language of the seat of a genuine link, however old (its nonce current); else change nothing."""
    try:
        link = links.read_any_age(token)
        found = seats.load(session=db.get_session(), game_id=link.game_id, seat=link.seat, nonce_tag=link.nonce_tag)
    except ServiceError:
        return
    tokens.speak(found.seat)


@bp.get("/settings/<token>")
def page(token: str) -> Any:
    """The seat's notification settings and "leave the game" (``?confirm=leave`` asks to confirm)."""
    found = tokens.settings_seat()
    game, seat = found.game, found.seat
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
        mine_token=links.mine_token(seat.email) if seat.email and not seat.is_bot else None,
    )


@bp.post("/settings/<token>")
def change(token: str) -> Any:
    """Store the email choices, turn reminders on or off, or leave the game (CSRF-protected forms); or RFC 8058
    one-click unsubscribe."""
    one_click = request.form.get("List-Unsubscribe") == "One-Click"
    if not one_click:
        csrf.protect()
    action = "reminders-off" if one_click else request.form.get("action", "")
    reminders = ON_OFF.get(request.form.get("reminders", ""))
    with db.write_session() as session:  # a refusal raised in it rolls it back: nothing is changed
        found = tokens.settings_seat(session, lock=True)  # from here on, the seat's language
        seat = found.seat
        if action not in ACTIONS:
            raise ServiceError(N_("The form did not name a setting to change."))
        if action == "choices" and reminders is None:
            raise ServiceError(N_("The form did not say whether you want reminders. Reload the page and choose again."))
        if action == "choices":
            seats.set_email_choices(
                session=session,
                seat=seat,
                reminders=bool(reminders),
                score_sheets=request.form.get("score_sheets", ""),
                digest=request.form.get("digest", ""),
                now=timing.now(),
            )
        elif action == "leave":
            play.leave(session=session, game_id=found.game.id or 0, seat=seat.position)
            name, game_name = seat.name, found.game.name
        elif action == "language":
            seats.set_language(session=session, seat=seat, language=request.form.get("language", ""))
            tokens.speak(seat)  # the answer speaks the new language
        else:
            seats.set_reminders(session=session, seat=seat, on=False)
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
            link_flows.fresh_link(session=session, token=token)
    except LinkInvalid:
        raise LinkInvalid(
            N_("This link is not valid, or it was replaced by a newer one: no fresh link was sent.")
        ) from None
    return render_template("settings/fresh_sent.html")
