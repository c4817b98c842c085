"""The visible language switch of the pages reached without a seat (front door, error pages, admin login): a
CSRF-protected POST that stores the reader's choice in the ``lang`` cookie and goes back to the page it was on.

A seat's pages speak the seat's own language (changed on its page or its settings page), and a logged-in
organiser's admin pages the language of their account (``admin.language``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, request
from flask_babel import gettext as _

from .. import i18n
from . import security
from .errors import error_page

bp = Blueprint("language", __name__)
COOKIE_MAX_AGE = 365 * 24 * 3600


@bp.post("/language")
def choose() -> Any:
    """Store the chosen language in the ``lang`` cookie for a year, then go back to the (local) page ``next``."""
    code = request.form.get("lang", "")
    if code not in i18n.SUPPORTED:
        choices = ", ".join(i18n.SUPPORTED)
        return error_page(400, _("Choose one of the languages offered: %(choices)s.", choices=choices))
    response = redirect(security.local_path(request.form.get("next")) or "/", code=303)
    response.set_cookie(
        i18n.COOKIE,
        code,
        max_age=COOKIE_MAX_AGE,
        samesite="Lax",
        httponly=True,
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")) or request.is_secure,
    )
    return response
