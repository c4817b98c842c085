"""A new game from the admin form: any game of ``engine.GAMES``, its seats, its options and the reminder policy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

from flask import current_app, has_app_context
from flask_babel import gettext
from flask_babel import ngettext as _ngettext
from sqlmodel import Session

import engine
from engine.errors import OptionsError
from engine.protocol import Game as Rules

from .. import config, i18n, timing
from ..core import audit, checks, games, invites
from ..core.checks import check_language, check_timezone, checked, require_email
from ..core.errors import InputErrors, NotFound, ServiceError
from ..flows import games as game_flows
from ..flows import invites as invite_flows
from ..i18n import N_
from ..models import Game
from .common import Actor

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext

POLICY_FIELDS = (
    "first_reminder_hours",
    "reminder_every_hours",
    "max_reminders",
    "deadline_hours",
    "timeout",
    "absence_cap_days",
)
MAX_OPTION_TEXT = 600
"""The longest text a ``text`` option of the form takes."""


@dataclass
class SeatInput:
    """One row of the new-game form: ``kind`` is "none" (no seat), "human", or one of the game's bots."""

    kind: str = "none"
    name: str = ""
    email: str = ""
    language: str = "en"
    timezone: str = "UTC"


@dataclass
class NewGame:
    """What the new-game form asks for.

    ``options`` holds the game's options by name as the form gives them (texts, or values already typed); a
    ``player`` option names a row of ``seats`` by its number counted from 0 ("" for the game's default).
    """

    name: str
    seats: list[SeatInput]
    game: str = games.DEFAULT_GAME
    options: dict[str, Any] = field(default_factory=dict)
    random_order: bool = False
    organiser_email: str = ""
    policy: dict[str, Any] = field(default_factory=dict)
    """Settings of ``timing.Policy`` by name (missing ones take its defaults)."""
    start: str = "now"
    """"now", or "accepted": the game starts when every person has accepted their invitation."""
    start_by: str = ""
    """With "accepted": the day (YYYY-MM-DD, on the organiser's clock) it starts at the latest ("": none)."""
    unanswered: str = "bot"
    """With "accepted", at ``start_by``: a bot plays each seat nobody accepted ("bot") or it starts without them."""


@dataclass(frozen=True)
class NewGameChecked:
    """The new-game form, checked: what ``flows.games.create`` is called with."""

    rules: Rules
    name: str
    seats: list[games.SeatSpec]
    options: dict[str, Any]
    organiser_email: str | None
    policy: timing.Policy
    invite: bool = False
    start_by: date | None = None
    unanswered: str = "bot"


def game_choices() -> list[tuple[str, str]]:
    """The games an organiser can start: (key, title), the default game first."""
    found = engine.GAMES
    keys = sorted(found, key=lambda k: (k != games.DEFAULT_GAME, found[k].title))
    return [(key, found[key].title) for key in keys]


def players_text(rules: Rules) -> str:
    """How many players a game is for, in words: "2 to 4 players"."""
    low, high = rules.min_players, rules.max_players
    if low == high:
        return ngettext("%(num)d player", "%(num)d players", low)
    return _("%(low)d to %(high)d players", low=low, high=high)


