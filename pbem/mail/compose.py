"""What each email says: subjects, the plain-text and HTML parts (templates/email/<kind>.*), and mail headers.

Everything a player is shown comes from ``glory.player_view`` (R11); the only hand in
an email is the recipient's own. Every email to a seat threads under one root
Message-ID per game and seat and carries RFC 8058 one-click unsubscribe headers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.errors import HeaderParseError
from email.headerregistry import Address
from typing import Any
from zoneinfo import ZoneInfo

from flask import current_app
from jinja2 import Environment

from engine import call_to_glory as glory
from engine.call_to_glory import State, words
from engine.call_to_glory.cards import TASK_BONUS

from .. import links
from ..models import Game, Seat
from . import outbox

KINDS = ("invitation", "turn", "scores", "game_over", "fresh_link", "lost_links", "organiser")
CARD_COLOURS = {
    "emperor": "#6d3b8e",
    "empress": "#b23a7a",
    "daimyo": "#2f5d8a",
    "shogun": "#1f7a6d",
    "samurai": "#b3472b",
    "ninja": "#2b2b2b",
    "envoy": "#98700c",
    "monk": "#bf5f16",
    "farmer": "#4f7d2b",
}
"""The card colours of pbem/static/style.css (``.t-<type>``), for inline styles."""
AT_DEADLINE = {
    "bot": "Then a bot plays the rest of your turn for you.",
    "pause": "Then the game pauses until the organiser resumes it.",
}
"""What the game's timeout policy (pbem.timing) does at a deadline, in words."""
MAX_ADDRESS = 254
VALUES = dict(zip(glory.TYPES, glory.VALUES, strict=True))
VARIANT_WORDS = {"imperial_tasks": "Imperial Tasks (V1)", "ninja_power": "the Power of the Ninja (V2)"}


@dataclass
class Email:
    """One rendered email, ready for ``outbox.queue``."""

    kind: str
    to: str
    subject: str
    text: str
    html: str
    headers: dict[str, str] = field(default_factory=dict)
    message_id: str | None = None
    attachments: list[dict[str, str]] = field(default_factory=list)


def recipient(seat: Seat) -> str:
    """'Ann Müller <ann@example.com>' (quoted where needed), or the bare address when that would not fit."""
    address = seat.email or ""
    try:
        text = str(Address(display_name=seat.name, addr_spec=address))
    except (ValueError, IndexError, HeaderParseError):
        return address
    return text if len(text) <= MAX_ADDRESS else address


def subject(game: Game, *parts: str) -> str:
    """'Friday game · Round 2 · Your turn'."""
    return " · ".join([game.name, *parts])


def commitment(seed: int) -> str:
    """The SHA-256 of the seed's decimal digits: announced at the start, checked against the seed at the end."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def thread_root(game: Game, seat: Seat) -> str:
    """The Message-ID of the seat's invitation, which every later email to the seat replies to."""
    tag = links.nonce_tag(seat.nonce)
    return f"<pbem-g{game.id}-s{seat.position}-{tag}@{outbox.message_domain()}>"


def personal_url(game: Game, seat: Seat) -> str:
    """The seat's personal link (its page for the whole game)."""
    return links.external_url("play.page", token=links.personal_token(game.id or 0, seat.position, seat.nonce))


def rules_url(game: Game, seat: Seat) -> str:
    """How to play the seat's game, with its options."""
    token = links.personal_token(game.id or 0, seat.position, seat.nonce)
    return links.external_url("help.for_seat", token=token)


def settings_url(game: Game, seat: Seat) -> str:
    """The seat's settings page: reminders on or off, leave the game; also the List-Unsubscribe target."""
    return links.external_url("settings.page", token=links.settings_token(game.id or 0, seat.position, seat.nonce))


