"""The player's page: GET shows it (never writes), POST makes a move (CSRF-protected); and each game's style sheet."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, url_for
from flask import session as flask_session
from flask_babel import gettext as _
from jinja2 import TemplateNotFound
from werkzeug.wrappers.response import Response as BaseResponse

import engine
from engine.errors import FormatError
from engine.protocol import Game as Rules

from .. import db
from ..core import games, links
from ..core.errors import AlreadyPlayed, BadMessage, MoveRefused, ServiceError, TooMany
from ..flows import play
from ..i18n import N_
from . import invite, pages, tokens
from .errors import titled

bp = Blueprint("play", __name__)
NOT_MOVE = ("csrf_token", "decision", "say", "via")
"""The form fields that are not part of the move: every other field is."""
VIA_PAGE = "page"
"""The ``via`` field of the page's message form: a move link posted from the page's buttons is a page's move."""
MAX_FIELDS = 16
MAX_VALUE = 100_000
"""A form's value longer than this is forged (no page sends one); shorter ones go to the game, which names what is
wrong with them in its own words."""
FIELD_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
DEFAULT = "_default"
"""The folder of templates/games/ with the plain partials of a game that has none of its own."""
STYLE_MAX_AGE = 365 * 24 * 3600
CSRF_SECRET = "csrf_token"
"""Where Flask-WTF keeps the session's form secret (its ``WTF_CSRF_FIELD_NAME``): the page's form tokens come
from it."""


@bp.get("/play/<token>")
def page(token: str) -> Any:
    """The seat's page; for a move link, with that move ready to confirm. A client that asks again with the page's
    ETag (``If-None-Match``: a mail scanner's second visit) is answered 304 without a page when nothing changed."""
    session, link = db.get_session(), tokens.link()
    flashes = "_flashes" in flask_session  # a page with a notice is shown once: never cached
    # what the page's forms hold beyond the database: the form secret the request came with
    tag = "" if flashes else pages.page_tag(session=session, extra=flask_session.get(CSRF_SECRET, ""))
    if tag and request.if_none_match.contains(tag):
        return _cached(Response(status=304), tag)
    data = pages.seat_page(session=session, link=link)
    if data.game.status == games.INVITED:
        return invite.page(data)  # answers change it without a new game version: never given an ETag
    mine = links.mine_token(data.seat.email) if data.seat.email and not data.seat.is_bot else None
    response = Response(render_template("play/page.html", page=data, parts=parts_of(data.key), mine_token=mine))
    return _cached(response, tag) if tag else response


def _cached(response: Response, tag: str) -> Response:
    """The page's ETag. The page shows a private hand, so it is still never stored (``no-store``): browsers ask
    anew, and a client that revalidates what it fetched (a mail scanner's second visit) gets 304 without a page."""
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/play/<token>/log")
def full_log(token: str) -> Any:
    """The whole log of the game as this seat may see it."""
    data = pages.seat_page(session=db.get_session(), link=tokens.link(), log_lines=None)
    return render_template("play/log.html", page=data)


@bp.post("/play/<token>")
def make_move(token: str) -> Any:
    """Apply the move of a move link, or the one a page button posted, then show the page again."""
    link = tokens.link()
    move: dict[str, Any] = {}
    decision: str | None = None
    message = ""
    try:
        # One transaction reads the seat, checks the form and makes the move: a refused form rolls it back.
        with db.write_session() as session:
            found = tokens.seat(session, lock=True)
            rules = games.rules_of(found.game)
            move, decision, source, message = _the_move(link, rules, found.seat.name)
            outcome = play.move(
                session=session,
                game_id=link.game_id,
                seat=link.seat,
                move=move,
                decision=decision,
                source=source,
                nonce_tag=link.nonce_tag,
                message=message,
                loaded=found,
            )
            nonce, player = outcome.seats[link.seat].nonce, found.seat.name
            rules = outcome.rules  # read while the game is loaded: its options may name what the move did
    except AlreadyPlayed:
        made = pages.already_played(session=db.get_session(), link=link, decision=decision)
        text = _("Already played. %(made)s Here is the game as it is now.", made=made)
        flash(f"{text} {_('Your message was not sent.')}" if message else text, "notice")
        return _back(tokens.personal())
    except (BadMessage, TooMany) as exc:
        if not message:
            raise
        return _refused(exc, rules.describe_move(move))
    # named once the transaction is over: the game's write lock is not held while the label is worked out
    flash(_("Done: %(move)s.", move=_done_label(rules, outcome, player, move)), "done")
    return _back(token if link.purpose == links.PERSONAL else links.personal_token(link.game_id, link.seat, nonce))


def _the_move(link: links.Link, rules: Rules, player: str) -> tuple[dict[str, Any], str | None, str, str]:
    """The move, decision, source and message a request asks for: the link's own move, or a page's form
    (ServiceError for a form no page sends, MoveRefused for a move the game cannot read)."""
    if link.purpose == links.MOVE:
        move, decision = dict(link.move or {}), link.decision
        source = "page" if request.form.get("via") == VIA_PAGE else "link"
    else:
        texts = _form_texts()
        if texts is None:
            raise ServiceError(N_("The form did not name exactly one move."))
        decision, source = _form_decision(), "page"
        try:
            move = _typed(rules, player, texts)
        except FormatError as exc:
            raise MoveRefused(str(exc)) from None
    if decision is None and not _standing(rules, player, move):
        raise ServiceError(N_("The form did not say which decision it was made for. Reload the page."))
    message = request.form.get("say", "")
    if len(request.form.getlist("say")) > 1 or len(message) > MAX_VALUE:
        raise ServiceError(N_("The form did not send one message."))
    return move, decision, source, message if message.strip() else ""


