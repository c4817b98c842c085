"""Logging in and out of the admin page, with limits on failed attempts; the organiser's language."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext
from flask_babel import ngettext as _ngettext
from flask_login import current_user, login_user, logout_user
from limits import RateLimitItem
from limits import parse as parse_limit
from werkzeug.wrappers.response import Response as BaseResponse

from ... import admin, db, timing
from ..errors import error_page
from .base import ACCOUNT_KEY, LOGIN_KEY, LoginUser, actor, bp, draft_of, safe_next, store_draft

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext

# Login ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Count:
    """One count of wrong passwords: its limit, its key in the limiter's storage, and whose attempts it counts."""

    item: RateLimitItem
    keys: tuple[str, ...]
    whose: str
    """Which count it is: ``address`` or ``account``."""


def _counts(username: Any) -> list[_Count]:
    """The counts a login attempt adds to: the client's address and, for a well-formed login name, that account.

    The address is the one werkzeug's ProxyFix found when PROXY_FIX names the trusted proxies, else the peer's.
    """
    prefix = str(current_app.config["RATELIMIT_KEY_PREFIX"])
    start = (prefix,) if prefix else ()
    counts = [
        _Count(
            parse_limit(current_app.config["ADMIN_LOGIN_LIMIT"]),
            (*start, LOGIN_KEY, request.remote_addr or "unknown"),
            "address",
        )
    ]
    if isinstance(username, str) and admin.USERNAME.fullmatch(username):
        counts.append(
            _Count(
                parse_limit(current_app.config["ADMIN_LOGIN_ACCOUNT_LIMIT"]),
                (*start, ACCOUNT_KEY, username.lower()),
                "account",
            )
        )
    return counts


def _strategy() -> Any:
    return current_app.extensions["pbem_limiter"].limiter


def _too_many(count: _Count) -> tuple[str, int, list[tuple[str, str]]]:
    reset = _strategy().get_window_stats(count.item, *count.keys).reset_time
    wait = max(1, int(reset - time.time()))
    minutes = -(-wait // 60)
    if count.whose == "address":
        message = ngettext(
            "Too many wrong passwords in a row from your address. Wait %(num)d minute and try again.",
            "Too many wrong passwords in a row from your address. Wait %(num)d minutes and try again.",
            minutes,
        )
    else:
        message = ngettext(
            "Too many wrong passwords in a row for this login name. Wait %(num)d minute and try again.",
            "Too many wrong passwords in a row for this login name. Wait %(num)d minutes and try again.",
            minutes,
        )
    page, status, headers = error_page(429, message, _("Too many login attempts"))
    return page, status, [*headers, ("Retry-After", str(wait))]


LOGIN_FORM = "login"


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """The login form; a POST checks the password, with at most ADMIN_LOGIN_LIMIT wrong ones in a row. A wrong
    one redirects to this form's GET, which shows the error and the login name (never the password)."""
    target = safe_next(request.values.get("next"))
    if current_user.is_authenticated and request.method == "GET":
        return redirect(target or url_for("admin.index"), code=303)
    if request.method == "GET":
        draft = draft_of(LOGIN_FORM)
        error, username = (draft.get("error"), draft.get("username", "")) if draft else (None, "")
        return render_template("admin/login.html", next=target, error=error, username=username)
    username = request.form.get("username", "")
    password = request.form.get("password", "")
    strategy, counts = _strategy(), _counts(username)
    # Counted before the password is checked, so parallel attempts cannot slip past the limit; a success clears it.
    for count in counts:
        if not strategy.hit(count.item, *count.keys):
            return _too_many(count)
    db.get_session().close()
    with db.write_session() as write:
        user = admin.authenticate(session=write, username=username, password=password)
        login = LoginUser(user, admin.start_session(session=write, user=user)) if user is not None else None
    if login is None:
        for count in counts:
            if not strategy.test(count.item, *count.keys):
                return _too_many(count)
        kept = store_draft(LOGIN_FORM, {"error": _("Wrong login name or password."), "username": username[:64]})
        return redirect(url_for("admin.login", next=target, draft=kept), code=303)
    for count in counts:
        strategy.clear(count.item, *count.keys)
    session.clear()
    login_user(login)
    session["admin_since"] = timing.now().timestamp()
    return redirect(target or url_for("admin.index"), code=303)


@bp.post("/language")
def language() -> Any:
    """Store the language the admin area speaks to the logged-in organiser (the switch of the admin pages), then
    go back to the page it was on."""
    me = actor()
    db.get_session().close()
    with db.write_session() as write:
        admin.set_language(session=write, admin_id=me.id, language=request.form.get("lang", ""))
    return redirect(safe_next(request.form.get("next")) or url_for("admin.index"), code=303)


@bp.post("/logout")
def logout() -> BaseResponse:
    """Log out (a POST: a link or an image cannot log anyone out); the session ends on the server too."""
    value = current_user.get_id()
    db.get_session().close()
    with db.write_session() as write:
        admin.end_session(session=write, value=value)
    return _logged_out(_("You are logged out."))


@bp.post("/logout-everywhere")
def logout_everywhere() -> BaseResponse:
    """End every login session of this organiser, on every device (a POST, like logging out)."""
    me = actor()
    db.get_session().close()
    with db.write_session() as write:
        ended = admin.end_all_sessions(session=write, admin_id=me.id)
    return _logged_out(
        ngettext(
            "You are logged out everywhere (%(num)d session ended).",
            "You are logged out everywhere (%(num)d sessions ended).",
            ended,
        )
    )


def _logged_out(message: str) -> BaseResponse:
    logout_user()
    session.clear()
    flash(message, "done")
    return redirect(url_for("admin.login"), code=303)
