"""The player's page: GET shows it (never writes), POST makes a move (CSRF-protected)."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from werkzeug.wrappers.response import Response as BaseResponse

from engine.call_to_glory.words import describe_move

from .. import db, flows, games, links, pages, talk
from ..models import utcnow
from .errors import error_page
from .settings import expired_page

bp = Blueprint("play", __name__)
MOVE_FIELDS = ("do", "pile", "type", "count", "target", "deck", "discard_preference")


def link_error(exc: Exception) -> tuple[str, int, list[tuple[str, str]]]:
    """The page for a link that cannot be used: not valid (400), expired (offers a fresh one), revoked, gone."""
    if isinstance(exc, links.LinkExpired):
        return expired_page(str((request.view_args or {}).get("token", "")))
    if isinstance(exc, games.ServiceError):
        return error_page(exc.status, exc.message)
    return error_page(
        400, "This link is not valid. Check that it was copied whole, or use the one in your latest email."
    )


@bp.get("/play/<token>")
def page(token: str) -> Any:
    """The seat's page; for a move link, with that move ready to confirm."""
    try:
        data = pages.seat_page(session=db.get_session(), token=token)
    except (links.LinkInvalid, links.LinkExpired, games.ServiceError) as exc:
        return link_error(exc)
    return render_template("play/page.html", page=data, describe_move=describe_move)


@bp.get("/play/<token>/log")
def full_log(token: str) -> Any:
    """The whole log of the game as this seat may see it."""
    try:
        data = pages.seat_page(session=db.get_session(), token=token, log_lines=None)
    except (links.LinkInvalid, links.LinkExpired, games.ServiceError) as exc:
        return link_error(exc)
    return render_template("play/log.html", page=data)


@bp.post("/play/<token>")
def make_move(token: str) -> Any:
    """Apply the move of a move link, or the one a page button posted, then show the page again."""
    try:
        link = links.read(token)
    except (links.LinkInvalid, links.LinkExpired) as exc:
        return link_error(exc)
    move: dict[str, Any] | None
    if link.purpose == links.MOVE:
        move, decision, source = dict(link.move or {}), link.decision, "link"
    else:
        move, decision, source = _form_move(), _form_decision(), "page"
    if move is None:
        return error_page(400, "The form did not name exactly one move.")
    if decision is None and move.get("do") != "preference":
        return error_page(400, "The form did not say which decision it was made for. Reload the page.")
    try:
        with db.write_session() as session:
            outcome = flows.apply_move(
                session=session,
                game_id=link.game_id,
                seat=link.seat,
                move=move,
                decision=decision,
                source=source,
                nonce_tag=link.nonce_tag,
            )
            nonce = outcome.seats[link.seat].nonce
    except games.AlreadyPlayed:
        flash("Already played: that decision was made before. Here is the game as it is now.", "notice")
        personal = token if link.purpose == links.PERSONAL else None
        return _back(personal or pages.personal_token_of(session=db.get_session(), link=link))
    except games.LinkRevoked as exc:
        return link_error(exc)
    except games.TooManyChanges as exc:
        return error_page(exc.status, exc.message, headers=[("Retry-After", str(exc.retry_after))])
    except games.ServiceError as exc:
        rule = f"{exc.rule}: " if exc.rule else ""
        return error_page(exc.status, f"{rule}{exc.message}", "That move is not allowed")
    flash(f"Done: {describe_move(move)}.", "done")
    return _back(token if link.purpose == links.PERSONAL else links.personal_token(link.game_id, link.seat, nonce))


def _back(personal: str) -> BaseResponse | Response:
    return redirect(url_for("play.page", token=personal), code=303)


def _form_move() -> dict[str, Any] | None:
    form = request.form
    if "do" not in form:
        return None
    if any(len(form.getlist(name)) > 1 for name in (*MOVE_FIELDS, "decision")):
        return None
    move: dict[str, Any] = {}
    for name in MOVE_FIELDS:
        value = form.get(name)
        if value is None or value == "":
            continue
        if name == "count":
            move[name] = _small_int(value, 3) if _small_int(value, 3) is not None else value
        else:
            move[name] = value
    return move


def _form_decision() -> str | None:
    value = request.form.get("decision", "")
    return value if re.fullmatch(r"[0-9A-Za-z._:-]{1,64}", value) else None


def _small_int(value: str, digits: int) -> int | None:
    """An ASCII whole number of at most ``digits`` digits, else None (``str.isdigit`` accepts '²')."""
    return int(value) if re.fullmatch(f"[0-9]{{1,{digits}}}", value) else None


@bp.post("/play/<token>/say")
def say(token: str) -> Any:
    """Say something to the table (one line, at most 280 characters); the others see it on their page and in
    their next email."""
    try:
        link = links.read(token)
    except (links.LinkInvalid, links.LinkExpired) as exc:
        return link_error(exc)
    text = request.form.get("message", "")
    try:
        with db.write_session() as session:
            talk.say(
                session=session,
                game_id=link.game_id,
                seat=link.seat,
                text=text,
                nonce_tag=link.nonce_tag,
                now=utcnow(),
            )
            nonce = games.seats_of(session=session, game_id=link.game_id)[link.seat].nonce
    except talk.TooChatty as exc:
        return error_page(429, exc.message, "Not so fast", [("Retry-After", str(exc.retry_after))])
    except games.LinkRevoked as exc:
        return link_error(exc)
    except games.ServiceError as exc:
        return error_page(exc.status, exc.message, "That message was not sent")
    flash("Your message is on the table.", "done")
    return redirect(
        url_for("play.page", token=links.personal_token(link.game_id, link.seat, nonce), _anchor="talk"), code=303
    )
