"""The admin blueprint's base: the login requirement, the organiser as an actor, time filters and the kept drafts of
refused forms (Post/Redirect/Get)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import available_timezones

from flask import Blueprint, current_app, flash, redirect, request, session, url_for
from flask_babel import LazyString, gettext
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext as _ngettext
from flask_login import UserMixin, current_user, logout_user
from werkzeug.wrappers.response import Response as BaseResponse
from wtforms import (  # type: ignore[import-untyped]
    FieldList,
    FormField,
    SelectChoice,
)
from wtforms.validators import Length  # type: ignore[import-untyped]

from engine.protocol import Game as Rules

from ... import admin, db, i18n, timing
from ...extensions import login_manager
from ...models import AdminUser
from .. import security

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext

bp = Blueprint("admin", __name__, url_prefix="/admin")
PUBLIC = ("admin.login",)
"""The only admin endpoint a visitor may reach without logging in."""
LOGIN_KEY = "admin-login"
ACCOUNT_KEY = "admin-login-account"


class LoginUser(UserMixin):  # type: ignore[misc]
    """The logged-in organiser as Flask-Login keeps them: the actor the services record, and the session's id."""

    def __init__(self, user: AdminUser, session_value: str) -> None:
        self.actor = admin.actor_of(user)
        self.language = user.language
        self.session_value = session_value

    def get_id(self) -> str:
        """What the login cookie stores: the server-side session it names (logging out revokes it)."""
        return self.session_value


def _load_user(value: str) -> LoginUser | None:
    user = admin.admin_for_session(session=db.get_session(), value=value)
    return LoginUser(user, value) if user is not None else None


def _unauthorized(message: str | None = None) -> BaseResponse:
    target = request.full_path.rstrip("?") if request.method in ("GET", "HEAD") else None
    if request.method != "HEAD":
        flash(message or _("Log in to use the admin page."), "notice")
    return redirect(url_for("admin.login", next=safe_next(target)), code=303)


login_manager.user_loader(_load_user)
login_manager.unauthorized_handler(_unauthorized)
login_manager.session_protection = "strong"


def actor() -> admin.Actor:
    """The logged-in organiser."""
    found: admin.Actor = current_user.actor
    return found


@bp.context_processor
def _organiser() -> dict[str, Any]:
    """``current_user`` for the admin templates, loaded only when one of them asks."""
    return {"current_user": current_user}


@bp.before_request
def _require_login() -> BaseResponse | None:
    """Every admin page needs a login that is younger than ADMIN_SESSION_HOURS (except the login page itself)."""
    if request.endpoint in PUBLIC:
        return None
    if not current_user.is_authenticated:
        return _unauthorized()
    since = session.get("admin_since")
    if (
        not isinstance(since, (int, float))
        or timing.now().timestamp() - since > current_app.config["ADMIN_SESSION_HOURS"] * 3600
    ):
        logout_user()
        session.clear()
        return _unauthorized(_("Your login has expired: please log in again."))
    i18n.use(current_user.language, current_user.actor.timezone)
    return None


@bp.app_template_filter("admin_time")
def _when(value: datetime | None) -> str:
    """A time in the organiser's time zone: ``Saturday 21 November 2026, 14:03 (Europe/Amsterdam)``."""
    if value is None:
        return "–"
    return i18n.when(value, current_user.actor.timezone if current_user.is_authenticated else "UTC")


@bp.app_template_filter("admin_ago")
def _ago(value: datetime | None) -> str:
    """How long ago (or, for a future time, how soon), short: ``3 hr. ago``, ``in 2 days``."""
    return "–" if value is None else i18n.relative(value, timing.now())


# Post/Redirect/Get: a refused form is kept in the session and shown by a GET, so a reload posts nothing ----------

DRAFTS = "admin-drafts"
DRAFT_TEXT = 600
"""The longest value a kept form holds for a field without a length of its own (a number, a choice …)."""
MAX_DRAFTS = 4
"""Refused forms kept at once in a session (the new-game form, the actions of a few games)."""