def _seat_specs(rules: Rules, rows: Sequence[SeatInput], errors: dict[str, str]) -> dict[int, games.SeatSpec]:
    """The filled-in rows of the form as seats, keyed by row; each problem is put in ``errors`` under its field."""
    specs: dict[int, games.SeatSpec] = {}
    kinds = games.seat_kinds(rules)
    bots = 0
    for i, row in enumerate(rows):
        key = f"seats-{i}"
        if row.kind == "none":
            if row.name.strip() or row.email.strip():
                errors[f"{key}-kind"] = _("choose a person or a bot for this seat, or clear its name and email")
            continue
        if row.kind not in kinds:
            errors[f"{key}-kind"] = _("a seat is a person or one of the bots (%(bots)s)", bots=", ".join(rules.bots))
            continue
        name = row.name.strip()
        if row.kind != games.HUMAN:
            bots += 1
            name = name or f"Bot {bots}"
        what = _("seat %(number)d's name", number=i + 1)
        name = checked(errors, f"{key}-name", checks.check_name, name, what, checks.MAX_PLAYER_NAME)
        who = name or _("seat %(number)d", number=i + 1)
        if row.kind != games.HUMAN:
            if name:
                specs[i] = games.SeatSpec(name=name, kind=row.kind)
            continue
        email = checked(errors, f"{key}-email", require_email, row.email, who)
        language = checked(errors, f"{key}-language", check_language, row.language)
        zone = checked(errors, f"{key}-timezone", check_timezone, row.timezone, who)
        if name and email and language and zone:
            specs[i] = games.check_seat(games.SeatSpec(name, email, language, zone, games.HUMAN), rules)
    seen: set[str] = set()
    for i, spec in specs.items():
        if spec.name in seen:
            errors[f"seats-{i}-name"] = _("two players are called %(name)r: names must differ", name=spec.name)
        seen.add(spec.name)
    return specs


def _options(
    rules: Rules, new: NewGame, rows: Sequence[SeatInput], names: dict[int, str], errors: dict[str, str]
) -> dict[str, Any] | None:
    """The game's options from the form, typed by ``games.option_values`` and checked by the game's
    ``parse_options`` for the seats as filled in; each problem goes in ``errors`` under its option's name."""
    fields = {f.name: f for f in rules.option_fields}
    raw: dict[str, Any] = {}
    for name, value in new.options.items():
        spec = fields.get(name)
        if spec is None or spec.kind != "player":
            raw[name] = value
            continue
        text = str(value).strip() if value is not None else ""
        if not text:
            continue
        row = int(text) if text.isascii() and text.isdigit() and len(text) < 3 else -1
        if not 0 <= row < len(rows) or rows[row].kind == "none":
            errors[name] = _("the %(option)s must be one of the filled-in seats", option=spec.label.lower())
        elif row in names:
            raw[name] = names[row]
    try:
        folder = config.game_files(current_app) if has_app_context() else None
        values = games.option_values(rules, raw, folder)
    except InputErrors as exc:
        errors.update({k: v for k, v in exc.errors.items() if k not in errors})
        return None
    players = [names.get(i, f"Seat {i + 1}") for i, row in enumerate(rows) if row.kind != "none"]
    if len(set(players)) != len(players) or not rules.min_players <= len(players) <= rules.max_players:
        return None  # the seats' own errors say why; the options are checked once the seats are right
    try:
        return rules.parse_options(values, players)
    except OptionsError as exc:
        for key, message in exc.errors.items():
            errors.setdefault(key if key in fields else "seats" if key == "players" else "options", message)
        return None


def check_new_game(new: NewGame) -> NewGameChecked:
    """Validate the new-game form; raise InputErrors naming each bad field with its message (all at once)."""
    errors: dict[str, str] = {}
    try:
        rules = games.rules_of(new.game)
    except NotFound as exc:
        raise InputErrors({"game": exc.message}) from None
    name = checked(errors, "name", checks.check_name, new.name, _("the game's name"), checks.MAX_GAME_NAME)
    if len(new.seats) > rules.max_players:
        errors["seats"] = _("%(game)s has at most %(num)d seats", game=rules.title, num=rules.max_players)
    rows = new.seats[: rules.max_players]
    specs = _seat_specs(rules, rows, errors)
    filled = sum(1 for row in rows if row.kind != "none")
    if filled < rules.min_players:
        errors["seats"] = ngettext(
            "%(game)s is for %(players)s: fill in at least %(num)d seat",
            "%(game)s is for %(players)s: fill in at least %(num)d seats",
            rules.min_players,
            game=rules.title,
            players=players_text(rules),
        )
    options = _options(rules, new, rows, {i: s.name for i, s in specs.items()}, errors)
    organiser = None
    if new.organiser_email.strip():
        organiser = checked(errors, "organiser_email", require_email, new.organiser_email, _("the organiser"))
    policy = _policy(new.policy, errors)
    start_by = _start(new, errors)
    if errors:
        raise InputErrors(errors)
    assert policy is not None and options is not None
    seats = [specs[i] for i in sorted(specs)]
    invite = new.start == "accepted"
    return NewGameChecked(rules, name, seats, options, organiser, policy, invite, start_by, new.unanswered)


