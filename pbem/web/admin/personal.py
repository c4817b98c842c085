"""Personal data on the admin page: erase a person from the games they played that are over (asked first), and
the players' requests to be erased."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext

from ... import admin, db
from ...core import checks
from ...core.errors import ServiceError
from .base import actor, bp

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""


def _page(address: str = "", name: str = "", error: str | None = None, status: int = 200) -> Any:
    requests = admin.erasure_requests(session=db.get_session())
    page = render_template("admin/personal.html", requests=requests, address=address, name=name, error=error)
    return page, status


@bp.get("/personal-data")
def personal_data() -> Any:
    """The form that erases a person, and the players' requests waiting for the organiser."""
    return _page()


@bp.post("/personal-data/erase")
def erase() -> Any:
    """Erase a person (after a confirmation page), then show the page again with what was done."""
    address = request.form.get("address", "").strip()[: checks.MAX_EMAIL + 1]
    name = request.form.get("name", "").strip()[: checks.MAX_PLAYER_NAME + 1]
    try:
        checked = checks.check_email(address, _("the address"))
        if name:
            checks.check_name(name, _("the new name"), checks.MAX_PLAYER_NAME)
        if request.form.get("confirm") != "yes":
            return render_template("admin/erase_confirm.html", address=checked, name=name)
        me = actor()
        db.get_session().close()
        with db.write_session() as session:
            done = admin.erase_person(session=session, address=checked, name=name, actor=me)
    except ServiceError as exc:
        return _page(address, name, exc.message, exc.status)
    flash(done, "done")
    return redirect(url_for("admin.personal_data"), code=303)
