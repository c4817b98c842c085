"""Error pages: every failure is a short page with a status, never a traceback."""

from __future__ import annotations

import logging

from flask import Flask, render_template
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

log = logging.getLogger(__name__)

TITLES = {
    400: "This request is not valid",
    403: "Not allowed",
    404: "Not found",
    405: "Not allowed",
    410: "This link is no longer valid",
    413: "Too large",
    429: "Too many requests",
}


def error_page(
    status: int, message: str, title: str | None = None, headers: list[tuple[str, str]] | None = None
) -> tuple[str, int, list[tuple[str, str]]]:
    """The error page for ``status`` (with ``headers`` such as a 405's Allow)."""
    heading = title or TITLES.get(status, "Something went wrong")
    page = render_template("errors/error.html", status=status, title=heading, message=message)
    return page, status, headers or []


def register(app: Flask) -> None:
    """Render HTTP errors, CSRF failures and unexpected exceptions as pages."""

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError) -> tuple[str, int, list[tuple[str, str]]]:
        return error_page(
            400,
            "The form was not accepted (its security token is missing or wrong). Reload the page and try again.",
            "Please reload the page",
        )

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> tuple[str, int, list[tuple[str, str]]]:
        status = exc.code or 500
        if status >= 500:
            return error_page(status, "Something went wrong on our side. Your game is safe; try again later.")
        kept = [(k, v) for k, v in exc.get_headers() if k.lower() in ("allow", "retry-after")]
        return error_page(status, exc.description or "", headers=kept)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> tuple[str, int, list[tuple[str, str]]]:
        log.exception("unexpected error", exc_info=exc)
        return _http(InternalServerError())
