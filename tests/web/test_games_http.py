"""Whole games played only through HTTP, from each seat's personal link to the final page.

Each game is played with Flask test clients (one per person, as one browser each): the
test reads the move buttons from the page HTML, checks they are exactly the engine's
legal moves, posts one (303), sometimes uses a signed move link instead (a confirm page,
then "Already played" when it is used again), and changes discard preferences out of
turn. Bots play inside the same requests. At the end the final page names the winners
(R10) and replaying the log gives the snapshot.

Every page rendered is checked against the engine (R11): the one "Your hand" section
(``data-hand`` in templates/games/call-to-glory/board.html) is the viewer's hand, every other card on the
page is public (a set on the table or the top of a discard pile), other players' hands
appear only as sizes, only the viewer's unrevealed task cards are shown, and the log
names no card another player drew face down. ``test_the_page_check_catches_leaks`` shows
the check fails on templates that leak.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jinja2 import ChoiceLoader, DictLoader

from engine import call_to_glory as glory
from engine.call_to_glory.cards import counts_json
from pbem import db
from pbem.core import games, links
from tests.apps import Table, new_table

NAMES = ("ann", "bob", "cy", "dee")
MOVE_FIELDS = ("do", "pile", "type", "count", "target", "deck")
PREFERENCES = ("smaller", "larger", "pile1", "pile2")
LINK_CHANCE = 0.06
PREFERENCE_CHANCE = 0.04
PEEK_CHANCE = 0.08


# --- reading a page -------------------------------------------------------------------------------------------


@dataclass
class Form:
    """One form of a page: where it posts, its hidden fields and its button's label."""

    action: str
    fields: dict[str, str] = field(default_factory=dict)
    label: str = ""

    def move(self) -> dict[str, str]:
        """The move the form posts, as strings (what a browser sends)."""
        return {k: self.fields[k] for k in MOVE_FIELDS if self.fields.get(k)}

    def preference(self) -> dict[str, str]:
        """The preference move the form posts."""
        return {"do": "preference", "discard_preference": self.fields["discard_preference"]}


@dataclass
class Card:
    """A card drawn with the card macro: its type, the count shown (1 if none) and whether it is in a hand."""

    type: str
    count: int
    hand: str | None


