"""A WSGI app for the log tests: the real app, except that a path ending in /boom raises past Flask (as a lost
connection in a request's teardown did), so gunicorn's own error log writes "Error handling request <path>"."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

from pbem import create_app


def create() -> Flask:
    app = create_app()
    inner = app.wsgi_app

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "").endswith("/boom"):
            raise RuntimeError(f"boom at {environ['PATH_INFO']}")
        return inner(environ, start_response)

    app.wsgi_app = wsgi  # type: ignore[method-assign]
    return app
