"""A newcomer's walk on a 360-px phone (Debian's Chromium), through a live server that sends real email.

Nia plays Call to Glory with bob (a person, whose moves the test makes through the service) and cy (a bot).
She knows nothing but the server's address: she opens the front page, asks for her links, reads the email the
SMTP server received, opens its link, reads how to play and comes back, plays whole turns with the buttons
(the reasons beside the choices she cannot make are on the page, in the engine's words), sees the banner and
the score sheet when the first round ends, says something to the table, and bob's next email carries it.
Every page fits 360 px; a numbered screenshot of each step goes to ``test-artifacts/newcomer/``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, expect
from werkzeug.serving import make_server

import engine
from engine.call_to_glory import present
from engine.call_to_glory.bots import HeuristicBot
from pbem import db, flows
from pbem.core import games
from pbem.core import seats as seat_rows
from tests.apps import Table, free_port, new_table
from tests.mail.conftest import MailAppFactory, SMTPServer, deliver, make_mail_app, smtp_server  # noqa: F401 (fixtures)
from tests.web.test_browser import PHONE, Browse, _browse, artifacts_dir, click_move, payload

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NEWCOMER, NEWCOMER_ADDRESS = "nia", "nia@example.com"
NEXT, NEXT_ADDRESS = "bob", "bob@example.com"
WIDTH = 360
GLORY = engine.GAMES["call-to-glory"]
SEED = 50
"""With this seed the heuristic choices end the first round after a few of Nia's turns (any seed would, later)."""
MOST_TURNS = 40
SAID = "Good luck in round 2, bob!"


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """SQLite only, as the other browser tests: the pages are the same on PostgreSQL."""
    return f"sqlite:///{tmp_path / 'pbem.sqlite3'}"


@dataclass
class Walk:
    """The newcomer's phone on a live server whose emails reach ``smtp``, the game, and numbered screenshots."""

    browse: Browse
    app: Flask
    smtp: SMTPServer
    table: Table
    shots: Path
    taken: int = 0

    @property
    def page(self) -> Any:
        return self.browse.page

    def step(self, label: str) -> None:
        """The page fits the phone (no sideways scrolling); save it as the next numbered screenshot."""
        self.browse.assert_fits(WIDTH)
        self.taken += 1
        self.shots.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(self.shots / f"{self.taken:02d}-{label}.png"), full_page=True)

    def mail_to(self, address: str) -> list[EmailMessage]:
        """Send what is due (the scheduler's job), then everything the SMTP server received for ``address``."""
        deliver(self.app)
        return [m for m in self.smtp.messages if m.envelope_to == [address]]


@pytest.fixture
def walk(
    browser: Browser,
    make_mail_app: MailAppFactory,  # noqa: F811 (a fixture)
    smtp_server: SMTPServer,  # noqa: F811 (a fixture)
    request: pytest.FixtureRequest,
) -> Iterator[Walk]:
    """A live server on a port chosen first, so that its emailed links (built from SERVER_NAME) open on it."""
    port = free_port()
    app = make_mail_app(MAIL_SERVER=smtp_server.host, MAIL_PORT=smtp_server.port, SERVER_NAME=f"127.0.0.1:{port}")
    specs = [
        games.SeatSpec(NEWCOMER, email=NEWCOMER_ADDRESS),
        games.SeatSpec(NEXT, email=NEXT_ADDRESS),
        games.SeatSpec("cy", kind="heuristic"),
    ]
    table = new_table(app, specs, name="Nia's first game", seed=SEED, options={"rounds": 2}, first_player=NEWCOMER)
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for browse in _browse(browser, f"http://127.0.0.1:{port}", request, PHONE):
            yield Walk(browse, app, smtp_server, table, artifacts_dir().parent / "newcomer")
    finally:
        server.shutdown()
        thread.join(5)


def text_of(message: EmailMessage) -> str:
    """The plain-text part of an email."""
    part = message.get_body(("plain",))
    assert part is not None, "the email has a plain-text part"
    return str(part.get_content())


def heuristic_choice(walk: Walk) -> tuple[str, str, dict[str, Any]]:
    """The label, note and move of the page's button for the move a sensible player makes now (the heuristic
    bot's)."""
    state = walk.table.state()
    body = {k: str(v) for k, v in games.move_body(HeuristicBot().choose(state, NEWCOMER)).items()}
    for group in present.choices(state, NEWCOMER):
        for choice in group.choices:
            if body.items() <= {k: str(v) for k, v in choice.move.items()}.items():
                return choice.label, choice.note, dict(choice.move)
    raise AssertionError(f"no button for {body}")


def assert_reasons_shown(walk: Walk) -> int:
    """Every choice closed to the newcomer now is listed on the page with the engine's reason; their number."""
    shown = 0
    for group in present.choices(walk.table.state(), NEWCOMER):
        for closed in group.closed:
            line = walk.page.locator(".choices .closed li", has_text=f"{closed.label}: {closed.reason} ({closed.rule})")
            expect(line).to_be_visible()
            shown += 1
    return shown


def play_turn(walk: Walk, shots: bool) -> int:
    """The newcomer's turn with the page's buttons, from her page until it is someone else's turn (or the round
    is over); the reasons beside closed choices are checked at every decision. How many reasons were shown."""
    round_now = walk.table.state().round
    reasons = 0
    decisions = 0
    while walk.table.state().current_player == NEWCOMER and walk.table.state().round == round_now:
        reasons += assert_reasons_shown(walk)
        label, note, _move = heuristic_choice(walk)
        click_move(walk.page, re.compile(f"^{re.escape(label)}\\s*{re.escape(note)}$"))
        expect(walk.page.locator(".flash.done:not(.headline)")).to_contain_text(f"Done: {label}.")  # the button's words
        decisions += 1
        if shots:
            walk.step(f"turn-{decisions}")
        else:
            walk.browse.assert_fits(WIDTH)
        assert decisions < 10, "a turn is a few decisions"
    return reasons


