"""The play-by-email server: ``create_app`` wires configuration, database, links and pages."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.cli import FlaskGroup
from flask_babel import gettext as _
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from werkzeug.middleware.proxy_fix import ProxyFix

from . import config, db, i18n, logs
from .config import ROOT
from .core import games
from .extensions import csrf, login_manager


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: configuration, database engine, CSRF, blueprints, headers and error pages."""
    app = Flask(
        __name__,
        instance_path=str(ROOT / "instance"),
        template_folder=str(ROOT / "templates"),
        static_folder="static",
    )
    logs.install()  # no link token in any log line of this process
    app.jinja_environment = i18n.TranslatingEnvironment  # before the first use of app.jinja_env
    config.load(app, test_config)
    hops = app.config["PROXY_FIX"]
    if hops:
        # Behind PROXY_FIX trusted reverse proxies: the client's address and scheme from their X-Forwarded-* headers.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    # " (you)" after the reader's own name, unless the name already says it (the demo's seat is called "You").
    app.jinja_env.globals["you"] = lambda name: "" if str(name).strip().casefold() == "you" else " " + _("(you)")
    # What a game's own templates (templates/games/<key>/) need besides the view: the game's fixed data.
    app.jinja_env.globals["game_data"] = lambda key: games.rules_of(key).template_data()
    # Static paths without url_for: error pages must render even when the request's URL could not be bound.
    app.jinja_env.globals["static_url"] = lambda filename: f"{app.static_url_path}/{filename}"
    i18n.init_app(app)
    db.init_app(app)
    csrf.init_app(app)
    # The organiser is loaded for admin pages only (pbem.web.admin): loading it on a player's page would make
    # flask-login's session protection rewrite the session cookie on every page.
    login_manager.init_app(app, add_context_processor=False)
    # One limiter per app (tests build many apps in one process); storage from RATELIMIT_STORAGE_URI.
    app.extensions["pbem_limiter"] = Limiter(get_remote_address, app=app, auto_check=False)

    from .mail import sender

    sender.mail.init_app(app)

    from .web import (
        admin,
        away,
        check,
        club,
        errors,
        front,
        health,
        help,
        invite,
        language,
        mine,
        personal,
        play,
        security,
        settings,
    )

    app.register_blueprint(health.bp)
    health.register(app)
    app.register_blueprint(front.bp)
    app.register_blueprint(help.bp)
    app.register_blueprint(play.bp)
    app.jinja_env.globals["game_style_url"] = play.style_url
    app.register_blueprint(settings.bp)
    app.register_blueprint(away.bp)
    app.register_blueprint(mine.bp)
    app.register_blueprint(invite.bp)
    app.register_blueprint(club.bp)
    app.register_blueprint(check.bp)
    app.register_blueprint(personal.bp)
    app.register_blueprint(language.bp)
    app.register_blueprint(admin.bp)
    if app.config["DEVELOPMENT"] and app.config["MAIL_BACKEND"] == "mailbox":
        from .web import mailbox

        app.register_blueprint(mailbox.bp)
    errors.register(app, expired=settings.expired_page)
    security.register(app)

    from . import cli

    cli.register(app)
    return app


def main() -> None:
    """The ``pbem`` command: Flask's command group over ``create_app``, with the commands of ``pbem.cli``."""
    FlaskGroup(create_app=create_app)()