def keep_draft(name: str, form: Any, general: list[str]) -> str:
    """Keep a refused form's values (cut to their fields' lengths) and its errors in the session, as the draft of
    form ``name`` (one per form, replacing the last); its id, for the URL of the GET that shows it. The CSRF token
    is not kept, nor any password."""
    values: list[tuple[str, str]] = []
    errors: dict[str, list[str]] = {}
    for field in form_fields(form):
        if "password" in field.name:
            continue
        longest = longest_of(field) or DRAFT_TEXT
        values += [(field.name, str(raw)[:longest]) for raw in (field.raw_data or ())[:1]]
        if field.errors:
            errors[field.name] = [str(e) for e in field.errors if isinstance(e, str | LazyString)]
    return store_draft(name, {"values": values, "errors": errors, "general": general})


def store_draft(name: str, draft: dict[str, Any]) -> str:
    """Keep ``draft`` as form ``name``'s (at most MAX_DRAFTS forms at once); the id the GET's URL names it by."""
    draft_id = secrets.token_urlsafe(8)
    drafts = {k: v for k, v in dict(session.get(DRAFTS) or {}).items() if k != name}
    while len(drafts) >= MAX_DRAFTS:
        drafts.pop(next(iter(drafts)))
    drafts[name] = {"id": draft_id, **draft}
    session[DRAFTS] = drafts
    return draft_id


def draft_of(name: str) -> dict[str, Any] | None:
    """The kept draft of form ``name`` that this GET's ``?draft=`` names, or None (then the form starts afresh)."""
    wanted = request.args.get("draft")
    found = (session.get(DRAFTS) or {}).get(name)
    if not wanted or not isinstance(found, dict) or found.get("id") != wanted:
        return None
    return found


def forget_draft(name: str) -> None:
    drafts = dict(session.get(DRAFTS) or {})
    if drafts.pop(name, None) is not None:
        session[DRAFTS] = drafts


def restore_draft(form: Any, draft: dict[str, Any]) -> list[str]:
    """Put a draft's errors next to their fields of ``form`` (built from its values); its other messages."""
    fields = {f.name: f for f in form_fields(form)}
    for key, messages in draft.get("errors", {}).items():
        if key in fields:
            fields[key].errors = list(messages)
    return list(draft.get("general", []))


def zones() -> list[str]:
    return [*sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/"))), "UTC"]


def safe_next(value: str | None) -> str | None:
    """``value`` if it is a path of this site's admin page (``security.local_path``), else None."""
    path = security.local_path(value)
    if path is None:
        return None
    where = urlsplit(path).path
    return path if where == "/admin" or where.startswith("/admin/") else None


def form_fields(form: Any) -> list[Any]:
    """Every input field of a form, inside its lists of seats and its options too (not the CSRF token)."""
    out: list[Any] = []
    for field in form:
        if isinstance(field, FieldList):
            for entry in field:
                out += form_fields(entry.form)
        elif isinstance(field, FormField):
            out += form_fields(field.form)
        elif field.type != "CSRFTokenField":
            out.append(field)
    return out


def longest_of(field: Any) -> int | None:
    return min((v.max for v in field.validators if isinstance(v, Length) and v.max >= 0), default=None)


def choice_list(pairs: list[tuple[str, str]]) -> list[Any]:
    return [SelectChoice(value, label) for value, label in pairs]


def seat_choices(rules: Rules) -> list[tuple[str, str]]:
    """What a seat of this game may be, as the form offers it: a person, or each of the game's bots."""
    return [("human", _l("A person")), *((kind, _l("Bot (%(kind)s)", kind=kind)) for kind in rules.bots)]


def game_form(game_id: int) -> str:
    """The name a refused action of a game's page is kept under."""
    return f"game-{game_id}"
