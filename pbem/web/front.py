"""The front page: what this is, "lost your links?" (an email with the current links of every game of an
address), and the way to the admin page."""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, current_app, render_template, request
from flask_babel import gettext as _
from jinja2 import Environment, TemplateNotFound
from limits import parse as parse_limit

import engine

from .. import db
from ..core import games
from ..core.errors import ServiceError, TooMany
from ..flows import links as link_flows
from ..i18n import N_

bp = Blueprint("front", __name__)
LOST_KEY = "lost-links"


@bp.get("/")
def index() -> Any:
    """The front page (a GET: reads nothing, changes nothing)."""
    return render_template("front/index.html", address="", error=None, known=known_games())


def known_games() -> list[tuple[str, str]]:
    """Every game this server plays that has a How to play page, as (key, title in the reader's language), for the
    front page's links."""
    env = current_app.jinja_env
    return [(key, games.rules_of(key).title) for key in engine.GAMES if _has(env, f"games/{key}/how_to_play.html")]


def _has(env: Environment, name: str) -> bool:
    try:
        env.get_template(name)
    except TemplateNotFound:
        return False
    return True


@bp.post("/lost-links")
def lost_links() -> Any:
    """Email the address its links, if it plays here; the answer is the same whether or not it does."""
    strategy = current_app.extensions["pbem_limiter"].limiter
    limit = parse_limit(current_app.config["LOST_LINKS_LIMIT"])
    prefix = str(current_app.config["RATELIMIT_KEY_PREFIX"])
    keys = (*((prefix,) if prefix else ()), LOST_KEY, request.remote_addr or "unknown")
    if not strategy.hit(limit, *keys):
        wait = max(1, int(strategy.get_window_stats(limit, *keys).reset_time - time.time()))
        raise TooMany(
            N_("You asked for your links many times in a short while. Please try again later."),
            retry_after=wait,
            title=N_("Too many requests"),
        )
    address = request.form.get("address", "").strip()
    try:
        with db.write_session() as session:
            link_flows.lost_links(session=session, address=address)
    except ServiceError:
        error = _("That is not an email address: check it and try again.")
        return render_template("front/index.html", address=address[:254], error=error, known=known_games()), 400
    return render_template("front/sent.html", address=address)
