"""The play-by-email server: ``create_app`` wires configuration, database, links and pages."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_wtf.csrf import CSRFProtect

import engine

from . import config, db, words
from .config import ROOT

csrf = CSRFProtect()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: configuration, database engine, CSRF, blueprints, headers and error pages."""
    app = Flask(
        __name__,
        instance_path=str(ROOT / "instance"),
        template_folder=str(ROOT / "templates"),
        static_folder="static",
    )
    config.load(app, test_config)
    app.jinja_env.globals["article"] = words.a
    app.jinja_env.globals["values"] = dict(zip(engine.TYPES, engine.VALUES, strict=True))
    # Static paths without url_for: error pages must render even when the request's URL could not be bound.
    app.jinja_env.globals["static_url"] = lambda filename: f"{app.static_url_path}/{filename}"
    db.init_app(app)
    csrf.init_app(app)

    from .web import errors, play, security

    app.register_blueprint(play.bp)
    errors.register(app)
    security.register(app)

    from . import cli

    cli.register(app)
    return app
