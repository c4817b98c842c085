"""The admin page: organisers log in, create games, watch them and repair them (thin views over pbem.admin)."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import available_timezones

from flask import Blueprint, Response, current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import LazyString, gettext
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext as _ngettext
from flask_login import UserMixin, current_user, login_user, logout_user
from flask_wtf import FlaskForm
from limits import RateLimitItem
from limits import parse as parse_limit
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers.response import Response as BaseResponse
from wtforms import (  # type: ignore[import-untyped]
    BooleanField,
    FieldList,
    Form,
    FormField,
    IntegerField,
    RadioField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional  # type: ignore[import-untyped]

import engine
from engine.protocol import Game as Rules
from engine.protocol import OptionField

from .. import admin, config, db, games, i18n, timing
from ..extensions import login_manager
from ..models import AdminUser, utcnow
from . import security
from .errors import error_page

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext

bp = Blueprint("admin", __name__, url_prefix="/admin")
PUBLIC = ("admin.login",)
"""The only admin endpoint a visitor may reach without logging in."""
LOGIN_KEY = "admin-login"
ACCOUNT_KEY = "admin-login-account"


class LoginUser(UserMixin):  # type: ignore[misc]
    """The logged-in organiser as Flask-Login keeps them: the actor the services record, and the session's id."""

    def __init__(self, user: AdminUser, session_value: str) -> None:
        self.actor = admin.actor_of(user)
        self.language = user.language
        self.session_value = session_value

    def get_id(self) -> str:
        """What the login cookie stores: the server-side session it names (logging out revokes it)."""
        return self.session_value


def _load_user(value: str) -> LoginUser | None:
    user = admin.admin_for_session(session=db.get_session(), value=value)
    return LoginUser(user, value) if user is not None else None


def _unauthorized(message: str | None = None) -> BaseResponse:
    target = request.full_path.rstrip("?") if request.method in ("GET", "HEAD") else None
    if request.method != "HEAD":
        flash(message or _("Log in to use the admin page."), "notice")
    return redirect(url_for("admin.login", next=safe_next(target)), code=303)


login_manager.user_loader(_load_user)
login_manager.unauthorized_handler(_unauthorized)
login_manager.session_protection = "strong"


def actor() -> admin.Actor:
    """The logged-in organiser."""
    found: admin.Actor = current_user.actor
    return found


@bp.context_processor
def _organiser() -> dict[str, Any]:
    """``current_user`` for the admin templates, loaded only when one of them asks."""
    return {"current_user": current_user}


@bp.before_request
def _require_login() -> BaseResponse | None:
    """Every admin page needs a login that is younger than ADMIN_SESSION_HOURS (except the login page itself)."""
    if request.endpoint in PUBLIC:
        return None
    if not current_user.is_authenticated:
        return _unauthorized()
    since = session.get("admin_since")
    if not isinstance(since, (int, float)) or time.time() - since > current_app.config["ADMIN_SESSION_HOURS"] * 3600:
        logout_user()
        session.clear()
        return _unauthorized(_("Your login has expired: please log in again."))
    i18n.use(current_user.language, current_user.actor.timezone)
    return None


@bp.app_template_filter("admin_time")
def _when(value: datetime | None) -> str:
    """A time in the organiser's time zone: ``Saturday 21 November 2026, 14:03 (Europe/Amsterdam)``."""
    if value is None:
        return "–"
    return timing.local_datetime(value, current_user.actor.timezone if current_user.is_authenticated else "UTC")


