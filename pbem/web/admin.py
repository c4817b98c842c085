"""The admin page: organisers log in, create games, watch them and repair them (thin views over pbem.admin)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, available_timezones

from flask import Blueprint, Response, current_app, flash, redirect, render_template, request, session, url_for
from flask_login import UserMixin, current_user, login_user, logout_user
from flask_wtf import FlaskForm
from limits import RateLimitItem
from limits import parse as parse_limit
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

from .. import admin, db, games, timing
from ..extensions import login_manager
from ..models import AdminUser, utcnow
from .errors import error_page

bp = Blueprint("admin", __name__, url_prefix="/admin")
PUBLIC = ("admin.login",)
"""The only admin endpoint a visitor may reach without logging in."""
DESTRUCTIVE = ("email", "hand", "bot", "abort")
"""Actions that ask for confirmation first."""
LOGIN_KEY = "admin-login"
ACCOUNT_KEY = "admin-login-account"


class LoginUser(UserMixin):  # type: ignore[misc]
    """The logged-in organiser as Flask-Login keeps them: the actor the services record, and the session's id."""

    def __init__(self, user: AdminUser, session_value: str) -> None:
        self.actor = admin.actor_of(user)
        self.session_value = session_value

    def get_id(self) -> str:
        """What the login cookie stores: the server-side session it names (logging out revokes it)."""
        return self.session_value


def _load_user(value: str) -> LoginUser | None:
    user = admin.admin_for_session(session=db.get_session(), value=value)
    return LoginUser(user, value) if user is not None else None


def _unauthorized(message: str = "Log in to use the admin page.") -> BaseResponse:
    target = request.full_path.rstrip("?") if request.method in ("GET", "HEAD") else None
    if request.method != "HEAD":
        flash(message, "notice")
    return redirect(url_for("admin.login", next=safe_next(target)), code=303)


login_manager.user_loader(_load_user)
login_manager.unauthorized_handler(_unauthorized)
login_manager.session_protection = "strong"


def actor() -> admin.Actor:
    """The logged-in organiser."""
    found: admin.Actor = current_user.actor
    return found


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
        return _unauthorized("Your login has expired: please log in again.")
    return None


@bp.app_template_filter("admin_time")
def _when(value: datetime | None) -> str:
    """A time in the organiser's time zone: ``2026-11-21 14:03 CET``."""
    if value is None:
        return "–"
    zone = current_user.actor.timezone if current_user.is_authenticated else "UTC"
    local = value.replace(tzinfo=value.tzinfo or UTC).astimezone(ZoneInfo(zone))
    return local.strftime("%Y-%m-%d %H:%M %Z")


@bp.app_template_filter("admin_ago")
def _ago(value: datetime | None) -> str:
    """How long ago (or, for a future time, how soon): ``3 h ago``, ``in 2 d``."""
    if value is None:
        return "–"
    seconds = (utcnow() - value.replace(tzinfo=value.tzinfo or UTC)).total_seconds()
    future, seconds = seconds < 0, abs(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            amount = f"{int(seconds // size)} {unit}"
            break
    else:
        amount = "moments" if not future else "a moment"
    return f"in {amount}" if future else f"{amount} ago"


# Login ------------------------------------------------------------------------------------------


def safe_next(value: str | None) -> str | None:
    """``value`` if it is a path of this site's admin page, else None (no scheme, host, ``//``, backslash, dots)."""
    if not value or len(value) > 2000:
        return None
    if "\\" in value or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in value):
        return None
    if not value.startswith("/") or value.startswith("//"):
        return None
    parts = urlsplit(value)
    if parts.scheme or parts.netloc:
        return None
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        return None
    if parts.path != "/admin" and not parts.path.startswith("/admin/"):
        return None
    return value


@dataclass(frozen=True)
class _Count:
    """One count of wrong passwords: its limit, its key in the limiter's storage, and whose attempts it counts."""

    item: RateLimitItem
    keys: tuple[str, ...]
    whose: str


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
            "from your address",
        )
    ]
    if isinstance(username, str) and admin.USERNAME.fullmatch(username):
        counts.append(
            _Count(
                parse_limit(current_app.config["ADMIN_LOGIN_ACCOUNT_LIMIT"]),
                (*start, ACCOUNT_KEY, username.lower()),
                "for this login name",
            )
        )
    return counts


def _strategy() -> Any:
    return current_app.extensions["pbem_limiter"].limiter


