"""The admin page in Debian's Chromium (Playwright) against a live server: an organiser's whole session.

Screenshots go to $PBEM_TEST_ARTIFACTS/admin, else test-artifacts/admin/ (git-ignored): the games list and a
game page once on success, and the page as it was when a test failed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from playwright.sync_api import Browser, ConsoleMessage, Page, expect
from sqlmodel import select
from werkzeug.serving import make_server

from engine import call_to_glory as glory
from pbem import create_app, db
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.models import AdminUser
from tests.apps import free_port

from .conftest import PASSWORD

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_MS = 10_000


def artifacts_dir() -> Path:
    """$PBEM_TEST_ARTIFACTS/admin, else test-artifacts/admin in the repository (git-ignored)."""
    configured = os.environ.get("PBEM_TEST_ARTIFACTS")
    return (Path(configured) if configured else ROOT / "test-artifacts") / "admin"


@dataclass
class Site:
    """The live server: its app, its base URL (also its SERVER_NAME, so emailed links lead to it)."""

    app: Flask
    base: str


@pytest.fixture
def site(tmp_path: Path, password_hash: str) -> Iterator[Site]:
    """A live server on SQLite (the database tests cover PostgreSQL) with the organiser account "org"."""
    port = free_port()
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.sqlite3'}",
            "SECRET_KEY": "browser-key-" + "x" * 32,
            "SERVER_NAME": f"127.0.0.1:{port}",
        }
    )
    with app.app_context():
        db.upgrade(db.get_engine())
        with db.write_session() as session:
            session.add(AdminUser(username="org", email="org@example.com", password_hash=password_hash))
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(app, f"http://127.0.0.1:{port}")
    finally:
        server.shutdown()
        thread.join(5)
        app.extensions["pbem_engine"].dispose()


@dataclass
class Window:
    """A browser page on the live server that keeps console errors and requests to other hosts."""

    page: Page
    base: str
    name: str
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    expected: list[re.Pattern[str]] = field(default_factory=list)

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and not any(p.search(message.text) for p in self.expected):
            self.errors.append(message.text)

    def open(self, path: str) -> None:
        self.page.goto(self.base + path, wait_until="load")

    def click(self, locator: Any) -> None:
        """Click something that submits a form or follows a link, and wait for the next page."""
        with self.page.expect_navigation(wait_until="load"):
            locator.click()

    def shot(self, label: str) -> Path:
        folder = artifacts_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}-{label}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def assert_clean(self) -> None:
        assert self.errors == [], "console errors"
        assert self.foreign == [], "requests to other hosts"


@pytest.fixture
def window(browser: Browser, site: Site, request: pytest.FixtureRequest) -> Iterator[Window]:
    """A 1280-px browser window on the live server; a screenshot when the test fails."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB", accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        win = Window(page, site.base, name)
        page.on("console", win.on_console)
        page.on("request", lambda r: win.foreign.append(r.url) if urlsplit(r.url).hostname != "127.0.0.1" else None)
        failed = request.session.testsfailed
        yield win
        if request.session.testsfailed > failed:
            win.shot("failure")
    finally:
        context.close()


def log_in(win: Window, password: str = PASSWORD) -> None:
    page = win.page
    page.get_by_label("Login name").fill("org")
    page.get_by_label("Password").fill(password)
    win.click(page.get_by_role("button", name="Log in"))


def create_game(win: Window) -> int:
    """Fill in the new-game form: ann and bob by email, a heuristic bot; return the new game's id."""
    page = win.page
    win.click(page.get_by_role("link", name="New game").first)
    page.get_by_label("Name", exact=True).first.fill("Browser game")
    for number, (kind, name, email) in enumerate(
        [("A person", "ann", "ann@example.com"), ("A person", "bob", "bob@example.com"), ("Bot (heuristic)", "", "")],
        start=1,
    ):
        seat = page.locator(f"#seat-{number}")
        seat.get_by_label("Seat").select_option(label=kind)
        if name:
            seat.get_by_label("Name").fill(name)
            seat.get_by_label("Email").fill(email)
            seat.get_by_label("Time zone").fill("Europe/Amsterdam")
    page.get_by_label("Ninja", exact=False).check()
    win.click(page.get_by_role("button", name="Create the game and send the invitations"))
    expect(page.locator(".flash")).to_contain_text("is created; the invitations are on their way")
    match = re.search(r"/admin/games/(\d+)$", page.url)
    assert match, page.url
    return int(match.group(1))