class PageParser(HTMLParser):
    """Collects forms, hand sections, cards (inside a hand section or not) and task cards of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self.hands: list[str] = []
        self.cards: list[Card] = []
        self.tasks: list[str] = []
        self.card_classes = 0
        self._form: Form | None = None
        self._hand: str | None = None
        self._card_depth = 0
        self._in_count = False
        self._in_task = False
        self._in_button = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if "data-hand" in a:
            self.hands.append(a["data-hand"])
            self._hand = a["data-hand"]
        if tag == "form":
            self._form = Form(a.get("action", ""))
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None and a.get("type") == "hidden":
            self._form.fields[a.get("name", "")] = a.get("value", "")
        elif tag == "button":
            self._in_button = True
        elif tag == "span":
            if self._card_depth:
                self._card_depth += 1
            elif "card" in classes:
                self.card_classes += 1
                kinds = [c[2:] for c in classes if c.startswith("t-")]
                assert len(kinds) == 1, f"a card shows one type: {classes}"
                self.cards.append(Card(kinds[0], 1, self._hand))
                self._card_depth = 1
            elif "task" in classes:
                self._in_task = True
                self.tasks.append("")
        elif tag == "i" and self._card_depth:
            self._in_count = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "button":
            self._in_button = False
        elif tag == "section":
            self._hand = None
        elif tag == "span":
            if self._card_depth:
                self._card_depth -= 1
            self._in_task = False
        elif tag == "i":
            self._in_count = False

    def handle_data(self, data: str) -> None:
        if self._in_count:
            assert data.startswith("×"), f"a card's count reads ×n, not {data!r}"
            self.cards[-1].count = int(data[1:])
        if self._in_task:
            self.tasks[-1] += data
        if self._in_button and self._form is not None:
            self._form.label += data


def parse(html: str) -> PageParser:
    parser = PageParser()
    parser.feed(html)
    parser.close()
    return parser


def text_of(html: str) -> str:
    """The page's text with tags removed and whitespace collapsed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def check_page(html: str, state: glory.State, viewer: str) -> PageParser:
    """Assert the page shows ``viewer`` their own hand and nothing another player keeps hidden (R11)."""
    page = parse(html)
    players = state.players
    me = state.index[viewer]
    view = glory.player_view(state, viewer)
    hand = view["hands"][viewer]
    assert hand == counts_json(state.hands[me])
    # One hand section, the viewer's, showing exactly the viewer's hand.
    assert page.hands == [viewer], f"hand sections on {viewer}'s page: {page.hands}"
    assert page.card_classes == len(page.cards)
    shown = {c.type: c.count for c in page.cards if c.hand is not None}
    assert len(shown) == sum(1 for c in page.cards if c.hand is not None), "each type once in the hand"
    assert shown == hand, f"{viewer}'s hand on the page is {shown}, the engine's is {hand}"
    for q, name in enumerate(players):
        theirs = counts_json(state.hands[q])
        if q != me and theirs != hand:
            assert shown != theirs, f"{viewer}'s page shows {name}'s hand"
    # Every other card on the page is public: one per set on the table (with its size), one per discard top.
    outside = Counter((c.type, c.count) for c in page.cards if c.hand is None)
    public: Counter[tuple[str, int]] = Counter()
    for name in players:
        public.update(view["tables"][name].items())
    public.update((pile[-1], 1) for pile in view["discard_piles"] if pile)
    assert outside == public, f"cards outside {viewer}'s hand: {outside}, public ones: {public}"
    # Other hands only as sizes.
    text = text_of(html)
    for q, name in enumerate(players):
        size = sum(state.hands[q])
        you = " (you)" if q == me else ""
        assert re.search(rf"\b{name}{re.escape(you)}(?: · bot)? {size} in hand\b", text), f"{name} holds {size}"
    # Only the viewer's own unrevealed task cards.
    if state.options.imperial_tasks:
        mine = sorted(f"{deck}: {glory.TYPES[t].capitalize()}" for deck, t in state.tasks[me].items())
        assert sorted(t.strip() for t in page.tasks) == mine
    else:
        assert page.tasks == []
    # The log never names a card someone else drew face down.
    for who, _card in re.findall(r"(\w+) drew an? (\w+) from draw pile", text):
        assert who == "You", f"{viewer}'s page shows the card {who} drew face down"
    return page


# --- playing --------------------------------------------------------------------------------------------------


@dataclass
class Person:
    """A seat played by a person: their own browser and personal link."""

    position: int
    name: str
    client: FlaskClient
    token: str


@dataclass
class GameRun:
    """A game being played through HTTP, with what the test has done so far."""

    app: Flask
    table: Table
    people: dict[int, Person]
    rng: random.Random
    pages: int = 0
    links: int = 0
    preferences: int = 0

    def get(self, person: Person, token: str | None = None) -> str:
        """GET a seat's page (personal or move link); check status, that nothing changed, and the hand."""
        before = (self.table.version(), self.table.moves_logged())
        r = person.client.get(f"/play/{token or person.token}")
        assert r.status_code == 200, r.text
        assert (self.table.version(), self.table.moves_logged()) == before, "a GET changed the game"
        check_page(r.text, self.table.state(), person.name)
        self.pages += 1
        return r.text

    def check_back_to_page(self, person: Person, location: str) -> None:
        """A redirect goes to the seat's own personal page (tokens carry a timestamp: compare what they say)."""
        assert location.startswith("/play/")
        with self.app.test_request_context():
            link = links.read(location.removeprefix("/play/"))
        assert (link.purpose, link.game_id, link.seat) == (links.PERSONAL, self.table.game_id, person.position)

    def post(self, person: Person, path: str, data: dict[str, str], move: dict[str, str], source: str) -> str:
        """POST ``move`` (a form or a link): 303 to the personal page, one new version; return that page."""
        version, logged = self.table.version(), self.table.moves_logged()
        r = person.client.post(path, data=data)
        assert r.status_code == 303, r.text
        self.check_back_to_page(person, r.headers["Location"])
        assert self.table.version() == version + 1, "a move (and the bots after it) is one new version"
        now = self.table.moves_logged()
        with self.app.app_context():
            first = games.move_log(session=db.get_session(), game_id=self.table.game_id, limit=now - logged)[0]
        expected = {"player": person.name, **{k: int(v) if k == "count" else v for k, v in move.items()}}
        assert (first.seat, first.move, first.source) == (person.position, expected, source)
        html = self.get(person)
        if self.table.state().status == "finished":  # the result comes first, not the last move
            assert "Done: " not in html and 'id="result"' in html
        else:
            assert "Done: " in html
        return html


