"""Error pages: every failure is a short page with a status, never a traceback.

A database that is busy, read-only or gone answers 503 with ``Retry-After`` and says that nothing was
changed; a request whose connection was lost before any COMMIT is first run once more on a fresh one.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from typing import Any

from flask import Flask, g, message_flashed, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException, InternalServerError

from .. import db, i18n
from ..core import links, seats
from ..core.errors import LinkExpired, ServiceError

log = logging.getLogger(__name__)

TITLES = {
    400: _l("This request is not valid"),
    403: _l("Not allowed"),
    404: _l("Not found"),
    405: _l("Not allowed"),
    410: _l("This link is no longer valid"),
    413: _l("Too large"),
    429: _l("Too many requests"),
}

DESCRIPTIONS = {
    400: _l("The browser sent something this server could not read. Go back, reload the page and try again."),
    403: _l("This page is not open to you."),
    404: _l(
        "There is no page at this address. Check that the link was copied whole, or use the one in your latest email."
    ),
    405: _l("This page cannot be used that way: go back and use its own buttons and links."),
    413: _l("What was sent is too large for this server."),
    429: _l("Too many requests in a short time. Wait a moment, then try again."),
}
"""Our words for an HTTP error whose view said nothing itself (instead of Werkzeug's stock English), in the reader's
language."""
SEAT_PATH = re.compile(r"^/(play|settings)/([^/?#]{1,2000})")
"""The paths under a seat's link (``/play/<token>/…``, ``/settings/<token>``): their error pages speak its language."""


REFUSED_ON_PAGE = {"play.make_move", "play.say"}
"""The player's page POSTs that answer 409 (game paused, stopped, over) or 429 (too fast) only after its link was
checked: their page is the way back."""


def _back_to_page(status: int) -> str | None:
    """The player's page a refused POST (409, 429) came from, or None."""
    token = (request.view_args or {}).get("token")
    if status in (409, 429) and request.method == "POST" and request.endpoint in REFUSED_ON_PAGE and token:
        return url_for("play.page", token=token)
    return None


def error_page(
    status: int, message: str, title: str | None = None, headers: list[tuple[str, str]] | None = None
) -> tuple[str, int, list[tuple[str, str]]]:
    """The error page for ``status`` (with ``headers`` such as a 405's Allow), with a way back to the player's
    page when the game refused a POST from it."""
    heading = title or str(TITLES.get(status, _("Something went wrong")))
    back = _back_to_page(status)
    page = render_template("errors/error.html", status=status, title=heading, message=message, back=back)
    return page, status, headers or []


# Seconds to wait before trying again, and what went wrong, per kind of unavailability (db.unavailable).
RETRY_AFTER = {db.BUSY: 5, db.READ_ONLY: 60, db.GONE: 10}
TROUBLE = {
    db.BUSY: _l("The database is busy right now"),
    db.READ_ONLY: _l("The database cannot be written to right now"),
    db.GONE: _l("The database cannot be reached right now"),
}


def unavailable_page(kind: str) -> tuple[str, int, list[tuple[str, str]]]:
    """The 503 page for a database that is ``kind`` (busy, read-only, gone) during this request."""
    headers = [("Retry-After", str(RETRY_AFTER[kind]))]
    if request.method in ("GET", "HEAD"):
        message = _("%(trouble)s, so this page cannot be shown. Try again in a moment.", trouble=TROUBLE[kind])
        return error_page(503, message, _("Please try again in a moment"), headers)
    if db.committing():
        return error_page(
            503,
            _(
                "The connection to the database was lost while your change was being saved. "
                "Reload the page to see whether it was made before you try again."
            ),
            _("Please check and try again"),
            headers,
        )
    trouble = TROUBLE[kind]
    move = request.endpoint == "play.make_move"
    if kind == db.READ_ONLY:
        title = _("Please try again later")
        if move:
            message = _("%(trouble)s, so your move was not made. Try again later.", trouble=trouble)
        else:
            message = _("%(trouble)s, so nothing was changed. Try again later.", trouble=trouble)
    else:
        title = _("Please try again in a moment")
        if move:
            message = _("%(trouble)s, so your move was not made. Try again in a moment.", trouble=trouble)
        else:
            message = _("%(trouble)s, so nothing was changed. Try again in a moment.", trouble=trouble)
    return error_page(503, message, title, headers)


def _retry_once(view: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``view`` once more, on a fresh connection, when its connection was lost before any COMMIT
    (safe: nothing was saved, and a move is bound to its decision)."""

    @functools.wraps(view)
    def retrying(**kwargs: Any) -> Any:
        try:
            return view(**kwargs)
        except DBAPIError as exc:
            if not exc.connection_invalidated or db.committing():
                raise
            log.warning("database connection lost during %s %s, running it once more: %s", *_where(), exc.orig)
            db.drop_session()
            _unflash()
            return view(**kwargs)

    return retrying


def _note_flash(_app: Flask, message: str, category: str) -> None:
    g.setdefault("pbem_flashed", []).append((category, message))


def _unflash() -> None:
    """Take back the messages this request flashed so far, so that a view run again does not show them twice."""
    flashed = g.pop("pbem_flashed", [])
    if flashed:
        kept = list(session.get("_flashes", []))
        for item in reversed(flashed):
            if item in kept:
                del kept[len(kept) - 1 - kept[::-1].index(item)]  # the last one like it
        session["_flashes"] = kept


def _where() -> tuple[str, str]:
    """The request's method and endpoint (not its path: paths carry link tokens, which stay out of logs)."""
    return request.method, str(request.endpoint)


def _description(exc: HTTPException, status: int) -> str:
    """What an HTTP error says: the view's own words, or ours in the reader's language for Werkzeug's default."""
    description = exc.description or ""
    if description == type(exc).description and status in DESCRIPTIONS:
        return str(DESCRIPTIONS[status])
    return description


def _speak_for_link() -> None:
    """Under a seat's link where no view ran (an unknown page, a wrong method), speak the seat's language when the
    link is genuine; else the reader's own, as for any page."""
    found = SEAT_PATH.match(request.path) if g.get("pbem_lang") is None else None
    if found is None:
        return
    try:
        reader = links.read_settings if found.group(1) == "settings" else links.read
        link = reader(found.group(2))
        _game, _seats, seat = seats.read(session=db.get_session(), link=link)
    except (ServiceError, LinkExpired, DBAPIError):
        return
    i18n.use(seat.language, seat.timezone)


def titled(title: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A view whose refusals (``ServiceError``) are headed ``title`` (a message key): "Time away not set"."""

    def wrap(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def titled_view(**kwargs: Any) -> Any:
            g.pbem_error_title = title
            return view(**kwargs)

        return titled_view

    return wrap


def refused_page(exc: ServiceError) -> tuple[str, int, list[tuple[str, str]]]:
    """The page of a refusal, in the reader's language: what is wrong (and the rule, after the words), under the
    view's heading, the refusal's own, or the status's."""
    title_key = exc.title_key or g.get("pbem_error_title")
    message = f"{exc.message} ({exc.rule})" if exc.rule else exc.message
    return error_page(exc.status, message, i18n.text(title_key) if title_key else None, exc.headers)


def register(app: Flask, expired: Callable[[], Any]) -> None:
    """Render refusals, HTTP errors, CSRF failures, an unavailable database and unexpected exceptions as pages;
    ``expired`` answers a genuine link that is too old (it offers a fresh one)."""
    for endpoint, view in list(app.view_functions.items()):
        app.view_functions[endpoint] = _retry_once(view)
    message_flashed.connect(_note_flash, app)

    @app.errorhandler(ServiceError)
    def _refused(exc: ServiceError) -> tuple[str, int, list[tuple[str, str]]]:
        return refused_page(exc)

    @app.errorhandler(LinkExpired)
    def _expired(exc: LinkExpired) -> Any:
        return expired()

    @app.errorhandler(DBAPIError)
    def _database(exc: DBAPIError) -> tuple[str, int, list[tuple[str, str]]]:
        kind = db.unavailable(exc)
        if kind is None:
            return _unexpected(exc)
        log.warning("database %s during %s %s, answered 503: %s", kind, *_where(), exc.orig)
        return unavailable_page(kind)

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError) -> tuple[str, int, list[tuple[str, str]]]:
        return error_page(
            400,
            _("The form was not accepted (its security token is missing or wrong). Reload the page and try again."),
            _("Please reload the page"),
        )

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> tuple[str, int, list[tuple[str, str]]]:
        status = exc.code or 500
        _speak_for_link()
        if status >= 500:
            return error_page(status, _("Something went wrong on our side. Your game is safe; try again later."))
        kept = [(k, v) for k, v in exc.get_headers() if k.lower() in ("allow", "retry-after")]
        return error_page(status, _description(exc, status), headers=kept)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> tuple[str, int, list[tuple[str, str]]]:
        log.exception("unexpected error", exc_info=exc)
        return _http(InternalServerError())
