"""Browser tests: Debian's Chromium, driven by Playwright, plays a turn on a phone against a live server."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, Request, expect

from engine import call_to_glory as glory
from tests.apps import Table

pytestmark = pytest.mark.browser

PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 900}}
LOCAL_HOST = "127.0.0.1"
TIMEOUT_MS = 10_000


def artifacts_dir() -> Path:
    """Where screenshots go: $PBEM_TEST_ARTIFACTS, else test-artifacts/ in the repository (git-ignored)."""
    configured = os.environ.get("PBEM_TEST_ARTIFACTS")
    base = Path(configured) if configured else Path(__file__).resolve().parents[2] / "test-artifacts"
    return base / "screenshots"


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """SQLite only: the browser checks the pages, the database tests cover PostgreSQL (keeps CI short)."""
    return f"sqlite:///{tmp_path / 'pbem.sqlite3'}"


@dataclass
class Browse:
    """One browser page on the live server, with what it logged and requested, and a screenshot helper."""

    page: Page
    base_url: str
    shots: Path
    name: str
    console_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    allowed_errors: list[re.Pattern[str]] = field(default_factory=list)

    def on_console(self, message: ConsoleMessage) -> None:
        """Keep console errors (CSP violations show up here too)."""
        if message.type == "error" and not any(p.search(message.text) for p in self.allowed_errors):
            self.console_errors.append(message.text)

    def on_page_error(self, error: Error) -> None:
        """Keep uncaught page errors."""
        self.console_errors.append(f"page error: {error.message}")

    def on_request(self, request: Request) -> None:
        """Keep every request to a host other than the live server's."""
        if urlsplit(request.url).hostname != LOCAL_HOST:
            self.foreign_requests.append(request.url)

    def open(self, path: str) -> None:
        """Go to a path of the live server and wait until the page has loaded."""
        self.page.goto(self.base_url + path, wait_until="load")

    def shot(self, label: str) -> Path:
        """Save a full-page screenshot named after the test and ``label``."""
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{self.name}-{label}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def assert_fits(self, width: int) -> None:
        """No horizontal scrolling: the document is no wider than the viewport."""
        scroll_width = self.page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= width, f"the page scrolls sideways: {scroll_width} px wide in a {width} px viewport"

    def assert_clean(self) -> None:
        """No console errors and no request left 127.0.0.1."""
        assert self.console_errors == [], "console errors"
        assert self.foreign_requests == [], "requests to other hosts"


