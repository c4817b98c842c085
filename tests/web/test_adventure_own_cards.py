"""A game of Call to Adventure with the club's own card set names the club's cards everywhere a player reads what
happened: the log of their page and the story of their emails, in their own language. The club's set here is the
starter set with every card renamed, so a name taken from the wrong set would show."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flask import Flask

from engine.call_to_adventure.files import packaged_set
from pbem.core import games
from tests.apps import Table, new_table
from tests.mail.conftest import SMTPServer, deliver, make_mail_app, smtp_app, smtp_server  # noqa: F401 (fixtures)
from tests.web.test_adventure_templates import KEY, RULES, plain, play_until

NAME = re.compile(r'name = \{ en = "([^"]+)", nl = "([^"]+)"')
GAINED = {"en": "gained", "nl": "verwierf"}


def club_set() -> str:
    """The starter set with every card (and the set) renamed: "Club …" in English, "Clubs …" in Dutch."""
    text, count = NAME.subn(lambda m: f'name = {{ en = "Club {m[1]}", nl = "Clubs {m[2]}"', packaged_set().text)
    assert count > 100, "every card is renamed"
    return text.replace('id = "starter"', 'id = "club"', 1)


def a_new_turn_after_gains() -> Callable[[Any], bool]:
    """For ``play_until``: true when the turn has just passed to the other player (their turn email is queued
    for the decision now open) after story cards were gained."""
    last: list[str] = []

    def done(state: Any) -> bool:
        now = next(iter(RULES.waiting_for(state)), "")
        passed = bool(last) and now != last[-1] and sum(len(p.story) for p in state.ps) >= 2
        last.append(now)
        return passed and state.status == "playing"

    return done


def _log(html: str) -> str:
    return plain(html.split('<section class="log">')[1].split("</section>")[0])


def test_the_page_and_the_emails_name_the_clubs_own_cards(smtp_app: Flask, smtp_server: SMTPServer) -> None:  # noqa: F811
    app = smtp_app
    seats = [
        games.SeatSpec("ann", email="ann@example.com", language="en"),
        games.SeatSpec("bob", email="bob@example.com", language="nl"),
    ]
    options = {"card_set": {"source": "club.toml", "text": club_set()}}
    table: Table = new_table(app, seats, game=KEY, seed=5, options=options)
    deliver(app)
    smtp_server.clear()
    state = play_until(app, table, a_new_turn_after_gains())
    gained = [card for p in state.ps for card, *_path in p.story]
    starter = packaged_set().cards
    client = app.test_client()
    for position, lang in ((0, "en"), (1, "nl")):
        log = _log(client.get(f"/play/{table.personal(position)}").text)
        for card in gained:
            own, printed = state.cards.cards[card].title(lang), starter[card].title(lang)
            assert own.startswith("Club") and own in log, (own, log)
            assert f"{GAINED[lang]} {printed}" not in log, f"the starter set's name {printed!r} in the log"
    deliver(app)
    said = []
    for message in smtp_server.messages:
        lang = {"ann@example.com": "en", "bob@example.com": "nl"}[message.envelope_to[0]]
        text = message.get_body(("plain",))
        assert text is not None
        said += [(lang, line) for line in str(text.get_content()).splitlines() if f" {GAINED[lang]} " in line]
    assert said, "the turn email tells what happened"
    assert all(f"{GAINED[lang]} Club" in line for lang, line in said), said
