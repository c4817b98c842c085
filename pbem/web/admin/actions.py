"""The actions on a game, one table (``ACTIONS``): each reads its form, asks first if it destroys, and calls one
admin service."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Response, flash, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_babel import ngettext as _ngettext
from werkzeug.wrappers.response import Response as BaseResponse

from ... import admin, db
from ...core import checks, games
from ...core.errors import AlreadyPlayed, NotFound, NotNow, ServiceError
from ...i18n import N_
from .base import DRAFT_TEXT, actor, bp, forget_draft, game_form, store_draft

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext

KEPT_FIELDS = 8


def _refused(game_id: int, action: str, message: str) -> BaseResponse:
    """Keep a refused action (its name, what was typed, the message) and redirect to the game's page, which shows
    them: a reload of that page posts nothing again."""
    values = {
        k: v[:DRAFT_TEXT]
        for k, v in list(request.form.items())[:KEPT_FIELDS]
        if k not in ("csrf_token", "confirm") and "password" not in k
    }
    draft = store_draft(game_form(game_id), {"action": action, "values": values, "error": message})
    return redirect(url_for("admin.game", game_id=game_id, draft=draft, _anchor="actions"), code=303)


# The actions on a game: each is one object, registered in ACTIONS -----------------------------------

DECISION = re.compile(r"[A-Za-z0-9._:-]{1,40}")


def _form_int(name: str, digits: int = 6) -> int:
    value = request.form.get(name, "")
    if not value.isascii() or not value.isdigit() or len(value) > digits:
        raise ServiceError(N_("%(field)s must be a whole number"), field=name.replace("_", " "))
    return int(value)


def _form_text(name: str) -> str:
    value = request.form.get(name, "")
    return value if len(request.form.getlist(name)) <= 1 else ""


def _seat_arg(view: admin.GameView, name: str = "seat") -> int:
    """A seat number of the form (counted from 1 there), checked against the game; counted from 0."""
    position = _form_int(name, 1) - 1
    if not 0 <= position < len(view.seats):
        raise ServiceError(N_("game %(id)s has no seat %(number)d"), id=view.game.id, number=position + 1)
    return position


@dataclass(frozen=True)
class Action:
    """One action of the game page: ``read`` checks its form (request.form, against the game as it is) and
    gives the service's arguments; ``call`` is the service; ``ask`` is the question a destructive action puts
    first (None: no question); ``done`` turns the service's answer into the message shown after it."""

    read: Callable[[admin.GameView], dict[str, Any]]
    call: Callable[..., Any]
    ask: Callable[[admin.GameView, dict[str, Any]], str] | None = None
    done: Callable[[Any], str | admin.Export] = str


def _nothing(_view: admin.GameView) -> dict[str, Any]:
    return {}


def _resend(view: admin.GameView) -> dict[str, Any]:
    return {"seat": _seat_arg(view)} if request.form.get("seat") else {}


def _reason(_view: admin.GameView) -> dict[str, Any]:
    reason = _form_text("reason")
    if reason.strip():
        checks.check_text(reason, _("the reason"), admin.MAX_REASON)
    return {"reason": reason}


def _new_email(view: admin.GameView) -> dict[str, Any]:
    seat = _seat_arg(view)
    return {"seat": seat, "email": checks.require_email(_form_text("email"), view.seats[seat].name)}


def _hand(view: admin.GameView) -> dict[str, Any]:
    seat = _seat_arg(view)
    kind = _form_text("kind")
    if kind not in games.seat_kinds(view.rules):
        raise ServiceError(N_("a seat is a person or one of the bots (%(bots)s)"), bots=", ".join(view.rules.bots))
    out: dict[str, Any] = {"seat": seat, "kind": kind}
    if kind == games.HUMAN:
        who = view.seats[seat].name
        out["person"] = checks.check_name(_form_text("person"), _("the new player's name"), checks.MAX_PLAYER_NAME)
        out["email"] = checks.require_email(_form_text("email"), who)
        out["language"] = checks.check_language(_form_text("language") or "en")
        out["timezone"] = checks.check_timezone(_form_text("timezone") or "UTC", who)
    return out


def _fill(view: admin.GameView) -> dict[str, Any]:
    """A seat of a game waiting for answers given anew: a person (name, address, language, zone) or a bot."""
    seat = _seat_arg(view)
    kind = _form_text("kind")
    if kind not in games.seat_kinds(view.rules):
        raise ServiceError(_("a seat is a person or one of the bots (%(bots)s)", bots=", ".join(view.rules.bots)))
    out: dict[str, Any] = {"seat": seat, "kind": kind, "name": _form_text("name").strip()}
    if kind == games.HUMAN:
        who = out["name"] or view.seats[seat].name
        out["email"] = checks.require_email(_form_text("email"), who)
        out["language"] = checks.check_language(_form_text("language") or "en")
        out["timezone"] = checks.check_timezone(_form_text("timezone") or "UTC", who)
    return out


def _decision(view: admin.GameView) -> dict[str, Any]:
    decision = _form_text("decision")
    if not DECISION.fullmatch(decision):
        raise ServiceError(N_("the decision must be a short code of letters, digits and dots"))
    seat = _seat_arg(view, "for_seat") if request.form.get("for_seat") else None
    return {"decision": decision, "seat": seat}


def _waited_for(view: admin.GameView, decision: str, seat: int | None) -> admin.Waited:
    """The waited seat a bot decision is for, or a 400 when that decision is not open."""
    found = [w for w in view.waited if w.decision.id == decision and (seat is None or w.seat.position == seat)]
    if len(found) != 1:
        if found:
            raise ServiceError(
                N_("there is no open decision %(code)r for more than one seat: say for which in this game"),
                code=decision,
            )
        raise ServiceError(N_("there is no open decision %(code)r in this game"), code=decision)
    return found[0]