def _done_label(rules: Rules, outcome: games.MoveOutcome, player: str, move: dict[str, Any]) -> str:
    """What was done, in the words of the button that offered it (the engine's plain words otherwise)."""
    offered = pages.choices_for(rules, outcome.before.state, player) if outcome.before is not None else None
    return pages.choice_label(offered, move) or rules.describe_move(move)


def _refused(exc: ServiceError, label: str) -> tuple[str, int, list[tuple[str, str]]]:
    """The page for a move refused because of its message: nothing was done; the same move is offered again,
    with the message as typed."""
    form = request.form
    kept = [(name, form[name]) for name in form if name not in ("csrf_token", "say")]  # "via" too: a page's move
    page = render_template("play/refused.html", reason=exc.message, label=label, kept=kept, message=form.get("say", ""))
    return page, exc.status, exc.headers


def _back(personal: str) -> BaseResponse | Response:
    return redirect(url_for("play.page", token=personal), code=303)


def _form_texts() -> dict[str, str] | None:
    """The move's fields of the posted form (every field but NOT_MOVE, empty ones left out), or None for a form
    no page sends: no field, too many, a field twice, a name that is not a field name, a value too long."""
    form = request.form
    names = [name for name in form if name not in NOT_MOVE]
    if not names or len(names) > MAX_FIELDS or len(form.getlist("decision")) > 1:
        return None
    if any(len(form.getlist(name)) > 1 or not FIELD_NAME.fullmatch(name) for name in names):
        return None
    texts = {name: form[name] for name in names}
    if any(len(value) > MAX_VALUE for value in texts.values()):
        return None
    return {name: value for name, value in texts.items() if value != ""}


def _typed(rules: Rules, player: str, texts: dict[str, str]) -> dict[str, Any]:
    """The move a form's texts stand for: small ASCII whole numbers as numbers (a count), or, when the game
    refuses that, the texts as sent (a name or a label that is made of digits); FormatError when it refuses both."""
    typed: dict[str, Any] = {k: n if (n := _small_int(v, 3)) is not None else v for k, v in texts.items()}
    try:
        rules.parse_move(player, typed)
    except FormatError:
        if typed == texts:
            raise
        try:
            rules.parse_move(player, texts)
        except FormatError:
            pass
        else:
            return dict(texts)
        raise
    return typed


def _standing(rules: Rules, player: str, move: dict[str, Any]) -> bool:
    """True for a standing move (a setting, made outside the player's decisions)."""
    try:
        return rules.is_standing(rules.parse_move(player, move))
    except FormatError:
        return False


def _form_decision() -> str | None:
    value = request.form.get("decision", "")
    return value if re.fullmatch(r"[0-9A-Za-z._:-]{1,64}", value) else None


def _small_int(value: str, digits: int) -> int | None:
    """An ASCII whole number of at most ``digits`` digits, else None (``str.isdigit`` accepts '²')."""
    return int(value) if re.fullmatch(f"[0-9]{{1,{digits}}}", value) else None


@bp.post("/play/<token>/say")
@titled(N_("That message was not sent"))
def say(token: str) -> Any:
    """Say something to the table (one line, at most 280 characters); the others see it on their page and in
    their next email."""
    link = tokens.link()
    tokens.seat()  # the seat's language from here on
    with db.write_session() as session:
        play.say(
            session=session,
            game_id=link.game_id,
            seat=link.seat,
            text=request.form.get("message", ""),
            nonce_tag=link.nonce_tag,
        )
    flash(_("Your message is on the table."), "done")
    return redirect(url_for("play.page", token=tokens.personal(), _anchor="talk"), code=303)


def partial(key: str, name: str) -> str:
    """The template ``name`` of game ``key`` (templates/games/<key>/), or the plain one of templates/games/_default/."""
    env = current_app.jinja_env
    return env.select_template([f"games/{key}/{name}", f"games/{DEFAULT}/{name}"]).name or ""


def parts_of(key: str) -> dict[str, str]:
    """The partials the player's page includes: the header's words (head), what the game tells first of what just
    happened (news), the board and the scores; and the plain scores (default_scores), which the final ranking
    already says. Looked up once per game (a game without its own partial would ask the loader on every page);
    again on every page in debug mode, where templates may change."""
    cache: dict[str, dict[str, str]] = current_app.extensions.setdefault("pbem_page_parts", {})
    parts = cache.get(key)
    if parts is None or current_app.debug:
        parts = {name: partial(key, f"{name}.html") for name in ("head", "news", "board", "scores")}
        parts["default_scores"] = f"games/{DEFAULT}/scores.html"
        cache[key] = parts
    return parts


def _style_of(key: str) -> str:
    loader = current_app.jinja_env.loader
    if loader is None:
        return ""
    try:
        return loader.get_source(current_app.jinja_env, f"games/{key}/style.css")[0]
    except TemplateNotFound:
        return ""


def style_version(key: str) -> str:
    """A short hash of the game's style sheet: its link changes when the sheet does, so it may be cached long."""
    cache: dict[str, str] = current_app.extensions.setdefault("pbem_style_versions", {})
    if key not in cache or current_app.debug:
        cache[key] = hashlib.sha256(_style_of(key).encode()).hexdigest()[:12]
    return cache[key]


def style_url(key: str) -> str:
    """The link of a game's style sheet, with its version."""
    return url_for("play.game_style", key=key, v=style_version(key))


@bp.get("/games/<key>/style.css")
def game_style(key: str) -> Any:
    """The style sheet of a game's board (templates/games/<key>/style.css; empty for a game without one)."""
    if key not in engine.GAMES:
        abort(404)
    response = Response(_style_of(key), mimetype="text/css")
    response.headers["Cache-Control"] = f"public, max-age={STYLE_MAX_AGE}, immutable"
    return response
