"""Call to Adventure's turn emails in words: the setup email's text part shows what each character dealt does,
once a Destiny is complete every other player's subject and first line say it is their last turn, and in each
language the cards' kinds, icons and rewards are the engine's words (its ``Words`` and ``page_texts``)."""

from __future__ import annotations

import html

import pytest
from flask import Flask
from sqlmodel import col, select

from engine.call_to_adventure.words import Words
from engine.call_to_adventure.words_fr import FR
from engine.call_to_adventure.words_nl import NL
from pbem import db, i18n
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.mail import compose, notify
from pbem.models import OutboxEmail
from tests.adventure_helpers import GAME, RULES, adventure_table, state_of
from tests.apps import new_table

WORDS: dict[str, type[Words]] = {"en": Words, "nl": NL, "fr": FR}


def test_the_setup_email_text_says_what_each_character_dealt_does(app: Flask) -> None:
    table = adventure_table(app, ["ann", "bob"], seed=2)
    view = RULES.player_view(state_of(table), "ann")
    offers = view["players"]["ann"]["offers"]
    with app.app_context():
        session = db.get_session()
        seat = table.seat(0)
        row = session.exec(
            select(OutboxEmail).where(col(OutboxEmail.seat_id) == seat.id, col(OutboxEmail.kind) == "turn")
        ).one()
        assert row.render is not None, "a turn email is rendered when it is sent, from the game as it is then"
        text = notify.render_queued(
            session=session,
            kind=row.kind,
            game_id=table.game_id,
            seat_id=seat.id or 0,
            to=row.to_addr,
            headers=dict(row.headers),
            decision=row.decision,
            what=row.render,
        ).text
    for kind in ("Origin", "Motivation", "Destiny"):
        assert f"{kind} (only you see this):" in text
    for ids in offers.values():
        for card in ids:
            info = view["cards"][card]
            assert info["name"] in text, card
            assert all(line in text for line in info["lines"]), (card, info["lines"])


def test_once_a_destiny_is_complete_the_others_are_told_it_is_their_last_turn(app: Flask) -> None:
    table = adventure_table(app, ["ann", "bob"], {"first_game": True, "first_player": "ann"}, seed=1)
    state = state_of(table)
    with app.app_context():
        session = db.get_session()
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        ann = table.seat(0)
        assert compose.turn_subject(game, state, ann).endswith("· Your turn")
        state.final = 1  # bob completed his Destiny; ann plays her last turn
        subject = compose.turn_subject(game, state, ann)
        assert subject.endswith("· Your last turn"), subject
        view = RULES.player_view(state, "ann")
        intro = compose.partial(game.game, "turn_intro.txt").render(
            game=game, seat=ann, view=view, texts=RULES.page_texts(view, "ann"), decision=None
        )
        assert intro.strip().startswith("This is your last turn in "), intro
        assert intro.strip().endswith("bob completed their Destiny."), intro


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_a_turn_emails_card_words_are_the_engines_in_each_language(app: Flask, lang: str) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com", language=lang) for n in ("ann", "bob")]
    table = new_table(app, specs, game=GAME, seed=5, options={"allies_adversaries": True})
    words = {**Words.TEXTS, **WORDS[lang].TEXTS}
    rules = RULES.speaking(lang)
    with app.test_request_context(), app.app_context(), i18n.in_language(lang):
        session = db.get_session()
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = seat_rows.seats_of(session=session, game_id=table.game_id)
        state = games.load_state(game)
        email = compose.turn(game=game, seats=seats, seat=seats[0], state=state, story=[])
    view = rules.player_view(state, "ann")
    texts = rules.page_texts(view, "ann")
    page = html.unescape(email.html)
    row = [card for card in view["rows"][0] if card]
    assert row, "Act I lies face up"
    for card in row:
        info, said = view["cards"][card], texts["cards"][card]
        kind = words[f"type_{info['type']}"]
        assert f"{info['name']} ({kind}, {said['act']})" in email.text, (lang, info["name"])
        assert said["kind"] == f"{kind} · {said['act']}" and said["kind"] in page
        for path, path_said in zip(info["paths"], said["paths"], strict=True):
            assert all(words[f"icon_{icon}"] in path_said["rewards"] for icon in path["icons"])
            assert f"{path_said['label']} {path_said['rewards']}" in email.text
            assert path_said["rewards"] in page
    if lang != "en":
        assert f"({Words.TEXTS['type_challenge']}," not in email.text, "no English card kind is left"