def _ask_bot(view: admin.GameView, args: dict[str, Any]) -> str:
    waited = _waited_for(view, args["decision"], args["seat"])
    if waited.bot_move:
        return _(
            "Let the bot make %(name)s's current decision (%(move)s)? The move cannot be taken back.",
            name=waited.seat.name,
            move=waited.bot_move,
        )
    return _("Let the bot make %(name)s's current decision? The move cannot be taken back.", name=waited.seat.name)


def _ask_reveal(view: admin.GameView, _args: dict[str, Any]) -> str:
    if view.playing is None or not view.hidden:
        raise NotNow(N_("you do not play in this game: its page already shows everything"))
    return _(
        "You play in this game as %(name)s. Show every hand and the hidden cards here, and export "
        "the record with its seed, for the rest of the game? Every player will be told that the organiser (who "
        "also plays) looked at the hidden cards, and when. This cannot be undone.",
        name=view.playing.seat.name,
    )


def _ask_hand(view: admin.GameView, args: dict[str, Any]) -> str:
    name = view.seats[args["seat"]].name
    if args["kind"] == games.HUMAN:
        return _(
            "Give %(name)s's seat to %(person)s (%(email)s)? Every link the seat was sent stops working; "
            "%(person)s gets an invitation to the game under way, and the seat's player is told.",
            name=name,
            person=args["person"],
            email=args["email"],
        )
    return _(
        "Give %(name)s's seat to the %(kind)s bot? Every link the seat was sent stops working.",
        name=name,
        kind=args["kind"],
    )


def _verified(result: tuple[bool, str]) -> str:
    ok, words = result
    if not ok:
        raise NotNow(words)
    return words


def _extend(_view: admin.GameView) -> dict[str, Any]:
    return {"hours": _form_int("hours", 4)}


def _message(_view: admin.GameView) -> dict[str, Any]:
    return {"message_id": _form_int("message", 10)}


ACTIONS: dict[str, Action] = {
    "resend": Action(_resend, admin.resend_turn_email),
    "email": Action(
        _new_email,
        admin.change_email,
        lambda view, a: _(
            "Change %(name)s's email to %(email)s? Every link they were sent stops working; "
            "the new address gets an invitation with a fresh link.",
            name=view.seats[a["seat"]].name,
            email=a["email"],
        ),
    ),
    "hand": Action(_hand, admin.hand_seat, _ask_hand),
    "pause": Action(_reason, admin.pause_game),
    "resume": Action(_nothing, admin.resume_game),
    "extend": Action(_extend, admin.extend_deadline),
    "bot": Action(_decision, admin.bot_decision, _ask_bot),
    "retry": Action(_nothing, admin.retry_dead_emails),
    "hide": Action(_message, admin.hide_message),
    "unhide": Action(_message, admin.show_message),
    "abort": Action(
        _reason,
        admin.abort_game,
        lambda view, _a: _(
            "Abort %(game)s? Nobody can move any more; the game stays readable here. This cannot be undone.",
            game=view.game.name,
        ),
    ),
    "reveal": Action(_nothing, admin.show_hidden, _ask_reveal),
    "export": Action(_nothing, admin.export_record, done=lambda export: export),
    "verify": Action(_nothing, admin.verify, done=_verified),
    "fill": Action(_fill, admin.fill_seat),
    "start": Action(_nothing, admin.start_now),
    "rematch": Action(_nothing, admin.rematch),
}
"""Every action of the game page by the name in its URL (``/admin/games/<id>/<name>``)."""


def _run(game_id: int, action: Action, args: dict[str, Any]) -> str | admin.Export:
    """Call the action's service in one write transaction; what it says (or the download) after."""
    me = actor()
    db.get_session().close()
    with db.write_session() as write:
        return action.done(action.call(session=write, game_id=game_id, actor=me, **args))


_NAMES = ", ".join(ACTIONS)


@bp.post(f"/games/<id:game_id>/<any({_NAMES}):action>")
def act(game_id: int, action: str) -> Any:
    """Run one action on a game (destructive ones after a confirmation page), then show the game again; a refused
    one is shown there too (Post/Redirect/Get), with its message and what was typed."""
    name, chosen = action, ACTIONS[action]
    try:
        view = admin.game_view(session=db.get_session(), game_id=game_id, actor=actor())
        if chosen.ask is not None and request.form.get("confirm") != "yes":
            if not view.running:
                raise NotNow(N_("this game was aborted") if view.status == "aborted" else N_("this game is over"))
            return _confirm(view, name, chosen.ask(view, chosen.read(view)))
        result = _run(game_id, chosen, chosen.read(view))
    except NotFound:
        raise
    except AlreadyPlayed:
        flash(_("That decision was already made; here is the game as it is now."), "notice")
        return redirect(url_for("admin.game", game_id=game_id), code=303)
    except ServiceError as exc:
        return _refused(game_id, name, exc.message)
    forget_draft(game_form(game_id))
    if isinstance(result, admin.Export):
        response = Response(result.text, mimetype="application/json")
        response.headers["Content-Disposition"] = f'attachment; filename="{result.filename}"'
        return response
    flash(result, "done")
    return redirect(url_for("admin.game", game_id=game_id), code=303)


def _confirm(view: admin.GameView, name: str, question: str) -> Any:
    fields = {k: v for k, v in request.form.items() if k not in ("csrf_token", "confirm")}
    return render_template("admin/confirm.html", view=view, action=name, fields=fields, question=question)