def personal_link(win: Window, address: str, subject: str = "You are invited") -> str:
    """The personal link in the latest email of ``subject`` to ``address``, found in the built-in mailbox."""
    page = win.page
    win.open("/mailbox")
    win.click(page.locator(".recipients a").filter(has_text=f"<{address}>"))
    mail = page.locator(".mail-list .mail").filter(has_text=subject).first
    expect(mail).to_be_visible()
    win.click(mail.get_by_role("link"))
    link = page.locator(".mail-text a[href*='/play/']:not([href$='/how-to-play'])").first
    href = link.get_attribute("href")
    assert href and href.startswith(win.base + "/play/"), href
    return href


def play_a_turn(win: Window) -> None:
    """Draw twice, then lay or discard, with the buttons of the player's page."""
    page = win.page
    expect(page.locator(".turn")).to_contain_text("Your turn")
    for label in (
        "Draw from draw pile 1",
        re.compile(r"^(Draw from draw pile|Take the)"),
        re.compile(r"^(Lay |Discard )"),
    ):
        win.click(page.locator(".choices").get_by_role("button", name=label).first)
    expect(page.locator(".turn")).to_contain_text("Waiting for bob")


def stored_state(app: Flask, game_id: int) -> glory.State:
    with app.app_context():
        return games.load_state(seat_rows.get_game(session=db.get_session(), game_id=game_id))


def test_an_organiser_runs_a_game(window: Window, site: Site, tmp_path: Path) -> None:
    page = window.page
    window.expected.append(re.compile(r"status of 410"))

    window.open("/admin/")
    expect(page.get_by_role("heading", name="Organiser login")).to_be_visible()
    assert urlsplit(page.url).path == "/admin/login"
    log_in(window)
    expect(page.get_by_role("heading", name="Games", exact=True)).to_be_visible()

    game_id = create_game(window)
    expect(page.locator(".organiser-view .warning")).to_contain_text("every hand")
    expect(page.locator(".hand-of")).to_have_count(3)

    ann = personal_link(window, "ann@example.com")
    bob = personal_link(window, "bob@example.com")
    window.open("/mailbox")
    expect(page.locator(".mail-list")).to_contain_text("Browser game · You are invited")
    expect(page.locator(".mail-list .mail").filter(has_text="You are invited")).to_have_count(2)

    page.goto(ann, wait_until="load")
    play_a_turn(window)
    assert stored_state(site.app, game_id).current_player == "bob"

    window.open(f"/admin/games/{game_id}")
    window.click(page.get_by_role("button", name="Pause the game"))
    expect(page.locator(".flash")).to_contain_text("The game is paused.")
    expect(page.locator(".admin-game-head")).to_contain_text("paused")
    page.goto(bob, wait_until="load")
    expect(page.locator("body")).to_contain_text("paused")
    window.open(f"/admin/games/{game_id}")
    window.click(page.get_by_role("button", name="Resume the game"))
    expect(page.locator(".flash")).to_contain_text("The game is running again.")

    page.get_by_text("Change seat 2 (bob)").click()
    form = page.locator("form.action").filter(has=page.get_by_role("button", name="Change bob's email"))
    form.get_by_label("New email").fill("bob@new.example")
    window.click(form.get_by_role("button", name="Change bob's email"))
    expect(page.get_by_role("heading", name="Are you sure?")).to_be_visible()
    expect(page.locator(".confirm-action")).to_contain_text("bob@new.example")
    window.click(page.get_by_role("button", name="Yes, do it"))
    expect(page.locator(".flash")).to_contain_text("bob's address is now bob@new.example")
    page.goto(bob, wait_until="load")
    expect(page.get_by_role("heading", level=1)).to_have_text("This link is no longer valid")
    new_bob = personal_link(window, "bob@new.example")
    page.goto(new_bob, wait_until="load")
    expect(page.locator(".turn")).to_contain_text("Your turn")

    window.open("/admin/")
    expect(page.locator(".admin-games")).to_contain_text("Browser game")
    window.shot("games-list")
    window.open(f"/admin/games/{game_id}")
    expect(page.locator(".admin-log")).to_contain_text("changed bob's email")
    window.shot("game-page")

    with page.expect_download() as download:
        page.get_by_role("button", name="Export the game record (JSON)").click()
    record = tmp_path / download.value.suggested_filename
    download.value.save_as(record)
    replay = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(record)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert json.loads(replay.stdout) == glory.state_summary(stored_state(site.app, game_id))
    window.assert_clean()


