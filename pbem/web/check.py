"""The fair-play check: a seat's page that compares the revealed seed with the commitment of the invitation, the
game record to download, and a plain form where anyone compares a seed with a commitment. GET only: reads."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, render_template, request
from flask_babel import gettext as _

from .. import db
from ..core import records
from . import pages, tokens

bp = Blueprint("check", __name__)
SEED = re.compile(r"-?[0-9]{1,40}")
COMMITMENT = re.compile(r"[0-9a-f]{64}")


@bp.get("/play/<token>/check")
def seed(token: str) -> Any:
    """The seed check of the seat's game: the commitment, and once the game is over the seed and its SHA-256."""
    data = pages.seed_check(session=db.get_session(), link=tokens.link())
    return render_template("check/seed.html", check=data)


@bp.get("/play/<token>/record.json")
def record(token: str) -> Any:
    """The record of the seat's finished game, as a file to download."""
    name, text = pages.game_record(session=db.get_session(), link=tokens.link())
    response = Response(text, mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/check")
def compare() -> Any:
    """Anyone pastes a seed and a commitment: are they a match? Answers in words, changes nothing."""
    seed_text = request.args.get("seed", "").strip()
    commitment = request.args.get("commitment", "").strip().lower()
    if not seed_text and not commitment:
        return render_template("check/compare.html", seed="", commitment="", digest=None, error=None)
    error = None
    if not SEED.fullmatch(seed_text):
        error = _("A seed is a whole number: at most 40 digits.")
    elif not COMMITMENT.fullmatch(commitment):
        error = _("A commitment is 64 characters, each a digit or a letter from a to f.")
    digest = records.commitment(seed_text) if error is None else None
    page = render_template("check/compare.html", seed=seed_text, commitment=commitment, digest=digest, error=error)
    return page, 400 if error else 200
