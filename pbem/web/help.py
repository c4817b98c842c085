"""How to play: each game's rules in plain words (templates/games/<game>/how_to_play.html, or
how_to_play.<lang>.html when the game has a page written for the reader's language), for anyone, or for one seat's
game with that game's options. GETs that read only."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, render_template, url_for
from flask_babel import gettext as _
from jinja2 import TemplateNotFound

import engine

from .. import db, games, i18n, links, pages
from .errors import error_page
from .play import link_error

bp = Blueprint("help", __name__)


def rules_page(key: str, lang: str) -> str:
    """The template of a game's rules in ``lang``: ``games/<key>/how_to_play.<lang>.html`` if the game has one,
    else ``games/<key>/how_to_play.html``."""
    localised = f"games/{key}/how_to_play.{lang}.html"
    loader = current_app.jinja_env.loader
    if loader is not None and lang != i18n.DEFAULT:
        try:
            loader.get_source(current_app.jinja_env, localised)
        except TemplateNotFound:
            pass
        else:
            return localised
    return f"games/{key}/how_to_play.html"


def _page(key: str, options: dict[str, Any] | None, **context: Any) -> Any:
    if key not in engine.GAMES:
        return error_page(404, _("There is no such game here."))
    game = games.rules_of(key)
    page = rules_page(key, i18n.current())
    try:
        return render_template(
            "help/how_to_play.html", key=key, title=game.title, options=options, rules_page=page, **context
        )
    except TemplateNotFound:
        return error_page(404, _("There is no help page for %(game)s yet.", game=game.title))


@bp.get("/how-to-play/<key>")
def rules(key: str) -> Any:
    """How to play a game, every option described."""
    return _page(key, None, game_name=None, back=None)


@bp.get("/play/<token>/how-to-play")
def for_seat(token: str) -> Any:
    """How to play the game of a seat's link, with that game's options, and a way back to the seat's page."""
    try:
        link, game, _seats, seat = pages.resolve(session=db.get_session(), token=token)
    except (links.LinkInvalid, links.LinkExpired, games.ServiceError) as exc:
        return link_error(exc)
    back = url_for("play.page", token=links.personal_token(link.game_id, link.seat, seat.nonce))
    return _page(game.game, dict(game.options), game_name=game.name, back=back)
