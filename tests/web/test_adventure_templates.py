"""Call to Adventure's templates (templates/games/call-to-adventure/) rendered through the real app, for games
created and played through the services: the page and the emails at setup, with a cast under way, and at the
end; each shows the names of the cards, never another player's hand or Destiny, and the A10 breakdown at the end;
Dutch and French renders carry no English words of these templates."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from pbem import db, flows
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.mail import compose
from tests.apps import Table, new_table

KEY = "call-to-adventure"
RULES = engine.GAMES[KEY]
TAGS = re.compile(r"<[^>]+>")
FOLDER = Path(__file__).resolve().parents[2] / "templates" / "games" / KEY


def people(*langs: str) -> list[games.SeatSpec]:
    """ann, bob … as people speaking ``langs``."""
    names = ("ann", "bob", "cy", "dee")
    return [games.SeatSpec(names[i], email=f"{names[i]}@example.com", language=lang) for i, lang in enumerate(langs)]


def play_until(app: Flask, table: Table, done: Callable[[Any], bool], limit: int = 400) -> Any:
    """Let the heuristic bot decide for every waited-for person, move by move through the services, until
    ``done(state)``; the state then."""
    for _ in range(limit):
        state = table.state()
        if done(state):
            return state
        waiting = RULES.waiting_for(state)
        assert waiting, "the game ended before the wanted moment"
        player, decision = next(iter(waiting.items()))
        move = RULES.bots["heuristic"](games.bot_seed(decision)).choose(state, player)
        body = {k: v for k, v in move.to_json().items() if k != "player"}
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session,
                game_id=table.game_id,
                seat=list(state.players).index(player),
                move=body,
                decision=decision.id,
                source="page",
            )
    raise AssertionError("the wanted moment never came")


def page_of(client: FlaskClient, table: Table, position: int) -> str:
    """The seat's page, as text without tags."""
    response = client.get(f"/play/{table.personal(position)}")
    assert response.status_code == 200, response.text[:500]
    return response.get_data(as_text=True)


def names(state: Any, ids: Any, lang: str = "en") -> list[str]:
    """The cards' names in ``lang``."""
    return [state.cards.cards[c].title(lang) for c in ids]


def cast_under_way(state: Any) -> bool:
    return state.attempt is not None and state.attempt.cast


def finished(state: Any) -> bool:
    return state.status == "finished"


def english_fragments() -> list[str]:
    """The English words of this game's templates (their msgids, as ``pbem i18n extract`` finds them), cut at
    their placeholders and tags: the pieces of two words or more."""
    from babel.messages.extract import DEFAULT_KEYWORDS, extract

    pieces: set[str] = set()
    for path in FOLDER.iterdir():
        if path.suffix not in (".html", ".txt") or path.name.startswith("how_to_play"):
            continue
        with path.open("rb") as f:
            for _line, message, _comments, _context in extract("jinja2", f, DEFAULT_KEYWORDS):
                for text in message if isinstance(message, tuple) else (message,):
                    for piece in re.split(r"%\(\w+\)[sd]|<[^>]+>|\n", text or ""):
                        piece = piece.strip(" .:;,()·")
                        if len(piece.split()) >= 2:
                            pieces.add(piece)
    assert len(pieces) > 40, "the templates' msgids are found"
    return sorted(pieces)


def plain(html: str) -> str:
    """Text of an HTML page: tags gone, entities and spaces as one reads them."""
    from html import unescape

    return re.sub(r"[ \t\r\n]+", " ", unescape(TAGS.sub(" ", html)))


@contextmanager
def seat_scene(app: Flask, table: Table, position: int) -> Iterator[tuple[Any, list[Any], Any, Any]]:
    """(game, seats, seat, state) of the table, read inside a request, speaking the seat's language."""
    from pbem import i18n

    with app.test_request_context(), app.app_context():
        session = db.get_session()
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = seat_rows.seats_of(session=session, game_id=table.game_id)
        with i18n.in_language(seats[position].language):
            yield game, seats, seats[position], games.load_state(game)


def emails(app: Flask, table: Table, position: int, *, invitation: bool = False) -> list[compose.Email]:
    """The seat's emails about the game as it stands, composed in the seat's language: the invitation (at setup),
    a turn email, or the game-over email."""
    with seat_scene(app, table, position) as (game, seats, seat, state):
        if invitation:
            return [compose.invitation(game=game, seats=seats, seat=seat, state=state, root=True)]
        if state.status == "finished":
            return [compose.game_over(game=game, seats=seats, seat=seat, state=state, record="{}")]
        return [compose.turn(game=game, seats=seats, seat=seat, state=state, story=[])]