def offered_moves(page: PageParser) -> list[Form]:
    return [f for f in page.forms if f.fields.get("do") not in (None, "preference")]


def legal(state: glory.State) -> list[dict[str, str]]:
    return [{k: str(v) for k, v in m.to_json().items() if k != "player"} for m in glory.legal_moves(state)]


def choose(forms: list[Form], rng: random.Random) -> Form:
    """A button, preferring Ninja lays and uses and other lays, so that sets and Ninjas happen."""
    by_kind: dict[str, list[Form]] = {}
    for f in forms:
        by_kind.setdefault(f.fields["do"], []).append(f)
    if "ninja" in by_kind and rng.random() < 0.6:
        return rng.choice(by_kind["ninja"])
    if "lay" in by_kind:
        ninja_lays = [f for f in by_kind["lay"] if f.fields["type"] == "ninja"]
        if ninja_lays:
            return rng.choice(ninja_lays)
        if rng.random() < 0.85:
            return rng.choice(by_kind["lay"])
    for kind in ("reveal_task", "draw", "discard"):
        if kind in by_kind:
            return rng.choice(by_kind[kind])
    raise AssertionError(f"no move among {forms}")


def change_preference(game: GameRun, person: Person) -> None:
    """A player changes their discard preference with the page's form, out of turn if not to act (R7)."""
    state = game.table.state()
    page = parse(game.get(person))
    if state.current != person.position:
        assert offered_moves(page) == [], "only the player to act gets move buttons"
    forms = [f for f in page.forms if f.fields.get("do") == "preference"]
    current = glory.player_view(state, person.name)["preferences"][person.name]
    assert sorted(f.fields["discard_preference"] for f in forms) == sorted(set(PREFERENCES) - {current})
    form = game.rng.choice(forms)
    assert form.fields["decision"] == ""
    logged = game.table.moves_logged()
    game.post(person, form.action, form.fields, form.preference(), "page")
    after = game.table.state()
    assert after.ply == state.ply, "a preference is not a decision of the game"
    assert glory.PREFERENCES[after.preferences[person.position]] == form.fields["discard_preference"]
    assert game.table.moves_logged() == logged + 1
    assert glory.PREFERENCES[game.table.state().preferences[person.position]] == form.fields["discard_preference"]
    game.preferences += 1


def play_by_link(game: GameRun, person: Person, move: dict[str, str]) -> str:
    """Play ``move`` by a move link: GET shows a confirm button, POST plays it, using it again changes nothing."""
    body: dict[str, Any] = {k: int(v) if k == "count" else v for k, v in move.items()}
    token = game.table.move_token(person.position, body)
    confirm = game.get(person, token)
    assert "Confirm your move" in confirm and "Already played" not in confirm
    forms = parse(confirm).forms
    assert forms[0].action.endswith(f"/play/{token}") and set(forms[0].fields) == {"csrf_token"}
    csrf = forms[0].fields["csrf_token"]
    game.post(person, f"/play/{token}", {"csrf_token": csrf}, move, "link")
    version, logged = game.table.version(), game.table.moves_logged()
    again = game.get(person, token)
    assert "Already played" in again and "Confirm your move" not in again
    r = person.client.post(f"/play/{token}", data={"csrf_token": csrf})
    assert r.status_code == 303, r.text
    game.check_back_to_page(person, r.headers["Location"])
    assert (game.table.version(), game.table.moves_logged()) == (version, logged), "a used link played again"
    html = game.get(person)
    assert "Already played" in html and "Done: " not in html
    game.links += 1
    return html


