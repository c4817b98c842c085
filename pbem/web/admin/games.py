"""The games list and one game's page for organisers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import current_app, render_template, request
from flask_babel import gettext
from flask_babel import ngettext as _ngettext

from engine.protocol import Game as Rules

from ... import admin, db, timing
from ...core.errors import ServiceError
from .base import actor, bp, draft_of, game_form, seat_choices, zones

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext

# The games list ---------------------------------------------------------------------------------


def _page_number(value: str | None) -> int:
    if value is None or value == "":
        return 1
    if not value.isascii() or not value.isdigit() or len(value) > 6 or int(value) < 1:
        raise ServiceError(_("the page must be a whole number from 1"))
    return int(value)


@bp.get("/")
def index() -> Any:
    """The games, newest first, filtered by status and "needs attention", a page at a time."""
    status = request.args.get("status") or None
    listing = admin.list_games(
        session=db.get_session(),
        now=timing.now(),
        status=status,
        attention=request.args.get("attention") == "1",
        page=_page_number(request.args.get("page")),
        per_page=current_app.config["ADMIN_GAMES_PER_PAGE"],
    )
    return render_template("admin/games.html", listing=listing, statuses=admin.STATUSES, now=timing.now())


# One game ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _SeatBoard:
    """What the game's player board partial reads from its ``page`` when an organiser who plays sees their seat."""

    game: Any
    rules: Rules
    seats: list[Any]
    seat: Any
    texts: Any
    """The texts the board makes from the seat's view (the game's ``page_texts``)."""


def game_page(game_id: int) -> Any:
    view = admin.game_view(session=db.get_session(), game_id=game_id, actor=actor())
    draft = draft_of(game_form(game_id))
    key = view.rules.key
    mine = view.playing.seat if view.hidden and view.playing is not None else None
    page = render_template(
        "admin/game.html",
        view=view,
        error=draft["error"] if draft else None,
        kept=draft,
        kinds=seat_choices(view.rules),
        zones=zones(),
        now=timing.now(),
        board=[f"games/{key}/admin_board.html", "admin/_board.html"],
        seat_board=[f"games/{key}/board.html", "games/_default/board.html"],
        page=None
        if mine is None
        else _SeatBoard(view.game, view.rules, view.seats, mine, view.rules.page_texts(view.seen or {}, mine.name)),
        milestones=[f"games/{key}/admin_milestones.html", "admin/_milestones.html"],
        club=admin.club_view(session=db.get_session(), game_id=game_id),
    )
    return page, 200


"""The fields of a refused action kept for the page that shows it again (its forms have fewer)."""


@bp.get("/games/<id:game_id>")
def game(game_id: int) -> Any:
    """The organiser's view of one game: everything hidden, the milestones, the log, the emails and the actions."""
    return game_page(game_id)
