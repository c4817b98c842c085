"""The new-game form: any game of ``engine.GAMES``, its seats, its options and the reminder policy."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from flask import current_app, flash, redirect, render_template, request, url_for
from flask_babel import LazyString, gettext
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext as _ngettext
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict
from wtforms import (  # type: ignore[import-untyped]
    BooleanField,
    FieldList,
    Form,
    FormField,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional  # type: ignore[import-untyped]

import engine
from engine.protocol import Game as Rules
from engine.protocol import OptionField

from ... import admin, config, db, i18n, timing
from ...core import checks, games
from ...core.errors import InputErrors, NotFound, ServiceError
from .base import (
    actor,
    bp,
    choice_list,
    draft_of,
    forget_draft,
    form_fields,
    keep_draft,
    longest_of,
    restore_draft,
    seat_choices,
    zones,
)

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext

# Creating a game --------------------------------------------------------------------------------

_needed = InputRequired(_l("a whole number is needed here"))
TOO_LONG = _l("at most %(max)d characters")
PLAYER_HINT = _l("Counted in the list of seats above; with a random order, that player keeps it.")


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
        return SelectField(option.label, choices=choice_list(seats), default="", description=help)
    if option.choices:
        default = "" if option.default is None else str(option.default)
        return SelectField(
            option.label, choices=choice_list(list(option.choices)), default=default, description=option.help
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
        _l("Seat order"), choices=choice_list([("listed", _l("As listed")), ("random", _l("Random"))]), default="listed"
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
        choices=choice_list([("bot", _l("A bot makes the late player's decisions")), ("pause", _l("The game pauses"))]),
        default="bot",
    )
    absence_cap_days = IntegerField(
        _l("Time away allowed per player (days)"),
        default=14,
        validators=[_needed, NumberRange(0, timing.MAX_ABSENCE_DAYS)],
    )
    start = RadioField(
        _l("The game starts"),
        choices=choice_list([("now", _l("At once")), ("accepted", _l("When everyone has accepted the invitation"))]),
        default="now",
    )
    start_by = StringField(
        _l("Start by this day at the latest (empty: wait for everyone)"),
        validators=[Length(max=10, message=TOO_LONG)],
    )
    unanswered = RadioField(
        _l("On that day, the seats nobody accepted"),
        choices=choice_list([("bot", _l("are played by a bot")), ("drop", _l("are left out"))]),
        default="bot",
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

        kind = SelectField(_l("Seat"), choices=choice_list(kinds), default="none")
        name = StringField(_l("Name"), validators=[Length(max=checks.MAX_PLAYER_NAME, message=TOO_LONG)])
        email = StringField(_l("Email"), validators=[Length(max=checks.MAX_EMAIL, message=TOO_LONG)])
        language = SelectField(
            _l("Language"), choices=choice_list(list(i18n.NAMES.items())), default=i18n.current, validate_choice=False
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
        start=form.start.data or "now",
        start_by=form.start_by.data or "",
        unanswered=form.unanswered.data or "bot",
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


def _trim(form: Any) -> None:
    """Cut text longer than its field allows before showing it again (its error says so)."""
    for field in form_fields(form):
        longest = longest_of(field)
        if longest is not None and isinstance(field.data, str) and len(field.data) > longest:
            field.data = field.data[:longest]


def _game_key() -> str:
    key = request.values.get("game") or games.DEFAULT_GAME
    if key not in engine.GAMES:
        raise NotFound(_("this server does not know the game %(key)r", key=key[:60]))
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
            field.choices = [*field.choices, *choice_list(offered)]
    return form


def _new_form(key: str) -> NewGameBase:
    form = _offer_files(new_game_form(key)(), key)
    if request.method != "POST":
        for i, entry in enumerate(form.seats):
            entry.form.kind.data = "human" if i < engine.GAMES[key].min_players else "none"
            entry.form.timezone.data = actor().timezone
        form.organiser_email.data = actor().email or ""
    return form


def _new_game_page(key: str, form: NewGameBase, general: list[str]) -> Any:
    rules = games.rules_of(key)
    page = render_template(
        "admin/new_game.html",
        form=form,
        general=general,
        zones=zones(),
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
    key = _game_key()
    if request.method != "POST":
        draft = draft_of(NEW_GAME)
        if draft is None:
            return _new_game_page(key, _new_form(key), [])
        form = _offer_files(new_game_form(key)(formdata=MultiDict(draft["values"])), key)
        return _new_game_page(key, form, restore_draft(form, draft))
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
            forget_draft(NEW_GAME)
            flash(_("Game %(id)d is created; the invitations are on their way.", id=game_id), "done")
            if new.start == "accepted":
                flash(_("It starts when everyone has accepted: their answers show on this page."), "done")
            return redirect(url_for("admin.game", game_id=game_id), code=303)
    except InputErrors as exc:
        general = _attach(form, exc.errors)
    except ServiceError as exc:
        general = [exc.message]
    _trim(form)
    return redirect(url_for("admin.new_game", game=key, draft=keep_draft(NEW_GAME, form, general)), code=303)