def seat_headers(game: Game, seat: Seat, *, root: bool) -> dict[str, str]:
    """Threading (unless this is the thread's root) and RFC 8058 one-click unsubscribe headers."""
    headers = {
        "List-Unsubscribe": f"<{settings_url(game, seat)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }
    if not root:
        headers["In-Reply-To"] = thread_root(game, seat)
        headers["References"] = thread_root(game, seat)
    return headers


def _environment() -> Environment:
    """The app's Jinja environment with block trimming, so text templates read as they will be sent."""
    env: Environment | None = current_app.extensions.get("pbem_email_env")
    if env is None:
        env = current_app.jinja_env.overlay(trim_blocks=True, lstrip_blocks=True)
        env.filters["cardlist"] = card_list
        env.filters["tasklist"] = task_list
        current_app.extensions["pbem_email_env"] = env
    return env


def card_list(cards: Sequence[dict[str, Any]], empty: str = "no cards") -> str:
    """'Farmer (20) ×3, Monk (18)' for a text part."""
    shown = []
    for c in cards:
        count = f" ×{c['count']}" if c["count"] > 1 else ""
        shown.append(f"{c['type'].capitalize()} ({c['value']}){count}")
    return ", ".join(shown) or empty


def task_list(tasks: dict[str, str]) -> str:
    """'A: Emperor (5 per card), C: Monk (3 per card)'."""
    return ", ".join(f"{deck}: {t.capitalize()} ({TASK_BONUS[deck]} per card)" for deck, t in sorted(tasks.items()))


def render(kind: str, **context: Any) -> tuple[str, str]:
    """The text and HTML parts of ``kind`` from templates/email/<kind>.txt and .html."""
    env = _environment()
    context = {"colours": CARD_COLOURS, "values": VALUES, **context}
    text = env.get_template(f"email/{kind}.txt").render(context)
    html = env.get_template(f"email/{kind}.html").render(context)
    return text.strip() + "\n", html


def local_time(when: datetime, timezone: str) -> str:
    """'Monday 24 November 2026, 18:00 (Europe/Amsterdam)': a UTC time in a seat's time zone."""
    local = outbox.as_utc(when).astimezone(ZoneInfo(timezone))
    return f"{local:%A} {local.day} {local:%B %Y, %H:%M} ({timezone})"


def duration(delta: timedelta) -> str:
    """'2 days', '1 day and 5 hours', '3 hours', 'less than an hour'."""
    hours = int(delta.total_seconds() // 3600)
    days, hours = divmod(hours, 24)
    parts = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in ((days, "day"), (hours, "hour")) if n]
    return " and ".join(parts) or "less than an hour"


def _cards(counts: dict[str, int]) -> list[dict[str, Any]]:
    return [{"type": t, "count": n, "value": VALUES[t]} for t, n in counts.items()]


def _players(seats: Sequence[Seat], seat: Seat | None) -> list[dict[str, Any]]:
    return [
        {"name": s.name, "you": seat is not None and s.id == seat.id, "bot": s.is_bot, "left": s.left_at is not None}
        for s in seats
    ]


def _base(game: Game, seats: Sequence[Seat], seat: Seat) -> dict[str, Any]:
    return {
        "game": game,
        "seat": seat,
        "players": _players(seats, seat),
        "personal_url": personal_url(game, seat),
        "settings_url": settings_url(game, seat),
        "rules_url": rules_url(game, seat),
    }


def _options(game: Game) -> dict[str, Any]:
    options = glory.Options.from_json(game.options)
    variants = [text for key, text in VARIANT_WORDS.items() if getattr(options, key)]
    return {"rounds": options.resolved_rounds(), "variants": variants}


def invitation(*, game: Game, seats: Sequence[Seat], seat: Seat, state: State, root: bool) -> Email:
    """The invitation: the players, the options, the personal link and the seed's commitment."""
    context = _base(game, seats, seat)
    context |= {
        "options": _options(game),
        "starter": state.players[state.round_starts[0]],
        "commitment": commitment(game.seed),
        "link_days": current_app.config["PERSONAL_LINK_DAYS"],
    }
    text, html = render("invitation", **context)
    return Email(
        "invitation",
        recipient(seat),
        subject(game, "You are invited"),
        text,
        html,
        seat_headers(game, seat, root=root),
        thread_root(game, seat) if root else None,
    )


def _move_labels(state: State, player: str) -> dict[str, str]:
    """The label of each move the player is offered, as the page's buttons say it, with what it does."""
    labels = {}
    for group in glory.GAME.choices(state, player):
        for choice in group.choices:
            key = json.dumps({k: str(v) for k, v in choice.move.items()}, sort_keys=True)
            labels[key] = f"{choice.label} ({choice.note})" if choice.note else choice.label
    return labels


def board(state: State, seats: Sequence[Seat], seat: Seat) -> dict[str, Any]:
    """What the recipient may see of the board, from their player view: hand, tables, piles, scores."""
    view = glory.player_view(state, seat.name)
    me = seat.name
    return {
        "view": view,
        "hand": _cards(view["hands"][me]),
        "tasks": view.get("tasks", {}).get(me, {}),
        "tables": [
            {
                "name": s.name,
                "you": s.name == me,
                "bot": s.is_bot,
                "hand_size": sum(view["hands"][me].values()) if s.name == me else view["hand_sizes"][s.name],
                "cards": _cards(view["tables"][s.name]),
                "ninjas": view["ninjas"][s.name] if "ninjas" in view else None,
            }
            for s in seats
        ],
        "draw_piles": view["draw_piles"],
        "discard_piles": [{"top": p[-1] if p else None, "size": len(p)} for p in view["discard_piles"]],
        "scores": [
            {"name": s.name, "total": view["totals"][s.name], "rounds": [r[s.name] for r in view["round_scores"]]}
            for s in seats
        ],
        "round_scores": view["round_scores"],
        "revealed": view.get("revealed_tasks", []),
    }


def turn(
    *,
    game: Game,
    seats: Sequence[Seat],
    seat: Seat,
    state: State,
    story: list[str],
    moves: list[tuple[dict[str, Any], str]],
    reminder: int | None = None,
    last_reminder: bool = False,
    waited: timedelta | None = None,
    deadline: datetime | None = None,
) -> Email:
    """'Your turn' (or a task reveal): the board as the seat sees it, what happened, one link per first decision."""
    context = _base(game, seats, seat) | board(state, seats, seat)
    labels = _move_labels(state, seat.name)
    asked = "Reveal a task card" if state.status == "revealing" else "Your turn"
    context |= {
        "round": state.round,
        "rounds": state.rounds,
        "asked": asked,
        "story": story,
        "links": [
            {
                "label": labels.get(json.dumps({k: str(v) for k, v in move.items()}, sort_keys=True))
                or words.describe_move(move),
                "url": links.external_url("play.page", token=token),
            }
            for move, token in moves
        ],
        "reminder": reminder,
        "last_reminder": last_reminder,
        "waited": duration(waited) if waited is not None else None,
        "deadline": local_time(deadline, seat.timezone) if deadline is not None else None,
        "at_deadline": AT_DEADLINE.get(str((game.policy or {}).get("timeout"))),
    }
    parts = [f"Round {state.round}"] + ([f"Reminder {reminder}"] if reminder else []) + [asked]
    text, html = render("turn", **context)
    return Email("turn", recipient(seat), subject(game, *parts), text, html, seat_headers(game, seat, root=False))


def score_sheet(*, game: Game, seats: Sequence[Seat], seat: Seat, state: State, round_no: int) -> Email:
    """A round's score sheet: per player the types with values, task bonuses, round score, totals, ranking."""
    details = glory.round_details(state)[round_no - 1]
    context = _base(game, seats, seat) | {
        "round": details,
        "rounds": state.rounds,
        "ranking": _ranking(details["ranking"], {n: p["total"] for n, p in details["players"].items()}),
    }
    text, html = render("scores", **context)
    headers = seat_headers(game, seat, root=False)
    return Email("scores", recipient(seat), subject(game, f"Round {round_no} scores"), text, html, headers)


def _ranking(order: Sequence[str], totals: dict[str, int]) -> list[dict[str, Any]]:
    """Names with their totals and places; equal totals share a place."""
    out: list[dict[str, Any]] = []
    for i, name in enumerate(order):
        place = out[-1]["place"] if out and totals[out[-1]["name"]] == totals[name] else i + 1
        out.append({"name": name, "total": totals[name], "place": place})
    return out


def record_json(state: State, moves: Sequence[dict[str, Any]]) -> str:
    """The game record (GAME_RECORD.md) of a game started as ``state`` was, with the logged moves."""
    record = glory.record_of(state, [glory.Move.from_json(m) for m in moves])
    return json.dumps(record.to_json(), indent=1, ensure_ascii=False) + "\n"


def game_over(*, game: Game, seats: Sequence[Seat], seat: Seat, state: State, record: str) -> Email:
    """The final ranking, every round's scores, the winners, the seed, and the game record attached."""
    view = glory.player_view(state, seat.name)
    totals = view["totals"]
    order = sorted(state.players, key=lambda name: -totals[name])
    context = _base(game, seats, seat) | {
        "ranking": _ranking(order, totals),
        "round_scores": view["round_scores"],
        "winners": view["winners"],
        "totals_row": [{"name": s.name, "total": totals[s.name]} for s in seats],
        "seed": game.seed,
        "commitment": commitment(game.seed),
        "filename": f"call-to-glory-{game.id}.json",
    }
    text, html = render("game_over", **context)
    email = Email("game_over", recipient(seat), subject(game, "Game over"), text, html)
    email.headers = seat_headers(game, seat, root=False)
    email.attachments = [{"filename": context["filename"], "content_type": "application/json", "content": record}]
    return email


def fresh_link(*, game: Game, seats: Sequence[Seat], seat: Seat) -> Email:
    """A seat's current personal link, asked for from an expired link's page."""
    context = _base(game, seats, seat) | {"link_days": current_app.config["PERSONAL_LINK_DAYS"]}
    text, html = render("fresh_link", **context)
    headers = seat_headers(game, seat, root=False)
    return Email("fresh_link", recipient(seat), subject(game, "Your fresh link"), text, html, headers)


def lost_links(*, to: str, entries: Sequence[tuple[Game, Seat]]) -> Email:
    """The current links of every game an address plays, asked for on the front page."""
    games = [
        {
            "name": game.name,
            "player": seat.name,
            "over": game.status == "finished" or game.aborted_at is not None,
            "url": personal_url(game, seat),
        }
        for game, seat in entries
    ]
    text, html = render("lost_links", games=games, link_days=current_app.config["PERSONAL_LINK_DAYS"])
    return Email("lost_links", to, "Your links to your games", text, html)


def organiser(*, game: Game, to: str, title: str, body: str) -> Email:
    """A notice to the game's organiser (a player left, the game paused …); the subject starts with the game's
    name, which ``title`` may already carry."""
    title = title.removeprefix(f"{game.name} · ")
    text, html = render("organiser", game=game, title=title, paragraphs=[p for p in body.split("\n\n") if p.strip()])
    return Email("organiser", to, subject(game, title), text, html)