def play_next_seat(walk: Walk) -> None:
    """Bob's whole turn, through the service (as his own page would): the heuristic bot's choices for him."""
    round_now = walk.table.state().round
    while walk.table.state().current_player == NEXT and walk.table.state().round == round_now:
        with walk.app.app_context(), db.write_session() as session:
            game = seat_rows.get_game(session=session, game_id=walk.table.game_id)
            state = games.load_state(game)
            decision = games.decision_of(GLORY, state, NEXT)
            assert decision is not None
            move = games.move_body(games.bot_move(GLORY, state, NEXT, "heuristic"))
            flows.play.move(
                session=session, game_id=walk.table.game_id, seat=1, move=move, decision=decision.id, source="page"
            )


def test_a_newcomer_finds_their_game_plays_a_round_and_talks_to_the_table(walk: Walk) -> None:
    page = walk.page
    walk.mail_to(NEWCOMER_ADDRESS)  # the invitation and the first turn email went out; she has lost them

    walk.browse.open("/")
    expect(page.get_by_role("heading", name="Lost your links?")).to_be_visible()
    walk.step("front-door")
    page.get_by_label("Your email address").fill(NEWCOMER_ADDRESS)
    with page.expect_navigation(wait_until="load"):
        page.get_by_role("button", name="Email me my links").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check your email")
    expect(page.locator(".lost")).to_contain_text(NEWCOMER_ADDRESS)
    walk.step("check-your-email")

    [email] = [m for m in walk.mail_to(NEWCOMER_ADDRESS) if m["Subject"] == "Your links to your games"]
    text = text_of(email)
    assert "Nia's first game (you play nia):" in text
    links = re.findall(r"^(http://127\.0\.0\.1:\d+/play/\S+)$", text, re.MULTILINE)
    assert len(links) == 1, text
    assert links[0].startswith(walk.browse.base_url + "/play/"), "the emailed link opens on this server"
    page.goto(links[0], wait_until="load")
    personal = page.url
    expect(page.get_by_role("heading", level=1)).to_have_text("Nia's first game")
    expect(page.locator(".turn")).to_contain_text("Your turn")
    walk.step("emailed-link")

    page.get_by_role("link", name="How to play").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("How to play Call to Glory")
    expect(page.locator(".rules")).to_contain_text("The goal")
    walk.step("how-to-play")
    page.get_by_role("link", name="Back to your page").click()
    expect(page.locator(".turn")).to_contain_text("Your turn")
    assert payload(page.url.rsplit("/", 1)[1]) == payload(personal.rsplit("/", 1)[1]), "back on her own page"

    reasons = play_turn(walk, shots=True)
    assert reasons >= 3, "the reasons beside closed choices were shown at each decision"
    assert walk.table.moves_logged() >= 3
    expect(page.locator(".turn")).to_contain_text(f"Waiting for {NEXT}")

    for _ in range(MOST_TURNS):
        if walk.table.state().round > 1:
            break
        if walk.table.state().current_player == NEWCOMER:
            page.goto(personal, wait_until="load")
            play_turn(walk, shots=False)
        else:
            play_next_seat(walk)
    else:
        pytest.fail("the first round did not end")

    page.goto(personal, wait_until="load")
    state = walk.table.state()
    scores = dict(zip(state.players, state.round_scores[0], strict=True))
    banner = page.locator(".headline")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Round 1 is over: " + ", ".join(f"{n} {s}" for n, s in scores.items()))
    expect(banner).to_contain_text("Its score sheet is in the scores below.")
    sheet = page.locator(".scores table")
    expect(sheet).to_be_visible()
    first_row = sheet.locator("tbody tr").first
    expect(first_row.locator("td")).to_have_text(["1", *(str(scores[n]) for n in state.players)])
    walk.step("round-over")

    before = len(walk.mail_to(NEXT_ADDRESS))
    if walk.table.state().current_player == NEWCOMER:  # her turn: the message goes with her next move
        expect(page.locator("#talk").get_by_role("button", name="Say it")).to_have_count(0)
        page.get_by_label(re.compile("A message to the table with your move")).fill(SAID)
        label, note, _move = heuristic_choice(walk)
        click_move(page, re.compile(f"^{re.escape(label)}\\s*{re.escape(note)}$"))
        expect(page.locator(".flash.done:not(.headline)")).to_contain_text(f"Done: {label}.")
    else:
        page.get_by_label(re.compile("Say something to the table")).fill(SAID)
        with page.expect_navigation(wait_until="load"):
            page.locator("#talk").get_by_role("button", name="Say it").click()
        expect(page.locator(".flash.done:not(.headline)")).to_contain_text("Your message is on the table.")
    expect(page.locator(".said")).to_contain_text(f"{NEWCOMER}: {SAID}")
    walk.step("table-talk")

    for _ in range(MOST_TURNS):
        received = walk.mail_to(NEXT_ADDRESS)[before:]
        if received:
            break
        if walk.table.state().current_player == NEWCOMER:
            page.goto(personal, wait_until="load")
            play_turn(walk, shots=False)
        else:
            play_next_seat(walk)
    else:
        pytest.fail(f"{NEXT} got no email after the message")
    assert f"{NEWCOMER} said: “{SAID}”" in text_of(received[0]), received[0]["Subject"]
    walk.browse.assert_clean()