def play(app: Flask, table: Table, kinds: tuple[str, ...], rng: random.Random) -> GameRun:
    """Play the game to its end through HTTP only; return what was done."""
    people = {
        p: Person(p, NAMES[p], app.test_client(), table.personal(p)) for p, kind in enumerate(kinds) if kind == "human"
    }
    game = GameRun(app, table, people, rng)
    state = table.state()
    html: str | None = None
    decisions = 0
    while not state.is_finished:
        p = state.current
        assert p in people, "bots play inside the request of the person before them"
        person = people[p]
        if html is None:
            html = game.get(person)
        forms = offered_moves(parse(html))
        assert sorted(map(sorted, (f.move().items() for f in forms))) == sorted(
            map(sorted, (m.items() for m in legal(state)))
        ), "the page offers exactly the legal moves"
        assert all(f.fields["decision"] == str(state.ply) for f in forms)
        others = [q for q in people.values() if q.position != p]
        if others and rng.random() < PEEK_CHANCE:
            waiting = game.get(rng.choice(others))
            assert f"Waiting for <strong><bdi>{person.name}</bdi></strong>" in waiting
        if game.preferences == 0 or rng.random() < PREFERENCE_CHANCE:
            # Out of turn when someone else is a person; the move forms already shown stay valid.
            change_preference(game, rng.choice(others) if others else person)
        form = choose(forms, rng)
        if decisions == 2 or rng.random() < LINK_CHANCE:
            html = play_by_link(game, person, form.move())
        else:
            html = game.post(person, form.action, form.fields, form.move(), "page")
        decisions += 1
        state = table.state()
        if state.current != p:
            html = None
    return game


def expected_winners(state: glory.State) -> list[str]:
    """R10, computed here: most total points; tie → highest single-round score; still tied → shared."""
    best = max(state.totals)
    tied = [p for p in range(state.n) if state.totals[p] == best]
    top_round = max(max(r[p] for r in state.round_scores) for p in tied)
    return [state.players[p] for p in tied if max(r[p] for r in state.round_scores) == top_round]


@dataclass(frozen=True)
class Case:
    """A game to play: each seat a person or a bot, the options, the seed (of the game and of the choices)."""

    kinds: tuple[str, ...]
    options: glory.Options
    seed: int


