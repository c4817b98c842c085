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


def error_page(status: int, message: str, title: str | None = None) -> tuple[str, int]:
    """The error page for ``status``."""
    heading = title or TITLES.get(status, "Something went wrong")
    return render_template("errors/error.html", status=status, title=heading, message=message), status


def register(app: Flask) -> None:
    """Render HTTP errors, CSRF failures and unexpected exceptions as pages."""

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError) -> tuple[str, int]:
        return error_page(
            400,
            "The form was not accepted (its security token is missing or wrong). Reload the page and try again.",
            "Please reload the page",
        )

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> tuple[str, int]:
        status = exc.code or 500
        if status >= 500:
            return error_page(status, "Something went wrong on our side. Your game is safe; try again later.")
        return error_page(status, exc.description or "")

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> tuple[str, int]:
        log.exception("unexpected error", exc_info=exc)
        return _http(InternalServerError())
