"""The admin area, the error pages and a seat's settings page speak Dutch and French from the catalogs.

A reader without a seat gets the language of the ``lang`` cookie, else of ``Accept-Language``, and an organiser the
language saved on their account (pbem.i18n); the pages below must then show the catalog's words and none of the
English sentences they replace.
"""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import admin
from pbem.core import games, links
from tests.admin.conftest import assert_page, csrf_of, log_in, logged_in, new_game_form, refused
from tests.apps import Table, new_table

LOGIN = {
    "nl": ["Inloggen voor organisatoren", "Inlognaam", "Wachtwoord", "Accounts worden op de server gemaakt met"],
    "fr": ["Connexion des organisateurs", "Identifiant", "Mot de passe", "Les comptes se créent sur le serveur avec"],
}
GAMES = {
    "nl": ["Spellen", "Nieuw spel", "Vraagt aandacht", "Wacht op", "1 spel."],
    "fr": ["Parties", "Nouvelle partie", "Demande attention", "En attente de", "1 partie."],
}
GAME = {
    "nl": ["Tafelpraat", "Het spel pauzeren", "Organisatorweergave", "De beurtmail opnieuw sturen naar ann"],
    "fr": ["Discussion à la table", "Mettre la partie en pause", "toutes les mains", "Arrêter la partie"],
}
NEW_GAME = {
    "nl": ["Het spel maken en de uitnodigingen versturen", "Herinneringen en deadline", "Eerste herinnering na (uren)"],
    "fr": ["Créer la partie et envoyer les invitations", "Rappels et échéance", "Premier rappel après (heures)"],
}
NOT_FOUND = {
    "nl": ["Niet gevonden", "Fout 404", "Vraag de links van je spellen per e-mail"],
    "fr": ["Introuvable", "Erreur 404", "Recevez les liens de vos parties par e-mail"],
}
ENGLISH = [
    "Organiser login",
    "Login name",
    "Needs attention",
    "Waiting for",
    "Create the game and send the invitations",
    "Reminders and deadline",
    "Not found",
    "Get the links of your games by email",
    "The requested URL was not found",
    "Email choices",
    "Table talk",
    "Pause the game",
    "the game needs a name",
]


def _choose(client: FlaskClient, lang: str) -> None:
    """A logged-in organiser picks their language with the admin pages' switch (a POST saved on the account)."""
    token = csrf_of(client, "/admin/")
    response = client.post("/admin/language", data={"csrf_token": token, "lang": lang, "next": "/admin/"})
    assert response.status_code == 303


def _speaks(body: str, words: list[str]) -> None:
    for word in words:
        assert word in body, f"{word!r} not in the page: {body[:1500]}"
    for english in ENGLISH:
        assert english not in body, f"{english!r} still in English: {body[:1500]}"


@pytest.mark.parametrize("lang", ["nl", "fr"])
def test_the_login_page_follows_the_browser_language(client: FlaskClient, lang: str) -> None:
    page = client.get("/admin/login", headers={"Accept-Language": f"{lang},en;q=0.5"})
    _speaks(assert_page(page, 200), LOGIN[lang])
    assert f'<html lang="{lang}">' in page.text


@pytest.mark.parametrize("lang", ["nl", "fr"])
def test_the_games_list_and_the_new_game_form_follow_the_admins_language(
    admin_client: FlaskClient, adm_table: Table, lang: str
) -> None:
    _choose(admin_client, lang)
    _speaks(assert_page(admin_client.get("/admin/"), 200), GAMES[lang])
    _speaks(assert_page(admin_client.get("/admin/games/new"), 200), NEW_GAME[lang])
    _speaks(assert_page(admin_client.get(f"/admin/games/{adm_table.game_id}"), 200), GAME[lang])


def test_english_stays_the_default(admin_client: FlaskClient, adm_table: Table) -> None:
    assert_page(admin_client.get("/admin/"), 200, "Needs attention", "1 game.", "Waiting for")


@pytest.mark.parametrize("lang", ["nl", "fr"])
def test_a_404_page_speaks_the_reader_s_language(client: FlaskClient, lang: str) -> None:
    page = client.get("/no/such/page", headers={"Accept-Language": lang})
    _speaks(assert_page(page, 404), NOT_FOUND[lang])


def test_a_refused_new_game_form_says_why_in_french(app: Flask, client: FlaskClient, organiser: admin.Actor) -> None:
    assert logged_in(log_in(client))
    _choose(client, "fr")
    form = new_game_form(name="", first_reminder_hours="", max_reminders="many")
    form["csrf_token"] = csrf_of(client, "/admin/games/new")
    body = refused(client, client.post("/admin/games/new", data=form))
    _speaks(
        body,
        ["la partie a besoin d&#39;un nom", "un nombre entier est nécessaire ici", "N&#39;est pas un entier valide"],
    )
    assert "a whole number is needed here" not in body


def test_too_many_and_too_few_seats_are_counted_in_french(
    app: Flask, client: FlaskClient, organiser: admin.Actor
) -> None:
    assert logged_in(log_in(client))
    _choose(client, "fr")
    form = new_game_form(**{"seats-1-kind": "none", "seats-1-name": "", "seats-1-email": "", "seats-2-kind": "none"})
    form["csrf_token"] = csrf_of(client, "/admin/games/new")
    body = refused(client, client.post("/admin/games/new", data=form))
    assert "remplissez au moins 2 places" in body and "fill in at least" not in body


def test_a_french_seat_s_settings_page_is_in_french(client: FlaskClient, app: Flask) -> None:
    """The seat's language is fr and so is the browser's: the page is French whether it follows the seat (once the
    settings view calls i18n.use) or, as now, the reader's browser."""
    specs = [games.SeatSpec(n, email=f"{n}@example.com", language="fr") for n in ("ann", "bob")]
    table = new_table(app, specs, seed=1)
    with app.test_request_context():
        token = links.settings_token(table.game_id, 1, table.seat(1).nonce)
    page = client.get(f"/settings/{token}", headers={"Accept-Language": "fr"})
    body = assert_page(page, 200)
    _speaks(body, ["Choix des e-mails", "Ils sont <strong>activés</strong>", "Quitter la partie…", "Réglages de"])
    assert "They are <strong>on</strong>" not in body
