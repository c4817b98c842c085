"""How to play: each game's rules in plain words (templates/games/<game>/how_to_play.html, or
how_to_play.<lang>.html when the game has a page written for the reader's language), for anyone, or for one seat's
game with that game's options. GETs that read only."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, render_template, url_for
from jinja2 import TemplateNotFound

import engine

from .. import i18n
from ..core import games
from ..core.errors import NotFound
from ..i18n import N_
from . import tokens

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
        raise NotFound
    game = games.rules_of(key)
    page = rules_page(key, i18n.current())
    try:
        return render_template(
            "help/how_to_play.html", key=key, title=game.title, options=options, rules_page=page, **context
        )
    except TemplateNotFound:
        raise NotFound(N_("There is no help page for %(game)s yet."), game=game.title) from None


@bp.get("/how-to-play/<key>")
def rules(key: str) -> Any:
    """How to play a game, every option described."""
    return _page(key, None, game_name=None, back=None)


@bp.get("/play/<token>/how-to-play")
def for_seat(token: str) -> Any:
    """How to play the game of a seat's link, with that game's options, and a way back to the seat's page."""
    found = tokens.seat()
    back = url_for("play.page", token=tokens.personal())
    return _page(found.game.game, dict(found.game.options), game_name=found.game.name, back=back)
