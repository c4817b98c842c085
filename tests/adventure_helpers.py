"""Shared helpers for the Call to Adventure server tests: games through the services, and the privacy check of what
one player is shown (A12) against the engine state of that moment."""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, cast

from flask import Flask

import engine
from engine.call_to_adventure.state import State
from pbem import db
from pbem.core import games, links
from tests.apps import Table, new_table

GAME = "call-to-adventure"
RULES = engine.GAMES[GAME]


def adventure_table(
    app: Flask, names: Sequence[str], options: Mapping[str, Any] | None = None, seed: int = 1, **kw: Any
) -> Table:
    """A game of Call to Adventure of people (``name@example.com``) created through the services."""
    specs = [games.SeatSpec(n, email=f"{n.lower()}@example.com") for n in names]
    return new_table(app, specs, game=GAME, options=dict(options or {}), seed=seed, **kw)


def move_token(table: Table, position: int, move: Mapping[str, Any]) -> str:
    """A signed move link token for the seat's open decision (as its turn email carries)."""
    seat = table.seat(position)
    decision = RULES.waiting_for(state_of(table))[seat.name]
    with table.app.test_request_context():
        return links.move_token(table.game_id, position, seat.nonce, decision.id, dict(move))


def state_of(table: Table) -> State:
    """The stored snapshot of a Call to Adventure table as an engine state."""
    return cast(State, table.state())


def log_of(table: Table) -> list[dict[str, Any]]:
    """Every event of the game's log, oldest first."""
    with table.app.app_context():
        return games.log_events(session=db.get_session(), game_id=table.game_id)


def _ids(value: Any, out: set[str]) -> None:
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            _ids(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _ids(v, out)


@dataclass
class Witness:
    """What one player has legitimately been shown so far, beyond what the state shows them now: cards named in the
    log as they may read it, their own setup offers, and every card that lay in a discard pile (a card seen face up
    may later be shuffled back into a deck)."""

    player: str
    known: set[str] = field(default_factory=set)

    def update(self, state: State, log: Sequence[dict[str, Any]]) -> None:
        view = RULES.player_view(state, self.player, log)
        for event in view.get("log", []):
            _ids(event, self.known)
        me = state.ps[state.index(self.player)]
        for offered in me.offers.values():
            self.known.update(offered)
        for pile in state.discards:
            self.known.update(pile)
        self.known.update(state.decks.get("adversary_discard", []))
        if state.peek is not None and state.current == state.index(self.player):
            act, k, _back = state.peek
            self.known.update(state.decks[f"act{act + 1}"][-k:])


def secrets_of(state: State, witness: Witness) -> dict[str, str]:
    """The cards the witness may not see now (A12), each with what it is: other players' hands, Destinies (before the
    end), setup offers and (during setup) choices; face-down rows; decks (less what the witness saw before)."""
    me = state.index(witness.player)
    over = state.status == "finished"
    hidden: dict[str, str] = {}
    for i, p in enumerate(state.ps):
        if i == me:
            continue
        for c in p.hand:
            hidden[c] = f"{p.name}'s hand card"
        if p.destiny is not None and not over:
            hidden[p.destiny] = f"{p.name}'s Destiny"
        for kind, offered in p.offers.items():
            for c in offered:
                hidden[c] = f"{p.name}'s unchosen {kind}"
        if state.status == "setup":
            for kind in ("origin", "motivation"):
                chosen = getattr(p, kind)
                if chosen is not None:
                    hidden[chosen] = f"{p.name}'s {kind}, chosen in secret"
    for a, row in enumerate(state.rows):
        if not state.up[a]:
            for slot in row:
                if slot is not None:
                    hidden[slot] = f"a face-down card of Act {a + 1}'s row"
    for key, deck in state.decks.items():
        if key in ("aside", "adversary_discard"):
            continue
        for c in deck:
            if c not in witness.known and c not in hidden:
                hidden[c] = f"a card of the {key} deck"
    return hidden


def _words(text: str) -> str:
    return " ".join(htmllib.unescape(text).split())


def leaks(document: str, state: State, witness: Witness) -> list[str]:
    """Each hidden card whose id or name (in any language of the card) the document shows. A name is only searched
    when no card the witness may see has it inside its own name or text (a short name such as "Hex" may be a word of
    another card)."""
    text = _words(document)
    hidden = secrets_of(state, witness)
    cards = state.cards.cards
    shown = [c for cid, c in cards.items() if cid not in hidden]
    visible_words = " ".join(
        [*(n for c in shown for n in c.name.values()), *(t for c in shown for t in c.text.values())]
    )
    found = []
    tokens = set(re.findall(r"[\w-]+", text))
    for cid, what in hidden.items():
        if cid in tokens:
            found.append(f"{what} {cid} (its id)")
            continue
        for name in set(cards[cid].name.values()):
            if name not in text:  # the quick test first: most names are in no document
                continue
            pattern = rf"(?<!\w){re.escape(name)}(?!\w)"
            if re.search(pattern, text) and not re.search(pattern, visible_words, re.IGNORECASE):
                found.append(f"{what} {cid} (its name {name!r})")
    return found


@dataclass
class Button:
    """One way to submit a form of a page: where, how, the fields sent (hidden fields and the button's own name and
    value) and the button's label."""

    method: str
    action: str
    fields: dict[str, str]
    label: str = ""
    confirms: bool = False
    """Inside the page's section that confirms a move link (``section.confirm``)."""


class Page(HTMLParser):
    """The submit buttons (one per button of each form) and the link targets of a page."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.buttons: list[Button] = []
        self.links: list[str] = []
        self._form: tuple[str, str, dict[str, str]] | None = None
        self._mine: list[Button] = []
        self._button: Button | None = None
        self._sections: list[bool] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "section":
            self._sections.append("confirm" in a.get("class", "").split())
        elif tag == "form":
            self._form = (a.get("method", "get").lower(), a.get("action", ""), {})
            self._mine = []
        elif tag == "input" and self._form is not None and a.get("type") == "hidden" and a.get("name"):
            self._form[2][a["name"]] = a.get("value", "")
        elif tag == "button" and self._form is not None and a.get("type", "submit") == "submit" and "disabled" not in a:
            extra = {a["name"]: a.get("value", "")} if a.get("name") else {}
            self._button = Button(self._form[0], self._form[1], extra, confirms=any(self._sections))
            self._mine.append(self._button)
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self._sections:
            self._sections.pop()
        elif tag == "button":
            self._button = None
        elif tag == "form" and self._form is not None:
            for b in self._mine:  # hidden fields may follow the button in the form
                b.fields = {**self._form[2], **b.fields}
                b.label = " ".join(b.label.split())
            self.buttons += self._mine
            self._form = None

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button.label += data

    def moves(self) -> list[Button]:
        """The buttons that post a move of an open decision."""
        return [b for b in self.buttons if b.method == "post" and b.fields.get("decision") and b.fields.get("do")]

    def confirm_buttons(self, path: str) -> list[Button]:
        """On the confirm page of the move link ``path``: the buttons of its confirm section (the move, or its
        variants), else those posted to the link itself; not the page's own choices shown below."""
        posts = [b for b in self.buttons if b.method == "post"]
        return [b for b in posts if b.confirms] or [b for b in posts if b.action == path]

    def move_links(self, here: str) -> list[str]:
        """Links to other pages of a signed link (a move to confirm), not to this page or its sub-pages."""
        return [h for h in self.links if re.fullmatch(r"/play/[^/?#]+", h) and h != here]