def _start(new: NewGame, errors: dict[str, str]) -> date | None:
    """The start choices: at once, or when everyone has accepted (by a day at the latest, with bots or without the
    seats nobody accepted); each problem goes in ``errors`` under its field."""
    if new.start not in ("now", "accepted"):
        errors["start"] = _("choose when the game starts")
    if new.unanswered not in invites.UNANSWERED:
        errors["unanswered"] = _("choose what happens to the seats nobody accepted")
    text = new.start_by.strip()
    if new.start != "accepted" or not text:
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        errors["start_by"] = _("a day like 2026-03-12, or nothing")
        return None
    if day <= timing.now().date():
        errors["start_by"] = _("a day after today")
        return None
    return day


def start_instant(day: date, zone: str) -> datetime:
    """The first instant of ``day`` on the clock of ``zone`` (an organiser's): when a game set to start that day
    starts, in UTC."""
    return timing.instants_at(day, time(0, 0), timing.zone(zone))[0]


def _policy(values: dict[str, Any], errors: dict[str, str]) -> timing.Policy | None:
    """The reminder/deadline policy; each bad setting is reported under its own name."""
    for key, value in values.items():
        if key not in POLICY_FIELDS:
            errors[key] = _("%(key)r is not a policy setting", key=key)
            continue
        try:
            timing.Policy(**{key: value})
        except timing.PolicyError as exc:
            errors[key] = str(exc)
    if errors.keys() & set(values):
        return None
    try:
        return timing.Policy(**values)
    except timing.PolicyError as exc:
        errors["policy"] = str(exc)
        return None


def create_game_from_form(*, session: Session, actor: Actor, new: NewGame, seed: int | None = None) -> Game:
    """Create a game from the new-game form (``flows.games.create`` queues the invitations); log who did it."""
    done = check_new_game(new)
    common: dict[str, Any] = {
        "session": session,
        "name": done.name,
        "seats": done.seats,
        "game": done.rules.key,
        "options": done.options,
        "random_order": new.random_order,
        "seed": seed,
        "organiser_email": done.organiser_email,
        "policy": done.policy,
    }
    try:
        if done.invite:
            start_at = start_instant(done.start_by, actor.timezone) if done.start_by else None
            game = invite_flows.create(**common, start_at=start_at, unanswered=done.unanswered)
        else:
            game = game_flows.create(**common)
    except InputErrors as exc:
        raise InputErrors(exc.errors) from None
    except ServiceError as exc:
        raise InputErrors({"": exc.message}) from None
    players = [
        i18n.stored(N_("%(name)s (person)"), name=s.name)
        if s.kind == games.HUMAN
        else i18n.stored(N_("%(name)s (%(kind)s bot)"), name=s.name, kind=s.kind)
        for s in done.seats
    ]
    listed = i18n.EachLanguage.of(lambda lang: ", ".join(i18n.words(p, lang) for p in players))
    audit.log_action(
        session,
        game,
        actor,
        "create",
        i18n.stored(
            N_("created the game (%(game)s): %(players)s"),
            game=i18n.EachLanguage.of(lambda lang: done.rules.speaking(lang).title),
            players=listed,
        ),
    )
    if done.invite:
        then = (
            i18n.stored(N_("bots take the seats nobody accepted"))
            if done.unanswered == "bot"
            else i18n.stored(N_("the seats nobody accepted are left out"))
        )
        audit.log_action(
            session,
            game,
            actor,
            "invite",
            i18n.stored(
                N_("the game starts when everyone has accepted, by %(date)s at the latest; %(then)s"),
                date=done.start_by,
                then=then,
            )
            if done.start_by
            else i18n.stored(N_("the game starts when everyone has accepted; %(then)s"), then=then),
        )
    return game