CASES = {
    "2p-plain-default-rounds": Case(("human", "heuristic"), glory.Options(), 21),
    "2p-V1-V2-people": Case(("human", "human"), glory.Options(rounds=1, imperial_tasks=True, ninja_power=True), 22),
    "3p-V1": Case(("human", "random", "human"), glory.Options(rounds=2, imperial_tasks=True), 23),
    "3p-V2": Case(("human", "human", "human"), glory.Options(rounds=1, ninja_power=True), 24),
    "4p-V1-V2": Case(
        ("human", "heuristic", "human", "random"), glory.Options(rounds=1, imperial_tasks=True, ninja_power=True), 25
    ),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_a_whole_game_through_the_pages(app: Flask, case: Case) -> None:
    """From the first page to the final one, by pages and links only; the winners shown are R10's."""
    seats = [
        games.SeatSpec(NAMES[p], email=None if kind != "human" else f"{NAMES[p]}@example.com", kind=kind)
        for p, kind in enumerate(case.kinds)
    ]
    table = new_table(app, seats, options=case.options, seed=case.seed)
    game = play(app, table, case.kinds, random.Random(case.seed))

    state = table.state()
    assert state.status == "finished"
    assert len(state.round_scores) == case.options.resolved_rounds()
    winners = expected_winners(state)
    assert [state.players[w] for w in state.winners] == winners
    for person in game.people.values():
        html = game.get(person)
        page = parse(html)
        assert "Game over" in html
        plural = "s (shared victory)" if len(winners) > 1 else ""
        shown = ", ".join(f"<bdi>{w}</bdi>" for w in winners)
        assert f"Winner{plural}: <strong>{shown}</strong>" in html
        moves = [f for f in page.forms if not f.action.endswith(("/say", "/language", "/erase", "/again"))]
        assert moves == [], (
            "the final page offers no moves and no preference change (only talk, language, erasure, play again)"
        )
    assert table.verify(), "replaying the log from the seed gives the snapshot"

    with app.app_context():
        log = games.move_log(session=db.get_session(), game_id=table.game_id)
    kinds = Counter(r.move["do"] for r in log)
    sources = Counter(r.source for r in log)
    for r in log:
        bot = case.kinds[r.seat] != "human"
        assert (r.source == "bot") == bot, f"move {r.seq} of {NAMES[r.seat]} came from {r.source}"
    assert sources["link"] == game.links >= 1, "each move link played once"
    assert sources["page"] >= 1
    assert kinds["lay"] >= 1
    assert kinds["preference"] == game.preferences >= 1
    if any(kind != "human" for kind in case.kinds):
        assert sources["bot"] >= 1
    if case.options.ninja_power:
        assert kinds["ninja"] >= 1, "a Ninja was used"
    if case.options.imperial_tasks:
        assert kinds["reveal_task"] >= 1


# --- the check itself -----------------------------------------------------------------------------------------

TABLE_LINE = '<div class="cards">\n    {% if v.tables[s.name] %}'
HAND_LINE = "{% if v.hands[me] %}{{ cards(v.hands[me], drawn=v.drawn or ()) }}"
BOARD = "games/call-to-glory/board.html"
# A leaky board: (text of BOARD, what replaces it, what check_page says about the leak on bob's page).
LEAKS = {
    "every-hand-on-the-table": (
        TABLE_LINE,
        '<div class="cards">{% for n in page.state.hands[loop.index0] %}{% if n %}'
        "{{ card((game_data('call-to-glory')['values'].keys()|list)[loop.index0], n) }}{% endif %}{% endfor %}\n"
        "    {% if v.tables[s.name] %}",
        "cards outside bob's hand",
    ),
    "another-hand-section": (
        TABLE_LINE,
        '<div data-hand="{{ s.name }}"></div><div class="cards">\n    {% if v.tables[s.name] %}',
        "hand sections on bob's page",
    ),
    "the-next-seat's-hand": (
        HAND_LINE,
        "{% set q = (page.seat.position + 1) % page.seats|length %}"
        "{% set types = game_data('call-to-glory')['values'].keys()|list %}"
        "{% for type, n in dict(zip(types, page.state.hands[q])).items() if n %}{{ card(type, n) }}{% endfor %}"
        "{% if true %}",
        "bob's hand on the page is",
    ),
    "hand-sizes-from-the-state": (
        "v.hand_sizes[s.name]",
        "page.state.hands[page.seat.position]|sum",
        "ann holds 5",
    ),
}


@pytest.mark.parametrize("leak", list(LEAKS))
def test_the_page_check_catches_leaks(app: Flask, table: Table, leak: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page check fails on a board that shows hidden cards: it is not vacuous."""
    client = app.test_client()
    ann, bob = table.personal(0), table.personal(1)
    for _ in range(2):  # ann draws twice: her hand is no longer the size of the others'
        csrf = parse(client.get(f"/play/{ann}").text).forms[0].fields["csrf_token"]
        state = table.state()
        r = client.post(f"/play/{ann}", data={"csrf_token": csrf, "decision": str(state.ply), **legal(state)[0]})
        assert r.status_code == 303
    check_page(client.get(f"/play/{bob}").text, table.state(), "bob")

    old, new, message = LEAKS[leak]
    loader = app.jinja_env.loader
    assert loader is not None
    source = loader.get_source(app.jinja_env, BOARD)[0]
    assert source.count(old) == 1, "the board changed: update the leak"
    monkeypatch.setitem(app.jinja_env.globals, "zip", zip)
    monkeypatch.setattr(app.jinja_env, "loader", ChoiceLoader([DictLoader({BOARD: source.replace(old, new)}), loader]))
    if app.jinja_env.cache is not None:
        app.jinja_env.cache.clear()
    leaky = client.get(f"/play/{bob}")
    assert leaky.status_code == 200, leaky.text
    with pytest.raises(AssertionError, match=message):
        check_page(leaky.text, table.state(), "bob")