def test_five_wrong_passwords_in_a_row_are_rate_limited(window: Window) -> None:
    page = window.page
    window.expected.append(re.compile(r"status of 429"))
    window.open("/admin/login")
    for _ in range(4):
        log_in(window, password="not the password")
        expect(page.locator(".form-error")).to_have_text("Wrong login name or password.")
    log_in(window, password="still not it")
    expect(page.get_by_role("heading", level=1)).to_have_text("Too many login attempts")
    expect(page.locator(".error")).to_contain_text("Too many wrong passwords in a row")
    window.open("/admin/login")
    log_in(window)
    expect(page.get_by_role("heading", level=1)).to_have_text("Too many login attempts")
    window.assert_clean()


def test_the_admin_pages_fit_a_phone(browser: Browser, site: Site) -> None:
    """At 360 px: the new-game form offers the time zones as a list, preset to the organiser's, and its selects show
    their whole choice; the games list is read without scrolling sideways."""
    with site.app.app_context(), db.write_session() as session:
        org = session.exec(select(AdminUser)).one()
        org.timezone = "Europe/Paris"
        session.add(org)
    context = browser.new_context(viewport={"width": 360, "height": 780}, locale="en-GB", is_mobile=True)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        win = Window(page, site.base, "phone")
        page.on("console", win.on_console)
        win.open("/admin/")
        log_in(win)
        win.click(page.get_by_role("link", name="New game").first)
        seat = page.locator("#seat-1")
        zone = seat.get_by_label("Time zone")
        expect(zone).to_have_value("Europe/Paris")
        zones = page.locator(f"datalist#{zone.get_attribute('list')} option")
        assert zones.count() > 300 and page.locator("datalist option[value='Asia/Tokyo']").count() == 1
        for width in (1024, 1280, 360):  # a row per seat from 48rem on, one column on a phone
            page.set_viewport_size({"width": width, "height": 780})
            for box in page.locator(".new-game .seat select").all():
                was = box.input_value()
                for option in box.locator("option").all():
                    box.select_option(option.get_attribute("value"))
                    assert _shows_whole_choice(box), (width, box.get_attribute("name"), option.text_content())
                box.select_option(was)
        assert _page_width(page) <= 360
        create_game(win)
        for number in range(2, 9):
            with site.app.app_context(), db.write_session() as session:
                games.create_game(
                    session=session,
                    name=f"Club game {number} with a rather long name",
                    seats=[games.SeatSpec("ann", "ann@example.com"), games.SeatSpec("Bot 1", kind="heuristic")],
                )
        win.open("/admin/")
        expect(page.locator(".admin-games tbody tr")).to_have_count(8)
        assert _page_width(page) <= 360, "the games list does not scroll sideways"
        table = page.locator(".table-wrap").first
        assert table.evaluate("e => e.scrollWidth <= e.clientWidth"), "nor does its table"
        first = page.locator(".admin-games tbody tr").first
        expect(first.locator("td[data-label='Waiting for']")).to_contain_text("ann")
        assert first.bounding_box()["width"] <= 360  # type: ignore[index]
        win.shot("games-list-360")
        win.assert_clean()
    finally:
        context.close()


def _page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


def _shows_whole_choice(select: Any) -> bool:
    """Whether a select is wide enough for the text of its chosen option (and its arrow)."""
    return bool(
        select.evaluate(
            """s => { const c = document.createElement('canvas').getContext('2d');
                 const st = getComputedStyle(s); c.font = st.font;
                 const text = c.measureText(s.options[s.selectedIndex].text).width;
                 const pad = parseFloat(st.paddingLeft) + parseFloat(st.paddingRight);
                 return text + pad + 16 <= s.clientWidth; }"""
        )
    )
