"""Issue 14 in a real browser: Debian's Chromium (Playwright) on a 360 px wide phone opens a Dutch seat's personal
link, sees the page in Dutch without sideways scrolling, makes a move with a button and reads the Dutch "done"
message, then switches the seat to French with the form at the foot of the page and gets the page back in French.
The browser itself asks for English (locale en-GB): the seat's language wins."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from playwright.sync_api import Browser, Page, expect

from pbem.core import games
from tests.apps import Table, new_table
from tests.web.test_browser import PHONE, Browse, _browse, click_move

pytestmark = pytest.mark.browser

DUTCH = ["Jouw beurt.", "Je hand", "Tafelpraat", "Trekstapel 1"]
FRENCH = ["À vous de jouer.", "Votre main", "Discussion à la table", "Pioche 1"]
ENGLISH = ["Your turn.", "Your hand", "Table talk", "Draw pile 1"]


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """SQLite only, as the other browser tests: the database tests cover PostgreSQL."""
    return f"sqlite:///{tmp_path / 'pbem.sqlite3'}"


@pytest.fixture
def phone(browser: Browser, live_server: str, request: pytest.FixtureRequest) -> Iterator[Browse]:
    """A 360×740 phone on the live server (a screenshot when the test fails)."""
    yield from _browse(browser, live_server, request, PHONE)


@pytest.fixture
def dutch_table(app: Flask) -> Table:
    """daan (Dutch, Amsterdam; he plays first) and bob (English)."""
    specs = [
        games.SeatSpec("daan", email="daan@example.com", language="nl", timezone="Europe/Amsterdam"),
        games.SeatSpec("bob", email="bob@example.com"),
    ]
    return new_table(app, specs, seed=1)


def assert_fits(page: Page, width: int) -> None:
    scroll_width = page.evaluate("document.scrollingElement.scrollWidth")
    assert scroll_width <= width, f"the page scrolls sideways: {scroll_width} px wide in a {width} px viewport"


def assert_speaks(page: Page, lang: str, says: list[str]) -> None:
    expect(page.locator("html")).to_have_attribute("lang", lang)
    body = page.locator("body")
    for text in says:
        expect(body).to_contain_text(text)
    content = page.content()
    for text in ENGLISH:
        assert text not in content, f"English {text!r} on the {lang} page"


def test_a_dutch_player_on_a_phone_plays_then_switches_to_french(phone: Browse, dutch_table: Table) -> None:
    page = phone.page
    phone.open(f"/play/{dutch_table.personal(0)}")
    assert_speaks(page, "nl", DUTCH)
    expect(page.locator(".turn")).to_contain_text("Jouw beurt")
    assert_fits(page, 360)
    phone.shot("1-nl")

    click_move(page, re.compile(r"pile 1|stapel 1"))  # the move's words are the game's (may still be English)
    expect(page.locator(".flash")).to_contain_text("Gedaan: ")
    assert dutch_table.moves_logged() == 1
    assert_speaks(page, "nl", ["Jouw beurt.", "Je hand"])
    assert_fits(page, 360)
    phone.shot("2-nl-done")

    form = page.locator("#language form")
    form.scroll_into_view_if_needed()
    expect(form.get_by_label("De taal van je pagina's en e-mails")).to_have_value("nl")
    form.get_by_label("De taal van je pagina's en e-mails").select_option("fr")
    with page.expect_navigation(wait_until="load"):
        form.get_by_role("button", name="Taal wijzigen").click()
    assert dutch_table.seat(0).language == "fr"
    assert_speaks(page, "fr", FRENCH)
    expect(page.locator("#language select")).to_have_value("fr")
    assert_fits(page, 360)
    phone.shot("3-fr")
    phone.assert_clean()
