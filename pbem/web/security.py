"""Security headers on every response, and POSTs sent from another site refused."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, current_app, request
from flask_babel import gettext as _

from .errors import error_page

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HSTS = "max-age=31536000; includeSubDomains"
"""Outside development: browsers use https for this site (and its subdomains) for a year."""
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
MAX_NEXT = 2000


def local_path(value: str | None) -> str | None:
    """``value`` if it is a path of this site ('/help?x=1'), else None: no scheme, host, ``//``, backslash, control
    character or dot segment; where a form's ``next`` may lead."""
    if not value or len(value) > MAX_NEXT or not value.startswith("/") or value.startswith("//"):
        return None
    if "\\" in value or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in value):
        return None
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or any(segment in (".", "..") for segment in parts.path.split("/")):
        return None
    return value


def cross_site() -> bool:
    """True if the browser says this request was sent by a page of another site.

    ``Sec-Fetch-Site`` (sent by current browsers, whatever the referrer policy) must not be ``cross-site`` or
    ``same-site``; an ``Origin`` header, when it names one (our pages' ``no-referrer`` policy makes browsers send
    ``null``), must be this site's: SERVER_NAME with PREFERRED_URL_SCHEME, or the request's own scheme and host
    (which TRUSTED_HOSTS has checked). Requests without either header (mail servers, scripts) are not cross-site.
    """
    if request.headers.get("Sec-Fetch-Site", "").lower() in ("cross-site", "same-site"):
        return True
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return False
    config = current_app.config
    own = {f"{config['PREFERRED_URL_SCHEME']}://{config['SERVER_NAME']}", f"{request.scheme}://{request.host}"}
    return origin.rstrip("/").lower() not in {o.lower() for o in own}


def _one_click_unsubscribe() -> bool:
    """RFC 8058: a mail provider posts ``List-Unsubscribe=One-Click`` to a settings link (it turns reminders off)."""
    return request.path.startswith("/settings/") and request.form.get("List-Unsubscribe") == "One-Click"


def register(app: Flask) -> None:
    """Refuse cross-site POSTs before any view runs; add the headers after every request."""

    @app.before_request
    def _same_site() -> tuple[str, int, list[tuple[str, str]]] | None:
        if request.method in SAFE_METHODS or not cross_site() or _one_click_unsubscribe():
            return None
        return error_page(
            403,
            _(
                "This form was sent from another site, so it was not accepted. "
                "Open the page on this site and try again."
            ),
        )

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = CSP
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        if not current_app.config["DEVELOPMENT"]:
            response.headers["Strict-Transport-Security"] = HSTS
        if not response.headers.get("Cache-Control"):
            response.headers["Cache-Control"] = "no-store"
        return response
