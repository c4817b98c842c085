"""The front page: what this is, "lost your links?" (an email with the current links of every game of an
address), and the way to the admin page."""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, current_app, render_template, request, url_for
from flask_babel import gettext as _
from limits import parse as parse_limit

import engine

from .. import db
from ..core import games, links, seats
from ..core.errors import ServiceError, TooMany
from ..flows import links as link_flows
from ..i18n import N_

bp = Blueprint("front", __name__)
LOST_KEY = "lost-links"


@bp.get("/")
def index() -> Any:
    """The front page (a GET: changes nothing): each game in a sentence, "lost your links?", the admin page; in
    development also the built-in mailbox and the links of the demo games."""
    return _front_page(address="", error=None)


def _front_page(**context: Any) -> str:
    offered = [games.rules_of(key) for key in sorted(engine.GAMES, key=lambda k: k != games.DEFAULT_GAME)]
    written = set(current_app.jinja_env.list_templates(filter_func=lambda name: name.endswith("/how_to_play.html")))
    with_rules = {rules.key for rules in offered if f"games/{rules.key}/how_to_play.html" in written}
    demos: list[dict[str, Any]] = []
    if current_app.config["DEVELOPMENT"]:
        for game, seat in seats.demo_seats(session=db.get_session()):
            token = links.personal_token(game.id or 0, seat.position, seat.nonce)
            url = url_for("play.page", token=token)
            demos.append({"name": game.name, "title": games.rules_of(game).title, "url": url})
    mailbox = "mailbox" in current_app.blueprints
    return render_template(
        "front/index.html", offered=offered, with_rules=with_rules, demos=demos, mailbox=mailbox, **context
    )


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
        return _front_page(address=address[:254], error=error), 400
    return render_template("front/sent.html", address=address)
