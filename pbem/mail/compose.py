"""What each email says: subjects, the plain-text and HTML parts (templates/email/<kind>.*), and mail headers.

Emails know a game only through its protocol (``games.rules_of``): the decision's prompt, the narrative, the
progress lines, the choices' labels, milestones, the result and the record. What a game shows of itself comes
from its template folder (``templates/games/<key>/board_email.*``, ``milestone.*``, ``result.*`` …, with plain
fallbacks in ``templates/games/_default/``), rendered from ``player_view`` and the texts the game makes from it
(``page_texts``: its own words, which no template translates): the recipient sees only what the game lets them
see. Every email to a seat threads under one root Message-ID per game and seat and carries RFC 8058
one-click unsubscribe headers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from email.errors import HeaderParseError
from email.headerregistry import Address
from typing import Any

from flask import current_app
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from jinja2 import Environment, Template

from engine.protocol import Milestone, Result

from .. import i18n, timing
from ..core import games, links, records, replies
from ..models import Game, Seat
from . import outbox

KINDS = ("invitation", "turn", "scores", "game_over", "fresh_link", "lost_links", "organiser", "notice")
AT_DEADLINE = {
    "bot": _l("Then a bot plays the rest of your turn for you."),
    "pause": _l("Then the game pauses until the organiser resumes it."),
}
"""What the game's timeout policy (pbem.timing) does at a deadline, in words."""
MAX_ADDRESS = 254


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
    return _address(seat.name, seat.email or "")


def _address(name: str, address: str) -> str:
    try:
        text = str(Address(display_name=name, addr_spec=address))
    except (ValueError, IndexError, HeaderParseError):
        return address
    return text if len(text) <= MAX_ADDRESS else address


def subject(game: Game, *parts: str) -> str:
    """'Friday game · You are invited': the game's name, then the parts."""
    return " · ".join([game.name, *parts])


def thread_root(game: Game, seat: Seat) -> str:
    """The Message-ID of the seat's invitation, which every later email to the seat replies to."""
    tag = links.nonce_tag(seat.nonce)
    return f"<pbem-g{game.id}-s{seat.position}-{tag}@{outbox.message_domain()}>"


def personal_url(game: Game, seat: Seat) -> str:
    """The seat's personal link (its page for the whole game)."""
    return links.external_url("play.page", token=links.personal_token(game.id or 0, seat.position, seat.nonce))


def check_url(game: Game, seat: Seat) -> str:
    """The seat's page that checks the seed against the commitment of the invitation (once the game is over)."""
    return links.external_url("check.seed", token=links.personal_token(game.id or 0, seat.position, seat.nonce))


def rules_url(game: Game, seat: Seat) -> str:
    """How to play the seat's game, with its options."""
    token = links.personal_token(game.id or 0, seat.position, seat.nonce)
    return links.external_url("help.for_seat", token=token)


def settings_url(game: Game, seat: Seat) -> str:
    """The seat's settings page: reminders on or off, leave the game; also the List-Unsubscribe target."""
    return links.external_url("settings.page", token=links.settings_token(game.id or 0, seat.position, seat.nonce))


def mine_url(address: str) -> str:
    """The "my games" page of an address: every game it plays here."""
    return links.external_url("mine.page", token=links.mine_token(address))


def reply_address(game: Game, seat: Seat, decision: str | None) -> str | None:
    """The seat's reply address for an email about ``decision`` (``MAIL_REPLY_ADDRESS`` with the seat's token
    after a "+"), or None when replies are not read."""
    base = current_app.config["MAIL_REPLY_ADDRESS"]
    if not base:
        return None
    return links.tagged_address(base, links.reply_token(game.id or 0, seat.position, seat.nonce, decision))