def milestone_emails(app: Flask, table: Table, position: int, milestones: list[Any]) -> compose.Email:
    """The score-sheet email of ``milestones`` for the seat, in its language."""
    with seat_scene(app, table, position) as (game, seats, seat, state):
        return compose.milestone_sheet(game=game, seats=seats, seat=seat, state=state, milestones=milestones)


def test_at_setup_each_seat_sees_its_own_characters_to_choose_from(app: Flask, client: FlaskClient) -> None:
    table = new_table(app, people("en", "en"), game=KEY, seed=5)
    state = table.state()
    ann, bob = state.ps
    own = [c for kind in ("origin", "motivation", "destiny") for c in ann.offers[kind]]
    others = [c for kind in ("origin", "motivation", "destiny") for c in bob.offers[kind]]
    page = plain(page_of(client, table, 0))
    assert "Setup: everyone chooses their characters" in page
    for name in names(state, own):
        assert name in page, f"ann's offer {name} is on her page"
    for name in names(state, others):
        assert name not in page, f"bob's offer {name} is not on ann's page"
    assert "only you see this" in page and "Is still choosing their characters." in page
    row = names(state, [c for c in state.rows[0] if c])
    assert all(name in page for name in row), "Act I's row is face up"
    assert page.count("4 cards face down") == 2, "Acts II and III lie face down"
    [invitation] = emails(app, table, 0, invitation=True)
    for text in (invitation.text, plain(invitation.html)):
        assert "THE CHARACTERS DEALT TO YOU" in text.upper()
        assert all(name in text for name in names(state, own))
        assert not any(name in text for name in names(state, others))


def test_a_cast_under_way_shows_its_runes_the_rows_odds_and_only_the_viewers_secrets(
    app: Flask, client: FlaskClient
) -> None:
    table = new_table(app, people("en", "en"), game=KEY, seed=5, options={"allies_adversaries": True})
    state = play_until(app, table, cast_under_way)
    attempt = state.attempt
    active = state.current
    other = 1 - active
    card = state.cards.cards[attempt.card].title()
    view = RULES.player_view(state, state.players[active])
    for position in (active, other):
        html = page_of(client, table, position)
        page = plain(html)
        assert "The challenge under way" in page and card in page
        assert html.count('class="cta-rune ') == len(attempt.runes), "one tile per rune cast"
        assert f"Total {view['attempt']['total']} against difficulty {view['attempt']['difficulty']}" in page
        mine, theirs = state.ps[position], state.ps[1 - position]
        assert all(name in page for name in names(state, mine.hand)), "the viewer's hand"
        assert not any(name in page for name in names(state, theirs.hand)), "never the other's hand"
        assert state.cards.cards[mine.destiny].title() in page, "the viewer's own Destiny"
        assert state.cards.cards[theirs.destiny].title() not in page, "never the other's Destiny"
        for p in state.ps:
            assert state.cards.cards[p.origin].title() in page and state.cards.cards[p.motivation].title() in page
        odds = RULES.player_view(state, state.players[position])["odds"]
        shown = [o for card_odds in odds.values() for o in card_odds.values()]
        assert any(o["open"] for o in shown) or all(o["reason"] in page for o in shown)
        for o in shown:
            if o["open"]:
                assert f"Your chance: {o['chances'][0]}\u00a0%" in page
    [turn] = emails(app, table, active)
    for text in (turn.text, plain(turn.html)):
        assert card in text and "THE ROWS" in text.upper() and "THE STORIES" in text.upper()
        assert all(name in text for name in names(state, state.ps[active].hand))
        assert not any(name in text for name in names(state, state.ps[other].hand))
        assert state.cards.cards[state.ps[other].destiny].title() not in text
    assert turn.subject.endswith("Act I · Your turn")