@bp.app_template_filter("admin_ago")
def _ago(value: datetime | None) -> str:
    """How long ago (or, for a future time, how soon): ``3 h ago``, ``in 2 d``."""
    if value is None:
        return "–"
    seconds = (utcnow() - value.replace(tzinfo=value.tzinfo or UTC)).total_seconds()
    future, seconds = seconds < 0, abs(seconds)
    days, hours, minutes = int(seconds // 86400), int(seconds // 3600), int(seconds // 60)
    if days:
        return _("in %(num)d d", num=days) if future else _("%(num)d d ago", num=days)
    if hours:
        return _("in %(num)d h", num=hours) if future else _("%(num)d h ago", num=hours)
    if minutes:
        return _("in %(num)d min", num=minutes) if future else _("%(num)d min ago", num=minutes)
    return _("in a moment") if future else _("moments ago")


# Login ------------------------------------------------------------------------------------------


def safe_next(value: str | None) -> str | None:
    """``value`` if it is a path of this site's admin page (``security.local_path``), else None."""
    path = security.local_path(value)
    if path is None:
        return None
    where = urlsplit(path).path
    return path if where == "/admin" or where.startswith("/admin/") else None


@dataclass(frozen=True)
class _Count:
    """One count of wrong passwords: its limit, its key in the limiter's storage, and whose attempts it counts."""

    item: RateLimitItem
    keys: tuple[str, ...]
    whose: str
    """Which count it is: ``address`` or ``account``."""


def _counts(username: Any) -> list[_Count]:
    """The counts a login attempt adds to: the client's address and, for a well-formed login name, that account.

    The address is the one werkzeug's ProxyFix found when PROXY_FIX names the trusted proxies, else the peer's.
    """
    prefix = str(current_app.config["RATELIMIT_KEY_PREFIX"])
    start = (prefix,) if prefix else ()
    counts = [
        _Count(
            parse_limit(current_app.config["ADMIN_LOGIN_LIMIT"]),
            (*start, LOGIN_KEY, request.remote_addr or "unknown"),
            "address",
        )
    ]
    if isinstance(username, str) and admin.USERNAME.fullmatch(username):
        counts.append(
            _Count(
                parse_limit(current_app.config["ADMIN_LOGIN_ACCOUNT_LIMIT"]),
                (*start, ACCOUNT_KEY, username.lower()),
                "account",
            )
        )
    return counts


def _strategy() -> Any:
    return current_app.extensions["pbem_limiter"].limiter


def _too_many(count: _Count) -> tuple[str, int, list[tuple[str, str]]]:
    reset = _strategy().get_window_stats(count.item, *count.keys).reset_time
    wait = max(1, int(reset - time.time()))
    minutes = -(-wait // 60)
    if count.whose == "address":
        message = ngettext(
            "Too many wrong passwords in a row from your address. Wait %(num)d minute and try again.",
            "Too many wrong passwords in a row from your address. Wait %(num)d minutes and try again.",
            minutes,
        )
    else:
        message = ngettext(
            "Too many wrong passwords in a row for this login name. Wait %(num)d minute and try again.",
            "Too many wrong passwords in a row for this login name. Wait %(num)d minutes and try again.",
            minutes,
        )
    page, status, headers = error_page(429, message, _("Too many login attempts"))
    return page, status, [*headers, ("Retry-After", str(wait))]


LOGIN_FORM = "login"


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """The login form; a POST checks the password, with at most ADMIN_LOGIN_LIMIT wrong ones in a row. A wrong
    one redirects to this form's GET, which shows the error and the login name (never the password)."""
    target = safe_next(request.values.get("next"))
    if current_user.is_authenticated and request.method == "GET":
        return redirect(target or url_for("admin.index"), code=303)
    if request.method == "GET":
        draft = _draft(LOGIN_FORM)
        error, username = (draft.get("error"), draft.get("username", "")) if draft else (None, "")
        return render_template("admin/login.html", next=target, error=error, username=username)
    username = request.form.get("username", "")
    password = request.form.get("password", "")
    strategy, counts = _strategy(), _counts(username)
    # Counted before the password is checked, so parallel attempts cannot slip past the limit; a success clears it.
    for count in counts:
        if not strategy.hit(count.item, *count.keys):
            return _too_many(count)
    db.get_session().close()
    with db.write_session() as write:
        user = admin.authenticate(session=write, username=username, password=password)
        login = LoginUser(user, admin.start_session(session=write, user=user)) if user is not None else None
    if login is None:
        for count in counts:
            if not strategy.test(count.item, *count.keys):
                return _too_many(count)
        kept = _store(LOGIN_FORM, {"error": _("Wrong login name or password."), "username": username[:64]})
        return redirect(url_for("admin.login", next=target, draft=kept), code=303)
    for count in counts:
        strategy.clear(count.item, *count.keys)
    session.clear()
    login_user(login)
    session["admin_since"] = time.time()
    return redirect(target or url_for("admin.index"), code=303)


@bp.post("/language")
def language() -> Any:
    """Store the language the admin area speaks to the logged-in organiser (the switch of the admin pages), then
    go back to the page it was on."""
    me = actor()
    db.get_session().close()
    try:
        with db.write_session() as write:
            admin.set_language(session=write, admin_id=me.id, language=request.form.get("lang", ""))
    except games.ServiceError as exc:
        return error_page(400, exc.message)
    return redirect(safe_next(request.form.get("next")) or url_for("admin.index"), code=303)


@bp.post("/logout")
def logout() -> BaseResponse:
    """Log out (a POST: a link or an image cannot log anyone out); the session ends on the server too."""
    value = current_user.get_id()
    db.get_session().close()
    with db.write_session() as write:
        admin.end_session(session=write, value=value)
    return _logged_out(_("You are logged out."))


@bp.post("/logout-everywhere")
def logout_everywhere() -> BaseResponse:
    """End every login session of this organiser, on every device (a POST, like logging out)."""
    me = actor()
    db.get_session().close()
    with db.write_session() as write:
        ended = admin.end_all_sessions(session=write, admin_id=me.id)
    return _logged_out(
        ngettext(
            "You are logged out everywhere (%(num)d session ended).",
            "You are logged out everywhere (%(num)d sessions ended).",
            ended,
        )
    )


def _logged_out(message: str) -> BaseResponse:
    logout_user()
    session.clear()
    flash(message, "done")
    return redirect(url_for("admin.login"), code=303)


# The games list ---------------------------------------------------------------------------------


def _page_number(value: str | None) -> int:
    if value is None or value == "":
        return 1
    if not value.isascii() or not value.isdigit() or len(value) > 6 or int(value) < 1:
        raise games.ServiceError(_("the page must be a whole number from 1"))
    return int(value)


@bp.get("/")
def index() -> Any:
    """The games, newest first, filtered by status and "needs attention", a page at a time."""
    status = request.args.get("status") or None
    try:
        listing = admin.list_games(
            session=db.get_session(),
            now=utcnow(),
            status=status,
            attention=request.args.get("attention") == "1",
            page=_page_number(request.args.get("page")),
            per_page=current_app.config["ADMIN_GAMES_PER_PAGE"],
        )
    except games.ServiceError as exc:
        return error_page(400, exc.message)
    return render_template("admin/games.html", listing=listing, statuses=admin.STATUSES, now=utcnow())


# Creating a game --------------------------------------------------------------------------------

_needed = InputRequired(_l("a whole number is needed here"))
TOO_LONG = _l("at most %(max)d characters")
PLAYER_HINT = _l("Counted in the list of seats above; with a random order, that player keeps it.")


def _choices(pairs: list[tuple[str, str]]) -> list[Any]:
    return [SelectChoice(value, label) for value, label in pairs]


def seat_choices(rules: Rules) -> list[tuple[str, str]]:
    """What a seat of this game may be, as the form offers it: a person, or each of the game's bots."""
    return [("human", _l("A person")), *((kind, _l("Bot (%(kind)s)", kind=kind)) for kind in rules.bots)]


def _option_field(rules: Rules, option: OptionField) -> Any:
    """The form field of one of the game's options, by its kind."""
    if option.kind == "bool":
        return BooleanField(option.label, default=bool(option.default), description=option.help)
    if option.kind == "text":
        return TextAreaField(
            option.label,
            default="" if option.default is None else str(option.default),
            validators=[Length(max=admin.MAX_OPTION_TEXT, message=TOO_LONG)],
            description=option.help,
        )
    if option.kind == "player":
        seats = [
            ("", _l("Default")),
            *((str(i), _l("Seat %(number)d", number=i + 1)) for i in range(rules.max_players)),
        ]
        given = option.help
        help = LazyString(lambda: f"{given}. {PLAYER_HINT}") if given else PLAYER_HINT
        return SelectField(option.label, choices=_choices(seats), default="", description=help)
    if option.choices:
        default = "" if option.default is None else str(option.default)
        return SelectField(
            option.label, choices=_choices(list(option.choices)), default=default, description=option.help
        )
    return StringField(
        option.label,
        default="" if option.default is None else str(option.default),
        validators=[Length(max=admin.MAX_OPTION_TEXT, message=TOO_LONG)],
        description=option.help,
    )


class NewGameBase(FlaskForm):  # type: ignore[misc]
    """The parts of the new-game form every game shares: its name, the seat order and the reminder policy."""

    name = StringField(
        _l("Name"), validators=[InputRequired(_l("the game needs a name")), Length(max=80, message=TOO_LONG)]
    )
    order = RadioField(
        _l("Seat order"), choices=_choices([("listed", _l("As listed")), ("random", _l("Random"))]), default="listed"
    )
    organiser_email = StringField(
        _l("Organiser's email (told when a game pauses)"), validators=[Length(max=254, message=TOO_LONG)]
    )
    first_reminder_hours = IntegerField(
        _l("First reminder after (hours)"), default=24, validators=[_needed, NumberRange(1, timing.MAX_HOURS)]
    )
    reminder_every_hours = IntegerField(
        _l("Then every (hours)"), default=24, validators=[_needed, NumberRange(1, timing.MAX_HOURS)]
    )
    max_reminders = IntegerField(
        _l("Reminders at most"), default=3, validators=[_needed, NumberRange(0, timing.MAX_REMINDERS)]
    )
    deadline_hours = IntegerField(
        _l("Deadline after (hours; empty: none)"),
        default=72,
        validators=[Optional(), NumberRange(1, timing.MAX_DEADLINE_HOURS)],
    )
    timeout = RadioField(
        _l("At the deadline"),
        choices=_choices([("bot", _l("A bot makes the late player's decisions")), ("pause", _l("The game pauses"))]),
        default="bot",
    )
    absence_cap_days = IntegerField(
        _l("Time away allowed per player (days)"),
        default=14,
        validators=[_needed, NumberRange(0, timing.MAX_ABSENCE_DAYS)],
    )


def new_game_form(key: str) -> type[NewGameBase]:
    """The new-game form of one game: as many seat rows as it has players at most, and a field per option (its
    labels in the current language)."""
    return _new_game_form(key, i18n.current())


@cache
def _new_game_form(key: str, lang: str) -> type[NewGameBase]:
    """``new_game_form`` in ``lang`` (the language ``games.rules_of`` speaks now), made once per game and language."""
    rules = games.rules_of(key)
    kinds = [("none", _l("No seat")), *seat_choices(rules)]

    class SeatForm(Form):  # type: ignore[misc]
        """One seat of the new-game form."""

        kind = SelectField(_l("Seat"), choices=_choices(kinds), default="none")
        name = StringField(_l("Name"), validators=[Length(max=games.MAX_PLAYER_NAME, message=TOO_LONG)])
        email = StringField(_l("Email"), validators=[Length(max=games.MAX_EMAIL, message=TOO_LONG)])
        language = SelectField(
            _l("Language"), choices=_choices(list(i18n.NAMES.items())), default=i18n.current, validate_choice=False
        )
        timezone = StringField(_l("Time zone"), default="UTC", validators=[Length(max=64, message=TOO_LONG)])

    options = type("OptionsForm", (Form,), {o.name: _option_field(rules, o) for o in rules.option_fields})
    fields = {
        "seats": FieldList(FormField(SeatForm), min_entries=rules.max_players, max_entries=rules.max_players),
        "options": FormField(options, separator="-"),
    }
    return type(f"NewGameForm[{key}]", (NewGameBase,), fields)


def _new_game_input(key: str, form: NewGameBase) -> admin.NewGame:
    return admin.NewGame(
        name=form.name.data or "",
        game=key,
        seats=[
            admin.SeatInput(
                kind=entry.form.kind.data,
                name=entry.form.name.data or "",
                email=entry.form.email.data or "",
                language=entry.form.language.data or "",
                timezone=entry.form.timezone.data or "",
            )
            for entry in form.seats
        ],
        options={f.short_name: f.data if isinstance(f.data, bool) else (f.data or "") for f in form.options.form},
        random_order=form.order.data == "random",
        organiser_email=form.organiser_email.data or "",
        policy={name: form[name].data for name in admin.POLICY_FIELDS},
    )


def _attach(form: NewGameBase, errors: dict[str, str]) -> list[str]:
    """Put each service error next to its field (unless the form already found one there); return the others."""
    general = []
    options = form.options.form
    for key, message in errors.items():
        parts = key.split("-")
        field = None
        if parts[0] == "seats" and len(parts) == 3 and parts[1].isdigit() and int(parts[1]) < len(form.seats):
            field = form.seats[int(parts[1])].form[parts[2]]
        elif key and key in options:
            field = options[key]
        elif key and key not in ("seats", "options") and key in form:
            field = form[key]
        if field is None:
            general.append(message)
        elif not field.errors:
            field.errors = [message]
    return general


def _leaves(form: Any) -> list[Any]:
    """Every input field of a form, inside its lists of seats and its options too (not the CSRF token)."""
    out: list[Any] = []
    for field in form:
        if isinstance(field, FieldList):
            for entry in field:
                out += _leaves(entry.form)
        elif isinstance(field, FormField):
            out += _leaves(field.form)
        elif field.type != "CSRFTokenField":
            out.append(field)
    return out


def _longest(field: Any) -> int | None:
    return min((v.max for v in field.validators if isinstance(v, Length) and v.max >= 0), default=None)


def _trim(form: Any) -> None:
    """Cut text longer than its field allows before showing it again (its error says so)."""
    for field in _leaves(form):
        longest = _longest(field)
        if longest is not None and isinstance(field.data, str) and len(field.data) > longest:
            field.data = field.data[:longest]


# Post/Redirect/Get: a refused form is kept in the session and shown by a GET, so a reload posts nothing ----------

DRAFTS = "admin-drafts"
DRAFT_TEXT = 600
"""The longest value a kept form holds for a field without a length of its own (a number, a choice …)."""
MAX_DRAFTS = 4
"""Refused forms kept at once in a session (the new-game form, the actions of a few games)."""


def _keep(name: str, form: Any, general: list[str]) -> str:
    """Keep a refused form's values (cut to their fields' lengths) and its errors in the session, as the draft of
    form ``name`` (one per form, replacing the last); its id, for the URL of the GET that shows it. The CSRF token
    is not kept, nor any password."""
    values: list[tuple[str, str]] = []
    errors: dict[str, list[str]] = {}
    for field in _leaves(form):
        if "password" in field.name:
            continue
        longest = _longest(field) or DRAFT_TEXT
        values += [(field.name, str(raw)[:longest]) for raw in (field.raw_data or ())[:1]]
        if field.errors:
            errors[field.name] = [str(e) for e in field.errors if isinstance(e, str | LazyString)]
    return _store(name, {"values": values, "errors": errors, "general": general})


def _store(name: str, draft: dict[str, Any]) -> str:
    """Keep ``draft`` as form ``name``'s (at most MAX_DRAFTS forms at once); the id the GET's URL names it by."""
    draft_id = secrets.token_urlsafe(8)
    drafts = {k: v for k, v in dict(session.get(DRAFTS) or {}).items() if k != name}
    while len(drafts) >= MAX_DRAFTS:
        drafts.pop(next(iter(drafts)))
    drafts[name] = {"id": draft_id, **draft}
    session[DRAFTS] = drafts
    return draft_id


def _draft(name: str) -> dict[str, Any] | None:
    """The kept draft of form ``name`` that this GET's ``?draft=`` names, or None (then the form starts afresh)."""
    wanted = request.args.get("draft")
    found = (session.get(DRAFTS) or {}).get(name)
    if not wanted or not isinstance(found, dict) or found.get("id") != wanted:
        return None
    return found


def _forget(name: str) -> None:
    drafts = dict(session.get(DRAFTS) or {})
    if drafts.pop(name, None) is not None:
        session[DRAFTS] = drafts


def _restore(form: Any, draft: dict[str, Any]) -> list[str]:
    """Put a draft's errors next to their fields of ``form`` (built from its values); its other messages."""
    fields = {f.name: f for f in _leaves(form)}
    for key, messages in draft.get("errors", {}).items():
        if key in fields:
            fields[key].errors = list(messages)
    return list(draft.get("general", []))


def _game_key() -> str:
    key = request.values.get("game") or games.DEFAULT_GAME
    if key not in engine.GAMES:
        raise games.GameNotFound(_("this server does not know the game %(key)r", key=key[:60]))
    return key


def _offer_files(form: NewGameBase, key: str) -> NewGameBase:
    """Add to each option that takes files the files of the server's folder for this game, read now."""
    rules = games.rules_of(key)
    folder = config.game_files(current_app)
    for spec in rules.option_fields:
        found = games.game_files(folder, rules, spec)
        if found:
            field = form.options.form[spec.name]
            offered = [(games.FILE_PREFIX + name, gettext("%(name)s (file)", name=name)) for name in found]
            field.choices = [*field.choices, *_choices(offered)]
    return form


def _new_form(key: str) -> NewGameBase:
    form = _offer_files(new_game_form(key)(), key)
    if request.method != "POST":
        for i, entry in enumerate(form.seats):
            entry.form.kind.data = "human" if i < engine.GAMES[key].min_players else "none"
        form.organiser_email.data = actor().email or ""
    return form


def _new_game_page(key: str, form: NewGameBase, general: list[str]) -> Any:
    rules = games.rules_of(key)
    page = render_template(
        "admin/new_game.html",
        form=form,
        general=general,
        zones=_zones(),
        game=rules,
        players=admin.players_text(rules),
        choices=admin.game_choices(),
    )
    return page, 200


NEW_GAME = "new_game"


@bp.route("/games/new", methods=["GET", "POST"])
def new_game() -> Any:
    """The new-game form of the chosen game (``?game=``, the default game if none); a valid POST creates the game
    (which queues the invitations) and opens its page. A refused POST is kept and shown by a GET (``?draft=``),
    with each error next to its field, so reloading that page posts nothing."""
    try:
        key = _game_key()
    except games.GameNotFound as exc:
        return error_page(404, exc.message)
    if request.method != "POST":
        draft = _draft(NEW_GAME)
        if draft is None:
            return _new_game_page(key, _new_form(key), [])
        form = _offer_files(new_game_form(key)(formdata=MultiDict(draft["values"])), key)
        return _new_game_page(key, form, _restore(form, draft))
    form = _new_form(key)
    general: list[str] = []
    valid = form.validate()
    new = _new_game_input(key, form)
    try:
        admin.check_new_game(new)  # also when the form found problems: every field's message at once
        if valid:
            db.get_session().close()
            with db.write_session() as write:
                game_id = admin.create_game_from_form(session=write, actor=actor(), new=new).id
            _forget(NEW_GAME)
            flash(_("Game %(id)d is created; the invitations are on their way.", id=game_id), "done")
            return redirect(url_for("admin.game", game_id=game_id), code=303)
    except admin.InputErrors as exc:
        general = _attach(form, exc.errors)
    except games.ServiceError as exc:
        general = [exc.message]
    _trim(form)
    return redirect(url_for("admin.new_game", game=key, draft=_keep(NEW_GAME, form, general)), code=303)


def _zones() -> list[str]:
    return [*sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/"))), "UTC"]


# One game ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _SeatBoard:
    """What the game's player board partial reads from its ``page`` when an organiser who plays sees their seat."""

    game: Any
    rules: Rules
    seats: list[Any]
    seat: Any


def _game_page(game_id: int) -> Any:
    try:
        view = admin.game_view(session=db.get_session(), game_id=game_id, actor=actor())
    except games.GameNotFound as exc:
        return error_page(404, exc.message)
    draft = _draft(_game_form(game_id))
    key = view.rules.key
    mine = view.playing.seat if view.hidden and view.playing is not None else None
    page = render_template(
        "admin/game.html",
        view=view,
        error=draft["error"] if draft else None,
        kept=draft,
        kinds=seat_choices(view.rules),
        zones=_zones(),
        now=utcnow(),
        board=[f"games/{key}/admin_board.html", "admin/_board.html"],
        seat_board=[f"games/{key}/board.html", "games/_default/board.html"],
        page=None if mine is None else _SeatBoard(view.game, view.rules, view.seats, mine),
        milestones=[f"games/{key}/admin_milestones.html", "admin/_milestones.html"],
    )
    return page, 200


def _game_form(game_id: int) -> str:
    """The name a refused action of a game's page is kept under."""
    return f"game-{game_id}"


KEPT_FIELDS = 8
"""The fields of a refused action kept for the page that shows it again (its forms have fewer)."""


def _refused(game_id: int, action: str, message: str) -> BaseResponse:
    """Keep a refused action (its name, what was typed, the message) and redirect to the game's page, which shows
    them: a reload of that page posts nothing again."""
    values = {
        k: v[:DRAFT_TEXT]
        for k, v in list(request.form.items())[:KEPT_FIELDS]
        if k not in ("csrf_token", "confirm") and "password" not in k
    }
    draft = _store(_game_form(game_id), {"action": action, "values": values, "error": message})
    return redirect(url_for("admin.game", game_id=game_id, draft=draft, _anchor="actions"), code=303)


@bp.get("/games/<id:game_id>")
def game(game_id: int) -> Any:
    """The organiser's view of one game: everything hidden, the milestones, the log, the emails and the actions."""
    return _game_page(game_id)


# The actions on a game: each is one object, registered in ACTIONS -----------------------------------

DECISION = re.compile(r"[A-Za-z0-9._:-]{1,40}")


def _form_int(name: str, digits: int = 6) -> int:
    value = request.form.get(name, "")
    if not value.isascii() or not value.isdigit() or len(value) > digits:
        raise games.ServiceError(_("%(field)s must be a whole number", field=name.replace("_", " ")))
    return int(value)


def _form_text(name: str) -> str:
    value = request.form.get(name, "")
    return value if len(request.form.getlist(name)) <= 1 else ""


def _seat_arg(view: admin.GameView, name: str = "seat") -> int:
    """A seat number of the form (counted from 1 there), checked against the game; counted from 0."""
    position = _form_int(name, 1) - 1
    if not 0 <= position < len(view.seats):
        raise games.ServiceError(_("game %(id)s has no seat %(number)d", id=view.game.id, number=position + 1))
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


def _reason(_view: admin.GameView) -> dict[str, Any]:
    reason = _form_text("reason")
    if reason.strip():
        games.check_text(reason, _("the reason"), admin.MAX_REASON)
    return {"reason": reason}


def _new_email(view: admin.GameView) -> dict[str, Any]:
    seat = _seat_arg(view)
    return {"seat": seat, "email": admin.require_email(_form_text("email"), view.seats[seat].name)}


def _hand(view: admin.GameView) -> dict[str, Any]:
    seat = _seat_arg(view)
    kind = _form_text("kind")
    if kind not in games.seat_kinds(view.rules):
        raise games.ServiceError(_("a seat is a person or one of the bots (%(bots)s)", bots=", ".join(view.rules.bots)))
    out: dict[str, Any] = {"seat": seat, "kind": kind}
    if kind == games.HUMAN:
        who = view.seats[seat].name
        out["email"] = admin.require_email(_form_text("email"), who)
        out["language"] = admin.check_language(_form_text("language") or "en")
        out["timezone"] = admin.check_timezone(_form_text("timezone") or "UTC", who)
    return out


def _decision(view: admin.GameView) -> dict[str, Any]:
    decision = _form_text("decision")
    if not DECISION.fullmatch(decision):
        raise games.ServiceError(_("the decision must be a short code of letters, digits and dots"))
    seat = _seat_arg(view, "for_seat") if request.form.get("for_seat") else None
    return {"decision": decision, "seat": seat}


def _waited_for(view: admin.GameView, decision: str, seat: int | None) -> admin.Waited:
    """The waited seat a bot decision is for, or a 400 when that decision is not open."""
    found = [w for w in view.waited if w.decision.id == decision and (seat is None or w.seat.position == seat)]
    if len(found) != 1:
        if found:
            raise games.ServiceError(
                _(
                    "there is no open decision %(code)r for more than one seat: say for which in this game",
                    code=decision,
                )
            )
        raise games.ServiceError(_("there is no open decision %(code)r in this game", code=decision))
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
        raise admin.NotNow(_("you do not play in this game: its page already shows everything"))
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
            "Give %(name)s's seat to %(email)s? Every link the seat was sent stops working.",
            name=name,
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
        raise admin.NotNow(words)
    return words


def _extend(_view: admin.GameView) -> dict[str, Any]:
    return {"hours": _form_int("hours", 4)}


def _message(_view: admin.GameView) -> dict[str, Any]:
    return {"message_id": _form_int("message", 10)}


ACTIONS: dict[str, Action] = {
    "resend": Action(_nothing, admin.resend_turn_email),
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
                raise admin.NotNow(_("this game was aborted") if view.status == "aborted" else _("this game is over"))
            return _confirm(view, name, chosen.ask(view, chosen.read(view)))
        result = _run(game_id, chosen, chosen.read(view))
    except games.GameNotFound as exc:
        return error_page(404, exc.message)
    except games.AlreadyPlayed:
        flash(_("That decision was already made; here is the game as it is now."), "notice")
        return redirect(url_for("admin.game", game_id=game_id), code=303)
    except games.ServiceError as exc:
        return _refused(game_id, name, exc.message)
    _forget(_game_form(game_id))
    if isinstance(result, admin.Export):
        response = Response(result.text, mimetype="application/json")
        response.headers["Content-Disposition"] = f'attachment; filename="{result.filename}"'
        return response
    flash(result, "done")
    return redirect(url_for("admin.game", game_id=game_id), code=303)


def _confirm(view: admin.GameView, name: str, question: str) -> Any:
    fields = {k: v for k, v in request.form.items() if k not in ("csrf_token", "confirm")}
    return render_template("admin/confirm.html", view=view, action=name, fields=fields, question=question)