def _too_many(count: _Count) -> tuple[str, int, list[tuple[str, str]]]:
    reset = _strategy().get_window_stats(count.item, *count.keys).reset_time
    wait = max(1, int(reset - time.time()))
    minutes = -(-wait // 60)
    page, status, headers = error_page(
        429,
        f"Too many wrong passwords in a row {count.whose}. Wait {minutes} minute{'s' if minutes > 1 else ''} "
        "and try again.",
        "Too many login attempts",
    )
    return page, status, [*headers, ("Retry-After", str(wait))]


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """The login form; a POST checks the password, with at most ADMIN_LOGIN_LIMIT wrong ones in a row."""
    target = safe_next(request.values.get("next"))
    if current_user.is_authenticated and request.method == "GET":
        return redirect(target or url_for("admin.index"), code=303)
    if request.method == "GET":
        return render_template("admin/login.html", next=target, error=None, username="")
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
        page = render_template(
            "admin/login.html", next=target, error="Wrong login name or password.", username=username[:64]
        )
        return page, 200
    for count in counts:
        strategy.clear(count.item, *count.keys)
    session.clear()
    login_user(login)
    session["admin_since"] = time.time()
    return redirect(target or url_for("admin.index"), code=303)


@bp.post("/logout")
def logout() -> BaseResponse:
    """Log out (a POST: a link or an image cannot log anyone out); the session ends on the server too."""
    value = current_user.get_id()
    db.get_session().close()
    with db.write_session() as write:
        admin.end_session(session=write, value=value)
    return _logged_out("You are logged out.")


@bp.post("/logout-everywhere")
def logout_everywhere() -> BaseResponse:
    """End every login session of this organiser, on every device (a POST, like logging out)."""
    me = actor()
    db.get_session().close()
    with db.write_session() as write:
        ended = admin.end_all_sessions(session=write, admin_id=me.id)
    return _logged_out(f"You are logged out everywhere ({ended} session{'s' if ended != 1 else ''} ended).")


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
        raise games.ServiceError("the page must be a whole number from 1")
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

_needed = InputRequired("a whole number is needed here")
SEAT_CHOICES = [
    ("none", "No seat"),
    ("human", "A person"),
    ("heuristic", "Bot (heuristic)"),
    ("random", "Bot (random)"),
]
TOO_LONG = "at most %(max)d characters"


def _choices(pairs: list[tuple[str, str]]) -> list[Any]:
    return [SelectChoice(value, label) for value, label in pairs]


class SeatForm(Form):  # type: ignore[misc]
    """One seat of the new-game form."""

    kind = SelectField("Seat", choices=_choices(SEAT_CHOICES), default="none")
    name = StringField("Name", validators=[Length(max=40, message=TOO_LONG)])
    email = StringField("Email", validators=[Length(max=254, message=TOO_LONG)])
    language = StringField("Language", default="en", validators=[Length(max=8, message=TOO_LONG)])
    timezone = StringField("Time zone", default="UTC", validators=[Length(max=64, message=TOO_LONG)])


class NewGameForm(FlaskForm):  # type: ignore[misc]
    """The new-game form: seats, order, options, task cards and the reminder/deadline policy."""

    name = StringField("Name", validators=[InputRequired("the game needs a name"), Length(max=80, message=TOO_LONG)])
    seats = FieldList(FormField(SeatForm), min_entries=admin.MAX_SEATS, max_entries=admin.MAX_SEATS)
    order = RadioField(
        "Seat order", choices=_choices([("listed", "As listed"), ("random", "Random")]), default="listed"
    )
    first_player = SelectField(
        "First player (round 1)",
        choices=_choices([(str(i), f"Seat {i + 1}") for i in range(admin.MAX_SEATS)]),
        default="0",
    )
    rounds = SelectField(
        "Rounds",
        choices=_choices([("", "Standard: 4, or 3 with Imperial Tasks"), *[(str(n), str(n)) for n in range(1, 5)]]),
        default="",
    )
    imperial_tasks = BooleanField("Imperial Tasks (V1)")
    ninja_power = BooleanField("The power of the Ninja (V2)")
    task_table = TextAreaField(
        "Task cards (with Imperial Tasks)",
        default=admin.task_table_text,
        validators=[Length(max=600, message=TOO_LONG)],
    )
    organiser_email = StringField(
        "Organiser's email (told when a game pauses)", validators=[Length(max=254, message=TOO_LONG)]
    )
    first_reminder_hours = IntegerField(
        "First reminder after (hours)", default=24, validators=[_needed, NumberRange(1, timing.MAX_HOURS)]
    )
    reminder_every_hours = IntegerField(
        "Then every (hours)", default=24, validators=[_needed, NumberRange(1, timing.MAX_HOURS)]
    )
    max_reminders = IntegerField(
        "Reminders at most", default=3, validators=[_needed, NumberRange(0, timing.MAX_REMINDERS)]
    )
    deadline_hours = IntegerField(
        "Deadline after (hours; empty: none)",
        default=72,
        validators=[Optional(), NumberRange(1, timing.MAX_DEADLINE_HOURS)],
    )
    timeout = RadioField(
        "At the deadline",
        choices=_choices([("bot", "A bot plays the rest of the late player's turn"), ("pause", "The game pauses")]),
        default="bot",
    )
    absence_cap_days = IntegerField(
        "Time away allowed per player (days)",
        default=14,
        validators=[_needed, NumberRange(0, timing.MAX_ABSENCE_DAYS)],
    )


def _new_game_input(form: NewGameForm) -> admin.NewGame:
    return admin.NewGame(
        name=form.name.data or "",
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
        random_order=form.order.data == "random",
        first_seat=_small(form.first_player.data, -1),
        rounds=_small(form.rounds.data, None),
        imperial_tasks=bool(form.imperial_tasks.data),
        ninja_power=bool(form.ninja_power.data),
        task_table=form.task_table.data or "",
        organiser_email=form.organiser_email.data or "",
        policy={name: form[name].data for name in admin.POLICY_FIELDS},
    )


def _small(value: Any, default: Any) -> Any:
    """A one-digit choice of a select as a number (the form has already said if it is not one of the choices)."""
    return int(value) if isinstance(value, str) and len(value) == 1 and value.isdigit() else default


def _attach(form: NewGameForm, errors: dict[str, str]) -> list[str]:
    """Put each service error next to its field (unless the form already found one there); return the others."""
    general = []
    for key, message in errors.items():
        parts = key.split("-")
        field = None
        if parts[0] == "seats" and len(parts) == 3 and parts[1].isdigit() and int(parts[1]) < len(form.seats):
            field = form.seats[int(parts[1])].form[parts[2]]
        elif key and key != "seats" and key in form:
            field = form[key]
        if field is None:
            general.append(message)
        elif not field.errors:
            field.errors = [message]
    return general


def _trim(form: Any) -> None:
    """Cut text longer than its field allows before showing it again (its error says so)."""
    for field in form:
        if isinstance(field, FieldList):
            for entry in field:
                _trim(entry.form)
            continue
        longest = min((v.max for v in field.validators if isinstance(v, Length) and v.max >= 0), default=None)
        if longest is not None and isinstance(field.data, str) and len(field.data) > longest:
            field.data = field.data[:longest]


def _new_form() -> NewGameForm:
    form = NewGameForm()
    if request.method == "GET":
        for i, entry in enumerate(form.seats):
            entry.form.kind.data = "human" if i < 2 else "none"
        form.organiser_email.data = actor().email or ""
    return form


@bp.route("/games/new", methods=["GET", "POST"])
def new_game() -> Any:
    """The new-game form; a valid POST creates the game (which queues the invitations) and opens its page."""
    form = _new_form()
    general: list[str] = []
    if request.method == "POST":
        valid = form.validate()
        new = _new_game_input(form)
        try:
            admin.check_new_game(new)  # also when the form found problems: every field's message at once
            if valid:
                db.get_session().close()
                with db.write_session() as write:
                    game_id = admin.create_game_from_form(session=write, actor=actor(), new=new).id
                flash(f"Game {game_id} is created; the invitations are on their way.", "done")
                return redirect(url_for("admin.game", game_id=game_id), code=303)
        except admin.InputErrors as exc:
            general = _attach(form, exc.errors)
        except games.ServiceError as exc:
            general = [exc.message]
        _trim(form)
        page = render_template("admin/new_game.html", form=form, general=general, zones=_zones())
        return page, 400
    return render_template("admin/new_game.html", form=form, general=general, zones=_zones())


def _zones() -> list[str]:
    return [*sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/"))), "UTC"]


# One game ---------------------------------------------------------------------------------------


def _game_page(game_id: int, error: str | None = None, status: int = 200) -> Any:
    try:
        view = admin.game_view(session=db.get_session(), game_id=game_id)
    except games.GameNotFound as exc:
        return error_page(404, exc.message)
    page = render_template(
        "admin/game.html", view=view, error=error, kinds=SEAT_CHOICES[1:], zones=_zones(), now=utcnow()
    )
    return page, status


@bp.get("/games/<id:game_id>")
def game(game_id: int) -> Any:
    """The organiser's view of one game: every hand, the score sheets, the log, the emails and the actions."""
    return _game_page(game_id)


def _form_int(name: str, digits: int = 6) -> int:
    value = request.form.get(name, "")
    if not value.isascii() or not value.isdigit() or len(value) > digits:
        raise games.ServiceError(f"{name.replace('_', ' ')} must be a whole number")
    return int(value)


def _seat_arg() -> int:
    return _form_int("seat", 1) - 1


def _form_text(name: str) -> str:
    value = request.form.get(name, "")
    return value if len(request.form.getlist(name)) <= 1 else ""


def _run(game_id: int, action: str) -> str | admin.Export:
    """Call the service of ``action`` in one write transaction."""
    me = actor()
    calls: dict[str, Callable[[Any], str | admin.Export]] = {
        "resend": lambda s: admin.resend_turn_email(session=s, game_id=game_id, actor=me),
        "email": lambda s: admin.change_email(
            session=s, game_id=game_id, seat=_seat_arg(), email=_form_text("email"), actor=me
        ),
        "hand": lambda s: admin.hand_seat(
            session=s,
            game_id=game_id,
            seat=_seat_arg(),
            kind=_form_text("kind"),
            email=_form_text("email"),
            language=_form_text("language") or "en",
            timezone=_form_text("timezone") or "UTC",
            actor=me,
        ),
        "pause": lambda s: admin.pause_game(session=s, game_id=game_id, reason=_form_text("reason"), actor=me),
        "resume": lambda s: admin.resume_game(session=s, game_id=game_id, actor=me),
        "extend": lambda s: admin.extend_deadline(session=s, game_id=game_id, hours=_form_int("hours", 4), actor=me),
        "bot": lambda s: admin.bot_decision(session=s, game_id=game_id, decision=_form_int("decision", 9), actor=me),
        "retry": lambda s: admin.retry_dead_emails(session=s, game_id=game_id, actor=me),
        "hide": lambda s: admin.hide_message(session=s, game_id=game_id, message_id=_form_int("message", 10), actor=me),
        "abort": lambda s: admin.abort_game(session=s, game_id=game_id, reason=_form_text("reason"), actor=me),
        "export": lambda s: admin.export_record(session=s, game_id=game_id, actor=me),
        "verify": lambda s: _verified(admin.verify(session=s, game_id=game_id, actor=me)),
    }
    db.get_session().close()
    with db.write_session() as write:
        return calls[action](write)


def _verified(result: tuple[bool, str]) -> str:
    ok, words = result
    if not ok:
        raise admin.NotNow(words)
    return words


def _precheck(game_id: int, action: str) -> None:
    """Check a destructive action's input before asking for confirmation."""
    if action in ("email", "hand"):
        seats = games.seats_of(session=db.get_session(), game_id=game_id)
        position = _seat_arg()
        if not 0 <= position < len(seats):
            raise games.ServiceError(f"game {game_id} has no seat {position + 1}")
        kind = _form_text("kind") if action == "hand" else "human"
        if kind not in games.seat_kinds(engine.GAMES[games.DEFAULT_GAME]):
            raise games.ServiceError("a seat is a person or one of the bots")
        if kind == "human":
            who = seats[position].name
            admin.require_email(_form_text("email"), who)
            if action == "hand":
                admin.check_language(_form_text("language") or "en")
                admin.check_timezone(_form_text("timezone") or "UTC", who)
    if action == "bot":
        _form_int("decision", 9)
    if action == "abort" and _form_text("reason").strip():
        games.check_text(_form_text("reason"), "the reason", admin.MAX_REASON)


ACTIONS = "resend, email, hand, pause, resume, extend, bot, retry, hide, abort, export, verify"


@bp.post(f"/games/<id:game_id>/<any({ACTIONS}):action>")
def act(game_id: int, action: str) -> Any:
    """Run one action on a game (destructive ones after a confirmation page), then show the game again."""
    try:
        games.get_game(session=db.get_session(), game_id=game_id)
        if action in DESTRUCTIVE and request.form.get("confirm") != "yes":
            _precheck(game_id, action)
            return _confirm(game_id, action)
        result = _run(game_id, action)
    except games.GameNotFound as exc:
        return error_page(404, exc.message)
    except games.AlreadyPlayed:
        flash("That decision was already made; here is the game as it is now.", "notice")
        return redirect(url_for("admin.game", game_id=game_id), code=303)
    except games.ServiceError as exc:
        return _game_page(game_id, error=exc.message, status=exc.status)
    if isinstance(result, admin.Export):
        response = Response(result.text, mimetype="application/json")
        response.headers["Content-Disposition"] = f'attachment; filename="{result.filename}"'
        return response
    flash(result, "done")
    return redirect(url_for("admin.game", game_id=game_id), code=303)


def _confirm(game_id: int, action: str) -> Any:
    view = admin.game_view(session=db.get_session(), game_id=game_id)
    if not view.running:
        raise admin.NotNow("this game was aborted" if view.status == "aborted" else "this game is over")
    fields = {k: v for k, v in request.form.items() if k not in ("csrf_token", "confirm")}
    seat = view.seats[_seat_arg()] if action in ("email", "hand") else None  # in range: _precheck saw to it
    return render_template("admin/confirm.html", view=view, action=action, fields=fields, seat=seat)