def test_at_the_end_every_destiny_and_the_breakdown_are_shown(app: Flask, client: FlaskClient) -> None:
    seats = [people("en")[0], games.SeatSpec("Rex", kind="heuristic")]
    table = new_table(app, seats, game=KEY, seed=11)
    state = play_until(app, table, finished, limit=2000)
    result = RULES.result(state)
    assert result is not None
    view = RULES.player_view(state, "ann")
    page = plain(page_of(client, table, 0))
    for name, p in view["players"].items():
        assert p["breakdown"]["total"] == result.scores[name], "the breakdown adds up to the score"
        assert state.cards.cards[p["destiny"]].title() in page, "each Destiny is revealed"
    totals = re.search(r"Destiny score ((?:-?\d+ )+)", page)
    assert totals is not None and [int(x) for x in totals.group(1).split()] == [result.scores[n] for n in state.players]
    assert "Sets of story icons" in page and "Hero and Antihero cards played" in page
    [over] = emails(app, table, 0)
    for text in (over.text, plain(over.html)):
        assert "DESTINY SCORES" in text.upper() and "THE DESTINIES REVEALED" in text.upper()
        assert all(state.cards.cards[p.destiny].title() in text for p in state.ps)
        for n in state.players:
            assert str(view["players"][n]["breakdown"]["total"]) in text
    milestone = RULES.milestones(table.state(), table.state())  # nothing between a state and itself
    assert milestone == []
    sheet = milestone_emails(
        app, table, 0, [engine.protocol.Milestone("game_over", "Game over", None, {"ended_by": state.ended_by})]
    )
    assert "The game is over." in sheet.text


def partials(app: Flask, table: Table, position: int, *names: str, **extra: Any) -> list[str]:
    """The game's email partials ``names`` alone, rendered as the email composer does for the seat, in its
    language (so nothing the engine itself words is in them)."""
    with seat_scene(app, table, position) as (game, seats, seat, state):
        view = RULES.player_view(state, seat.name)
        context = compose._base(game, seats, seat) | {"view": view, "texts": RULES.page_texts(view, seat.name)}
        context |= {"decision": games.decision_of(RULES, state, seat.name)} | extra
        return [compose.partial(KEY, name).render(context) for name in names]


def board_of(html: str) -> str:
    """The game's board and scores on a page (the partials), without the engine's choices and log."""
    board = html[html.index('<div class="cta">') : html.index('<section class="talk"')]
    return re.sub(r'<ul class="progress">.*?</ul>', "", board, flags=re.S)


@pytest.mark.parametrize("lang", ["nl", "fr"])
def test_dutch_and_french_carry_no_english_words_of_the_templates(app: Flask, client: FlaskClient, lang: str) -> None:
    table = new_table(app, people(lang, lang), game=KEY, seed=5, options={"allies_adversaries": True})
    english = english_fragments()
    texts = [board_of(page_of(client, table, 0)), *partials(app, table, 0, "invitation.txt", "invitation.html")]
    state = play_until(app, table, cast_under_way)
    seat = state.current
    texts += [board_of(page_of(client, table, seat))]
    texts += partials(app, table, seat, "board_email.txt", "board_email.html")
    texts += partials(app, table, seat, "turn_intro.txt", "turn_intro.html", decision=None)  # the prompt: the engine's
    texts += partials(app, table, seat, "turn_subject.txt")
    act = engine.protocol.Milestone("act", "Act II begins", 2)
    texts += partials(app, table, 0, "milestone.txt", "milestone.html", milestone=act)
    for text in texts:
        words = plain(text)
        left = [piece for piece in english if piece in words]
        assert not left, f"English left in the {lang} render: {left}"
    assert ("Akte I" if lang == "nl" else "Acte I") in plain(texts[0]), "the page speaks the seat's language"


def test_a_solo_game_against_the_adversary_says_how_it_ended(app: Flask, client: FlaskClient) -> None:
    table = new_table(app, people("en"), game=KEY, seed=3, options={"coop": True})
    state = play_until(app, table, finished, limit=2000)
    adversary = RULES.player_view(state, "ann")["adversary"]
    page = plain(page_of(client, table, 0))
    assert state.cards.cards[adversary["card"]].title() in page
    [over] = emails(app, table, 0)
    if adversary["defeated_by"]:
        fate = "The Adversary was defeated by ann: everyone wins."
    elif adversary["experience"] >= adversary["goal"]:
        fate = "The Adversary reached its goal: everyone loses."
    else:
        fate = "No story card was left for anyone to gain." if state.ended_by == "no_cards" else "any more"
    assert fate in plain(over.html) and fate in over.text
    if adversary["defeated_by"] or adversary["experience"] >= adversary["goal"]:
        assert fate in page, "the page's scores say it too"