def seat_headers(game: Game, seat: Seat, *, root: bool, decision: str | None = None) -> dict[str, str]:
    """Threading (unless this is the thread's root), RFC 8058 one-click unsubscribe headers, and the seat's
    Reply-To (naming ``decision``, the decision the email is about) when replies are read."""
    headers = {
        "List-Unsubscribe": f"<{settings_url(game, seat)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }
    if not root:
        headers["In-Reply-To"] = thread_root(game, seat)
        headers["References"] = thread_root(game, seat)
    address = reply_address(game, seat, decision)
    if address is not None:
        headers["Reply-To"] = address
    return headers


def reply_commands(game: Game, state: Any, seat: Seat) -> list[dict[str, Any]]:
    """The numbered commands a reply may carry for the seat's open choices now (the game's ``commands``, in the
    language spoken now); empty when replies are not read or the seat has nothing to decide."""
    if not current_app.config["MAIL_REPLY_ADDRESS"]:
        return []
    rules = games.rules_of(game)
    return [{"number": i, "text": c.text, "label": c.label} for i, c in enumerate(rules.commands(state, seat.name), 1)]


def _environment() -> Environment:
    """The app's Jinja environment with block trimming, so text templates read as they will be sent."""
    env: Environment | None = current_app.extensions.get("pbem_email_env")
    if env is None:
        env = current_app.jinja_env.overlay(trim_blocks=True, lstrip_blocks=True)
        current_app.extensions["pbem_email_env"] = env
    return env


def partial(key: str, name: str) -> Template:
    """The game's template ``templates/games/<key>/<name>``, or the plain one of ``templates/games/_default``."""
    return _environment().select_template([f"games/{key}/{name}", f"games/_default/{name}"])


def render(kind: str, **context: Any) -> tuple[str, str]:
    """The text and HTML parts of ``kind`` from templates/email/<kind>.txt and .html; ``partial`` (the game's
    templates, as above) is available in them."""
    env = _environment()
    key = context.get("key", "_default")
    context = {"partial": lambda name: partial(key, name), **context}
    text = env.get_template(f"email/{kind}.txt").render(context)
    html = env.get_template(f"email/{kind}.html").render(context)
    return text.strip() + "\n", html


def _players(seats: Sequence[Seat], seat: Seat | None) -> list[dict[str, Any]]:
    return [
        {"name": s.name, "you": seat is not None and s.id == seat.id, "bot": s.is_bot, "left": s.left_at is not None}
        for s in seats
    ]


def _base(game: Game, seats: Sequence[Seat], seat: Seat) -> dict[str, Any]:
    rules = games.rules_of(game)
    return {
        "game": game,
        "key": rules.key,
        "game_title": rules.title,
        "seat": seat,
        "me": seat.name,
        "players": _players(seats, seat),
        "personal_url": personal_url(game, seat),
        "settings_url": settings_url(game, seat),
        "rules_url": rules_url(game, seat),
        "mine_url": mine_url(seat.email) if seat.email else None,
    }


def _view_and_texts(game: Game, state: Any, seat: Seat) -> dict[str, Any]:
    """What the seat's player may see of the game (``view``: its ``player_view``) and the texts the game makes
    from it (``texts``: its ``page_texts``, the game's words in the language spoken now)."""
    rules = games.rules_of(game)
    view = rules.player_view(state, seat.name)
    return {"view": view, "texts": rules.page_texts(view, seat.name)}


def option_lines(game: Game) -> list[dict[str, str]]:
    """The game's options as its option fields label them, each value in words (``games.option_words``):
    [{"label": "Highest number", "value": "5"}, {"label": "Imperial Tasks (V1)", "value": "played"}, …]."""
    out = []
    for option in games.rules_of(game).option_fields:
        value = game.options.get(option.name, option.default)
        if value is None and not any(choice == "" for choice, _label in option.choices):
            continue  # unset, and no label says what that means
        out.append({"label": option.label, "value": games.option_words(option, value)})
    return out


def stage(game: Game, state: Any, seat: Seat) -> str:
    """Where the game stands, as the turn email's subject says it before "Your turn": "Round 2", "Act II"; ''
    for a game whose subject says nothing more."""
    rules = games.rules_of(game)
    decision = games.decision_of(rules, state, seat.name)
    heading = partial(rules.key, "turn_subject.txt").render(**_view_and_texts(game, state, seat), decision=decision)
    return " · ".join([p.strip() for p in heading.split(" · ") if p.strip()][:-1])


def invitation(
    *,
    game: Game,
    seats: Sequence[Seat],
    seat: Seat,
    state: Any,
    root: bool,
    person: str | None = None,
    starting: bool = False,
) -> Email:
    """The invitation: the players, the options, the personal link and the seed's commitment. With ``person``
    (the name of someone who takes over the seat of a game under way), it greets them by that name and says
    whose seat they take over and where the game stands; for a game that waits for answers, the question
    (accept or decline on the page) and its start date; ``starting``: it starts now."""
    context = _base(game, seats, seat)
    start_at = timing.utc(game.start_at)
    context |= {
        **_view_and_texts(game, state, seat),
        "options": option_lines(game),
        "commitment": records.commitment(game.seed),
        "link_days": current_app.config["PERSONAL_LINK_DAYS"],
        "replies": bool(current_app.config["MAIL_REPLY_ADDRESS"]),
        "greet": person or seat.name,
        "takeover": None if person is None else {"seat": seat.name, "stage": stage(game, state, seat)},
        "asking": game.status == games.INVITED and not starting,
        "starting": starting,
        "start_at": i18n.when(start_at, seat.timezone) if start_at is not None else None,
    }
    text, html = render("invitation", **context)
    to = recipient(seat) if person is None else _address(person, seat.email or "")
    if person is not None:
        title = _("You take over a seat")
    else:
        title = _("The game starts") if starting else _("Will you play?") if context["asking"] else _("You are invited")
    return Email(
        "invitation",
        to,
        subject(game, title),
        text,
        html,
        seat_headers(game, seat, root=root),
        thread_root(game, seat) if root else None,
    )


def _move_key(move: Any) -> str:
    return json.dumps({k: str(v) for k, v in dict(move).items()}, sort_keys=True)


def move_links(game: Game, seat: Seat, state: Any) -> list[dict[str, str]]:
    """One signed link per move of the seat's open decision that the page offers as a choice, labelled as the
    page's buttons say it, with what it does (the game's ``describe_move`` for a move its choices do not list).
    A move that is a variant of a choice (``Game.refine``: a challenge with dark runes) is chosen on the confirm
    page of that choice, not listed here."""
    rules = games.rules_of(game)
    labels = {}
    for group in rules.choices(state, seat.name):
        for choice in group.choices:
            labels[_move_key(choice.move)] = f"{choice.label} ({choice.note})" if choice.note else choice.label
    decision = games.decision_of(rules, state, seat.name)
    if decision is None:
        return []
    out = []
    for move in rules.legal_moves(state, seat.name):
        body = games.move_body(move)
        key = _move_key(body)
        if labels and key not in labels:
            continue
        token = links.move_token(game.id or 0, seat.position, seat.nonce, decision.id, body)
        out.append(
            {"label": labels.get(key) or rules.describe_move(body), "url": links.external_url("play.page", token=token)}
        )
    return out


def turn_subject(game: Game, state: Any, seat: Seat, reminder: int | None = None) -> str:
    """'Friday game · <the game's parts> · Reminder 1 · Your turn': the game's heading parts
    (``turn_subject.txt``: parts apart by " · ", the reminder goes before the last one)."""
    rules = games.rules_of(game)
    decision = games.decision_of(rules, state, seat.name)
    heading = partial(rules.key, "turn_subject.txt").render(**_view_and_texts(game, state, seat), decision=decision)
    parts = [p.strip() for p in heading.split(" · ") if p.strip()] or [_("Your turn")]
    if reminder:
        parts.insert(len(parts) - 1, _("Reminder %(number)s", number=reminder))
    return subject(game, *parts)


def turn(
    *,
    game: Game,
    seats: Sequence[Seat],
    seat: Seat,
    state: Any,
    story: list[str],
    reminder: int | None = None,
    last_reminder: bool = False,
    waited: timedelta | None = None,
    deadline: datetime | None = None,
    sheets: Sequence[Milestone] = (),
    answer: Answer | None = None,
) -> Email:
    """'Your turn': what is asked, the board as the seat sees it, what happened, one link per move of the decision,
    the commands a reply may carry, and the score ``sheets`` folded into it (the game's ``milestone.*`` of each).

    With ``answer``, it is the answer to a reply of the seat (what was done with it first), whether or not the
    seat has a decision open now."""
    rules = games.rules_of(game)
    decision = games.decision_of(rules, state, seat.name)
    context = _base(game, seats, seat) | {
        **_view_and_texts(game, state, seat),
        "decision": decision,
        "story": story,
        "progress": rules.progress(state, seat.name),
        "links": move_links(game, seat, state),
        "reminder": reminder,
        "last_reminder": last_reminder,
        "waited": i18n.duration(waited) if waited is not None else None,
        "deadline": i18n.when(deadline, seat.timezone) if deadline is not None else None,
        "at_deadline": str(at) if (at := AT_DEADLINE.get(str((game.policy or {}).get("timeout")))) else None,
        "subject_line": turn_subject(game, state, seat, reminder),
        "sheets": list(sheets),
        "commands": reply_commands(game, state, seat) if decision is not None else [],
        "replies": bool(current_app.config["MAIL_REPLY_ADDRESS"]),
        "seat_commands": replies.examples(),
        "answer": answer,
    }
    text, html = render("turn", **context)
    headers = seat_headers(game, seat, root=False, decision=decision.id if decision else None)
    if answer is None:
        return Email("turn", recipient(seat), context["subject_line"], text, html, headers)
    if answer.message_id:
        headers["In-Reply-To"] = answer.message_id
        headers["References"] = f"{thread_root(game, seat)} {answer.message_id}"
    title = answer.subject if answer.subject.lower().startswith(("re:", "aw:", "antw:")) else f"Re: {answer.subject}"
    return Email("answer", recipient(seat), title if answer.subject else context["subject_line"], text, html, headers)


@dataclass
class Answer:
    """What was done with a reply, in words of the language spoken now: each line's outcome (``done``: moves
    and settings made; ``refused``: why a command was not done; ``said``: what went to the table), whether the
    rules and commands were asked for (``help``), and the reply's Message-ID and subject to thread under."""

    done: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    said: str = ""
    nothing: bool = False
    help: bool = False
    message_id: str = ""
    subject: str = ""


def milestone_sheet(
    *, game: Game, seats: Sequence[Seat], seat: Seat, state: Any, milestones: Sequence[Milestone]
) -> Email:
    """The email of one or more milestones (a stage of the game scored …): for each, its title and the game's
    ``milestone.*`` sheet of its data."""
    context = _base(game, seats, seat) | _view_and_texts(game, state, seat) | {"sheets": list(milestones)}
    text, html = render("milestone", **context)
    headers = seat_headers(game, seat, root=False)
    title = " · ".join(m.title for m in milestones)
    return Email("scores", recipient(seat), subject(game, title), text, html, headers)


def ranking(result: Result) -> list[dict[str, Any]]:
    """The result's players best first with their scores and places; equal scores share a place."""
    out: list[dict[str, Any]] = []
    for i, name in enumerate(result.ranking):
        score = result.scores[name]
        place = out[-1]["place"] if out and out[-1]["total"] == score else i + 1
        out.append({"name": name, "total": score, "place": place})
    return out


def game_over(
    *, game: Game, seats: Sequence[Seat], seat: Seat, state: Any, record: str, sheets: Sequence[Milestone] = ()
) -> Email:
    """The result (ranking, winners, the game's ``result.*`` breakdown), the score ``sheets`` folded into it, the
    seed, and the game record attached."""
    rules = games.rules_of(game)
    result = rules.result(state)
    if result is None:
        raise ValueError(f"game {game.id} is not over")
    context = _base(game, seats, seat) | {
        **_view_and_texts(game, state, seat),
        "result": result,
        "ranking": ranking(result),
        "winners": list(result.winners),
        "seed": game.seed,
        "commitment": records.commitment(game.seed),
        "check_url": check_url(game, seat),
        "filename": f"{rules.key}-{game.id}.json",
        "sheets": list(sheets),
    }
    text, html = render("game_over", **context)
    email = Email("game_over", recipient(seat), subject(game, _("Game over")), text, html)
    email.headers = seat_headers(game, seat, root=False)
    email.attachments = [{"filename": context["filename"], "content_type": "application/json", "content": record}]
    return email


def digest(*, game: Game, seats: Sequence[Seat], seat: Seat, lines: Sequence[str], day: date) -> Email:
    """The daily digest: what happened in the game (``lines``, as the seat may read them) while it was not the
    seat's turn."""
    context = _base(game, seats, seat) | {"lines": list(lines), "day": i18n.day(day)}
    text, html = render("digest", **context)
    headers = seat_headers(game, seat, root=False)
    return Email("digest", recipient(seat), subject(game, _("What happened")), text, html, headers)


def fresh_link(*, game: Game, seats: Sequence[Seat], seat: Seat) -> Email:
    """A seat's current personal link, asked for from an expired link's page."""
    context = _base(game, seats, seat) | {"link_days": current_app.config["PERSONAL_LINK_DAYS"]}
    text, html = render("fresh_link", **context)
    headers = seat_headers(game, seat, root=False)
    return Email("fresh_link", recipient(seat), subject(game, _("Your fresh link")), text, html, headers)


def lost_links(*, to: str, entries: Sequence[tuple[Game, Seat]]) -> Email:
    """The current links of every game an address plays, asked for on the front page."""
    shown = [
        {
            "name": game.name,
            "player": seat.name,
            "over": game.status == "finished" or game.aborted_at is not None,
            "url": personal_url(game, seat),
        }
        for game, seat in entries
    ]
    titles = {games.rules_of(game).title for game, _seat in entries}
    title = titles.pop() if len(titles) == 1 else _("Board games")
    days = current_app.config["PERSONAL_LINK_DAYS"]
    text, html = render("lost_links", games=shown, game_title=title, link_days=days, mine_url=mine_url(to))
    return Email("lost_links", to, _("Your links to your games"), text, html)


def notice(
    *, game: Game, to: str, name: str, title: str, paragraphs: Sequence[str], page_url: str | None = None
) -> Email:
    """A notice to a player (or to the person who played a seat) about the game: ``title``, then ``paragraphs``,
    and a link to their page (``page_url``) if they still have one."""
    game_title = games.rules_of(game).title
    context = {"game": game, "game_title": game_title, "name": name, "title": title, "page_url": page_url}
    text, html = render("notice", paragraphs=list(paragraphs), **context)
    return Email("notice", to, subject(game, title), text, html)


def organiser(*, game: Game, to: str, title: str, body: str) -> Email:
    """A notice to the game's organiser (a player left, the game paused …); the subject starts with the game's
    name, which ``title`` may already carry."""
    title = title.removeprefix(f"{game.name} · ")
    paragraphs = [p for p in body.split("\n\n") if p.strip()]
    game_title = games.rules_of(game).title
    text, html = render("organiser", game=game, game_title=game_title, title=title, paragraphs=paragraphs)
    return Email("organiser", to, subject(game, title), text, html)
