"""A player's page and turn email speak the seat's language (issue 14): the texts of the page, the email's HTML and
text parts and its subject come from the nl and fr catalogs, with plurals; English stays the default.

The seat's language is set in the database; until every view and sender switches to it by itself, the tests
also choose the language the way a reader without a seat does (the browser's Accept-Language for the page)
and, for the email, with ``flask_babel.force_locale`` in an app context.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_babel import force_locale

from pbem import db, i18n, timing
from pbem.core import games, talk
from pbem.core import seats as seat_rows
from pbem.mail import compose
from pbem.models import Seat
from tests.apps import Table, form_fields

# What each language must say on the page of the seat whose turn it is, and what English says instead.
PAGE = {
    "nl": ["Jouw beurt.", "Tafelpraat", "Je hand", "Trekstapel 1", "Ronde 1 van", " (jij)", "Wat er gebeurde"],
    "fr": ["À vous de jouer.", "Discussion à la table", "Votre main", "Pioche 1", "Manche 1 sur", " (vous)"],
    "en": ["Your turn.", "Table talk", "Your hand", "Draw pile 1", "Round 1 of", " (you)", "What happened"],
}
WAITING = {"nl": "Wachten op", "fr": "En attente de", "en": "Waiting for"}
confirm_word = {"nl": "Bevestig je zet", "fr": "Confirmez votre coup"}


def set_language(app: Flask, table: Table, position: int, lang: str) -> None:
    with app.app_context(), db.write_session() as session:
        seat = seat_rows.seats_of(session=session, game_id=table.game_id)[position]
        seat.language = lang
        session.add(seat)


def page(client: FlaskClient, table: Table, position: int, lang: str) -> str:
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = lang
    response = client.get(f"/play/{table.personal(position)}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


@pytest.mark.parametrize("lang", ["nl", "fr"])
def test_the_play_page_speaks_the_seats_language(app: Flask, client: FlaskClient, table: Table, lang: str) -> None:
    set_language(app, table, 0, lang)
    set_language(app, table, 1, lang)
    mine = page(client, table, 0, lang)
    for text in PAGE[lang]:
        assert text in mine
    for text in PAGE["en"]:
        assert text not in mine
    other = page(client, table, 1, lang)
    assert WAITING[lang] in other and WAITING["en"] not in other


def test_english_stays_the_default(client: FlaskClient, table: Table) -> None:
    mine = page(client, table, 0, "en")
    for text in PAGE["en"]:
        assert text in mine
    assert "Tafelpraat" not in mine and "Discussion à la table" not in mine


@pytest.mark.parametrize(
    ("lang", "done", "said"),
    [("nl", "Gedaan: ", "Je bericht ligt op tafel."), ("fr", "Fait : ", "Votre message est sur la table.")],
)
def test_flash_messages_speak_the_language(
    app: Flask, client: FlaskClient, table: Table, lang: str, done: str, said: str
) -> None:
    set_language(app, table, 0, lang)
    token = table.personal(0)
    csrf, _ = form_fields(page(client, table, 0, lang))
    response = client.post(f"/play/{token}/say", data={"csrf_token": csrf, "message": "hoi"}, follow_redirects=True)
    assert said in response.text and "Your message is on the table." not in response.text
    assert table.state().ply == 0
    link = table.move_token(0, {"do": "draw", "pile": "draw1"})
    confirm = client.get(f"/play/{link}").text
    assert confirm_word[lang] in confirm and "Confirm your move" not in confirm
    csrf, _ = form_fields(confirm)
    response = client.post(f"/play/{link}", data={"csrf_token": csrf}, follow_redirects=True)
    assert response.status_code == 200 and table.moves_logged() == 1
    assert done in response.text and "Done: " not in response.text


EMAIL = {
    "nl": {
        "text": [
            "Hallo ann,",
            "Herinnering 1: het spel wacht al 2 dagen en 1 uur op je.",
            "WAT ER GEBEURDE SINDS JE VORIGE BEURT",
            "- Het spel begint.",
            "Elke link opent een pagina waar een knop de zet bevestigt.",
            "JE HAND",
        ],
        "html": ["Jouw beurt, <bdi>ann</bdi>", "Elke knop opent een pagina waar je de zet bevestigt.", "Je hand"],
        "subject": ["Herinnering 1", "Jouw beurt"],
    },
    "fr": {
        "text": [
            "Bonjour ann,",
            "Rappel 1 : la partie vous attend depuis 2\u00a0jours et 1\u00a0heure.",
            "CE QUI S'EST PASSÉ DEPUIS VOTRE DERNIER TOUR",
            "- La partie commence.",
            "Chaque lien ouvre une page où un bouton confirme le coup.",
            "VOTRE MAIN",
        ],
        "html": ["À vous de jouer, <bdi>ann</bdi>", "Chaque bouton ouvre une page où vous confirmez le coup."],
        "subject": ["Rappel 1", "À vous de jouer"],
    },
}
ENGLISH_EMAIL = [
    "Hello ann,",
    "Reminder 1: the game has waited",
    "WHAT HAPPENED SINCE YOUR LAST TURN",
    "The game begins.",
    "Each link opens a page",
    "Each button opens a page",
    "YOUR HAND",
    "Your turn",
]


def turn_email(app: Flask, table: Table, lang: str | None) -> compose.Email:
    with app.app_context():
        session = db.get_session()
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = list(seat_rows.seats_of(session=session, game_id=table.game_id))
        seat: Seat = seats[0]
        args = {"game": game, "seats": seats, "seat": seat, "state": games.load_state(game), "story": []}
        extra = {"reminder": 1, "waited": timedelta(days=2, hours=1)}
        if lang is None:
            return compose.turn(**args, **extra)
        with force_locale(lang):
            return compose.turn(**args, **extra)


@pytest.mark.parametrize("lang", ["nl", "fr"])
def test_the_turn_email_speaks_the_seats_language(app: Flask, table: Table, lang: str) -> None:
    set_language(app, table, 0, lang)
    email = turn_email(app, table, lang)
    for text in EMAIL[lang]["text"]:
        assert text in email.text
    for text in EMAIL[lang]["html"]:
        assert text in email.html
    for text in EMAIL[lang]["subject"]:
        assert text in email.subject
    for text in ENGLISH_EMAIL:
        assert text not in email.text and text not in email.html and text not in email.subject


def test_the_english_turn_email_is_unchanged(app: Flask, table: Table) -> None:
    email = turn_email(app, table, None)
    assert "Reminder 1: the game has waited 2 days and 1 hour for you." in email.text
    assert "WHAT HAPPENED SINCE YOUR LAST TURN" in email.text and "YOUR HAND" in email.text
    assert email.subject.endswith(" · Reminder 1 · Your turn")


def test_outside_any_app_the_texts_are_english() -> None:
    """The scheduler and the CLI may check things with no app around: gettext then gives the English text."""
    with pytest.raises(timing.AbsenceError, match=r"This game does not allow time away\."):
        timing.plan_absence(today=date(2026, 3, 1), until=date(2026, 3, 2), used=0, current_until=None, cap=0)
    with pytest.raises(timing.AbsenceError, match=r"You have used all 3 days of time away this game allows\."):
        timing.plan_absence(today=date(2026, 3, 1), until=date(2026, 3, 2), used=3, current_until=None, cap=3)
    assert talk._why_not("") == "your message must not be empty"
    assert talk._why_not("a\nb") == "your message may not contain line breaks or control characters"
    assert i18n.duration(timedelta(hours=1)) == "1 hour"
    assert i18n.duration(timedelta(days=1, hours=2)) == "1 day and 2 hours"


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [
        ("nl", "1 dag en 1 uur", "3 dagen en 5 uur"),
        ("fr", "1\u00a0jour et 1\u00a0heure", "3\u00a0jours et 5\u00a0heures"),
    ],
)
def test_durations_have_plurals(app: Flask, lang: str, one: str, many: str) -> None:
    with app.app_context(), force_locale(lang):
        assert i18n.duration(timedelta(days=1, hours=1)) == one
        assert i18n.duration(timedelta(days=3, hours=5)) == many


OTHER_EMAILS = {
    "nl": ["Hallo ann,", "SPELERS, IN BEURTVOLGORDE", "EERLIJK SPEL", "Jij begint ronde 1.", "Je nieuwe link"],
    "fr": [
        "Bonjour ann,",
        "JOUEURS, DANS L'ORDRE DU JEU",
        "JEU LOYAL",
        "Vous commencez la manche 1.",
        "Votre nouveau lien",
    ],
}


@pytest.mark.parametrize("lang", ["nl", "fr"])
def test_the_invitation_and_the_fresh_link_speak_the_language(app: Flask, table: Table, lang: str) -> None:
    with app.app_context(), force_locale(lang):
        session = db.get_session()
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = list(seat_rows.seats_of(session=session, game_id=table.game_id))
        invitation = compose.invitation(game=game, seats=seats, seat=seats[0], state=games.load_state(game), root=True)
        fresh = compose.fresh_link(game=game, seats=seats, seat=seats[0])
    said = invitation.text + invitation.html + invitation.subject + fresh.subject + fresh.html
    for text in OTHER_EMAILS[lang]:
        assert text in said
    for text in ("Hello ann,", "PLAYERS, IN TURN ORDER", "FAIR PLAY", "You start round 1.", "Your fresh link"):
        assert text not in said