def _browse(
    browser: Browser, live_server: str, request: pytest.FixtureRequest, options: dict[str, Any]
) -> Iterator[Browse]:
    """A fresh browser context with ``options``, watched; on a failed test a screenshot, then it is closed."""
    context = browser.new_context(**options, locale="en-GB", service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        browse = Browse(page=page, base_url=live_server, shots=artifacts_dir(), name=name)
        page.on("console", browse.on_console)
        page.on("pageerror", browse.on_page_error)
        page.on("request", browse.on_request)
        failed_before = request.session.testsfailed
        yield browse
        if request.session.testsfailed > failed_before:
            browse.shot("failure")
    finally:
        context.close()


@pytest.fixture
def phone(browser: Browser, live_server: str, request: pytest.FixtureRequest) -> Iterator[Browse]:
    """A 360×740 phone (scale 2, touch) on the live server; a screenshot is saved if the test fails."""
    yield from _browse(browser, live_server, request, PHONE)


@pytest.fixture
def desktop(browser: Browser, live_server: str, request: pytest.FixtureRequest) -> Iterator[Browse]:
    """A 1280-px wide desktop window on the live server; a screenshot is saved if the test fails."""
    yield from _browse(browser, live_server, request, DESKTOP)


def payload(token: str) -> str:
    """A signed token without its timestamp and signature (two tokens issued a second apart differ only there)."""
    return token.split(".")[0]


def hand_of(table: Table, position: int) -> dict[str, int]:
    """The seat's hand from the stored state: card type → count."""
    counts = table.state().hands[position]
    return {glory.TYPES[t]: n for t, n in enumerate(counts) if n}


def assert_hand_shown(page: Page, hand: dict[str, int]) -> None:
    """Each card type of the hand is a visible card with its value, name and (for more than one) count."""
    cards = page.locator(".hand .card")
    expect(cards).to_have_count(len(hand))
    values = dict(zip(glory.TYPES, glory.VALUES, strict=True))
    for type_, count in hand.items():
        card = cards.filter(has_text=type_.capitalize())
        expect(card).to_be_visible()
        expect(card).to_contain_text(str(values[type_]))
        if count > 1:
            expect(card).to_contain_text(f"×{count}")


def click_move(page: Page, label: str | re.Pattern[str]) -> None:
    """Click the first choice button with that label and wait for the page it leads to."""
    button = page.locator(".choices").get_by_role("button", name=label).first
    expect(button).to_be_visible()
    box = button.bounding_box()
    assert box is not None and box["height"] >= 44, f"button {label!r} is too small to tap: {box}"
    with page.expect_navigation(wait_until="load"):
        button.click()


def test_a_whole_turn_on_a_phone(phone: Browse, table: Table) -> None:
    """Draw, draw, then discard with the buttons; the page follows, and then it is bob's turn."""
    page = phone.page
    phone.open(f"/play/{table.personal(0)}")
    expect(page.locator(".turn")).to_contain_text("Your turn")
    phone.assert_fits(360)
    assert_hand_shown(page, hand_of(table, 0))
    phone.shot("1-start")

    click_move(page, "Draw from draw pile 1")
    expect(page.locator(".flash")).to_contain_text("Done: Draw from draw pile 1")
    expect(page.locator(".log li").first).to_contain_text(re.compile(r"You drew an? \w+ from draw pile 1\."))
    expect(page.locator(".choices h2")).to_contain_text("1 of 2 left")
    assert_hand_shown(page, hand_of(table, 0))
    phone.assert_fits(360)

    click_move(page, re.compile(r"^(Draw from draw pile|Take the)"))
    expect(page.locator(".choices h2")).to_contain_text("Lay a set or discard a card")
    phone.assert_fits(360)
    phone.shot("2-lay-or-discard")

    click_move(page, re.compile(r"^(Lay |Discard )"))
    expect(page.locator(".flash")).to_contain_text("Done:")
    expect(page.locator(".turn")).to_contain_text("Waiting for bob")
    expect(page.locator(".choices")).to_have_count(0)
    expect(page.locator(".log")).to_contain_text("from draw pile 1.")
    assert table.state().current_player == "bob"
    assert table.moves_logged() == 3
    phone.assert_fits(360)
    phone.shot("3-done")
    phone.assert_clean()


def test_a_move_link_asks_then_says_already_played(phone: Browse, table: Table) -> None:
    """A move link shows one confirm button; pressing it moves; the same link later says so."""
    page = phone.page
    link = f"/play/{table.move_token(0, {'do': 'draw', 'pile': 'draw1'})}"
    phone.open(link)
    confirm = page.locator(".confirm")
    expect(confirm.get_by_role("heading", name="Confirm your move")).to_be_visible()
    button = confirm.get_by_role("button", name="Draw from draw pile 1")
    expect(button).to_be_visible()
    phone.assert_fits(360)
    phone.shot("1-confirm")
    assert table.moves_logged() == 0, "opening a link changes nothing"

    with page.expect_navigation(wait_until="load"):
        button.click()
    expect(page.locator(".flash")).to_contain_text("Done: Draw from draw pile 1")
    expect(page.locator(".confirm")).to_have_count(0)
    assert payload(urlsplit(page.url).path.removeprefix("/play/")) == payload(table.personal(0)), "ann's own page"
    assert table.moves_logged() == 1

    phone.open(link)
    expect(page.locator(".confirm").get_by_role("heading", name="Already played")).to_be_visible()
    expect(page.locator(".confirm").get_by_role("button")).to_have_count(0)
    phone.assert_fits(360)
    phone.shot("2-already-played")
    assert table.moves_logged() == 1
    phone.assert_clean()


def test_other_pages_fit_a_phone(phone: Browse, table: Table) -> None:
    """The waiting player's page, the whole log and an error page fit 360 px too."""
    page = phone.page
    phone.open(f"/play/{table.personal(1)}")
    expect(page.locator(".turn")).to_contain_text("Waiting for ann")
    assert_hand_shown(page, hand_of(table, 1))
    phone.assert_fits(360)
    phone.shot("1-waiting")

    phone.open(f"/play/{table.personal(1)}/log")
    expect(page.get_by_role("heading", level=1)).to_contain_text("the whole log")
    phone.assert_fits(360)

    phone.allowed_errors.append(re.compile(r"status of 400"))
    phone.open("/play/not-a-token")
    expect(page.get_by_role("heading", level=1)).to_have_text("This request is not valid")
    phone.assert_fits(360)
    phone.shot("2-error")
    phone.assert_clean()


def test_the_page_on_a_desktop(desktop: Browse, table: Table) -> None:
    """On a wide window the page fits and shows the hand and the choices."""
    page = desktop.page
    desktop.open(f"/play/{table.personal(0)}")
    assert_hand_shown(page, hand_of(table, 0))
    expect(page.locator(".choices").get_by_role("button", name="Draw from draw pile 1")).to_be_visible()
    desktop.assert_fits(1280)
    desktop.shot("1-start")
    desktop.assert_clean()


def test_the_seed_check_pages_fit_a_phone(phone: Browse, table: Table) -> None:
    """The seed check of a running game and the compare form, with its answer, fit 360 px."""
    page = phone.page
    phone.open(f"/play/{table.personal(0)}/check")
    expect(page.locator("body")).to_contain_text("The game is not over yet")
    phone.assert_fits(360)
    phone.open("/check")
    page.get_by_label("Seed").fill("12345")
    page.get_by_label("Commitment").fill("5994471abb01112afcc18159f6cc74b4f511b99806da59b3caf5a9c173cacfc5")
    with page.expect_navigation(wait_until="load"):
        page.get_by_role("button", name="Compare").click()
    expect(page.locator(".flash")).to_contain_text("Match: this seed is the one")
    phone.assert_fits(360)
    phone.shot("compare")
    phone.assert_clean()


def test_a_message_goes_with_a_move_on_a_phone(phone: Browse, table: Table) -> None:
    """Write a message above the buttons, press a move button: one POST makes the move and the table sees the
    message (no page reload first, one place to write); on a move link's confirm page the message box sits above
    the button."""
    page = phone.page
    phone.open(f"/play/{table.personal(0)}")
    expect(page.locator("#talk").get_by_role("button", name="Say it")).to_have_count(0)
    page.get_by_label("A message to the table with your move").fill("Good luck, all")
    page.get_by_label("A message to the table with your move").press("Enter")  # Enter makes no move
    assert table.moves_logged() == 0
    phone.assert_fits(360)
    phone.shot("1-message-ready")
    click_move(page, "Draw from draw pile 1")
    assert "say=" not in page.url
    expect(page.locator(".flash")).to_contain_text("Done: Draw from draw pile 1")
    expect(page.locator(".talk .said")).to_contain_text("ann: Good luck, all")
    assert table.moves_logged() == 1

    phone.open(f"/play/{table.move_token(0, {'do': 'draw', 'pile': 'draw2'})}")
    confirm = page.locator(".confirm")
    confirm.get_by_label("A message to the table with your move").fill("And another")
    with page.expect_navigation(wait_until="load"):
        confirm.get_by_role("button", name="Draw from draw pile 2").click()
    expect(page.locator(".talk .said")).to_contain_text("ann: And another")
    assert table.moves_logged() == 2
    phone.assert_fits(360)
    phone.assert_clean()
