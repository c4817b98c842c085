"""Email choices per seat, chosen on the settings page and checked in the emails a real SMTP server receives.

Score sheets folded into the next turn email (or the game-over email) appear there and nowhere else, while
the default ("separate") still sends each as its own email; a daily digest goes out once per local day to a
seat that is not waited on, with what happened since its last digest or its own last move, and not when
nothing happened; reminders off means no reminder. On both databases.
"""

from __future__ import annotations

import random
import re
import threading
from datetime import datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Engine, update
from sqlmodel import col

from engine.call_to_glory import HeuristicBot, Options
from pbem import db, flows, timing
from pbem.core import games, links, waits
from pbem.db import make_engine
from pbem.mail import sender
from pbem.models import Seat
from pbem.scheduler import sweeps
from tests.apps import Table, new_table
from tests.web.test_settings import forms

from .conftest import Received, SMTPServer, deliver
from .test_end_to_end import PLAYERS, Players, text_and_html

ZOE, BOB, SARA = (addr for _name, addr in PLAYERS)
TURN = re.compile(r"· Round \d · (Your turn|Reveal a task card)$")
SHEET_TEXT = re.compile(r"Round (\d) of 2 of Friday game is over\. The score sheet:")
SHEET_HTML = re.compile(r'data-sheet="round_scored-(\d)"')
ZONES = {ZOE: "UTC", BOB: "America/New_York", SARA: "Asia/Jerusalem"}


def settings_path(app: Flask, table: Table, position: int) -> str:
    with app.test_request_context():
        return f"/settings/{links.settings_token(table.game_id, position, table.seat(position).nonce)}"


def choose(browser: FlaskClient, path: str, **choices: str) -> None:
    """Open the settings page, then save the email choices with its form (its CSRF token)."""
    [(action, fields)] = [(a, f) for a, f in forms(browser.get(path).text) if f.get("action") == "choices"]
    wanted = {"reminders": "on", "score_sheets": "separate", "digest": "none", **choices}
    response = browser.post(action, data={**fields, **wanted})
    assert response.status_code == 303
    assert "Your email choices are saved." in browser.get(path).text


def to(messages: list[Received], addr: str) -> list[Received]:
    return [m for m in messages if m.envelope_to == [addr]]


def sheets_in(message: Received) -> list[int]:
    """The rounds whose score sheet the message shows, in the text part; the HTML part must show the same."""
    text, html = text_and_html(message)
    found = [int(n) for n in SHEET_TEXT.findall(text)]
    if message["Subject"].endswith((" scores", "Game over")) and not SHEET_HTML.search(html):
        return found  # a sheet's own email, or the game over of a seat that gets sheets on their own
    assert [int(n) for n in SHEET_HTML.findall(html)] == found, "the same sheets in both parts"
    return found


@pytest.fixture
def friday(smtp_app: Flask, smtp_server: SMTPServer) -> Players:
    """The three players' 2-round game, each in their own time zone; invitations and the first turn delivered."""
    specs = [games.SeatSpec(name, email=addr, timezone=ZONES[addr]) for name, addr in PLAYERS]
    table = new_table(smtp_app, specs, name="Friday game", seed=11, options=Options(rounds=2))
    players = Players(smtp_app, smtp_server, table)
    assert len(players.deliver()) == 4
    return players


def play_to_the_end(players: Players, new: list[Received]) -> None:
    rng = random.Random(7)
    for _ in range(400):
        if any(m["Subject"] == "Friday game · Game over" for m in new):
            return
        [asked] = [m for m in new if TURN.search(m["Subject"])]
        players.take_turn(asked, rng)
        new = players.deliver()
    raise AssertionError("the game ends")


@pytest.mark.slow
def test_a_folded_score_sheet_appears_in_the_next_turn_email_and_nowhere_else(friday: Players) -> None:
    app, table = friday.app, friday.table
    choose(friday.browsers[BOB], settings_path(app, table, 1), score_sheets="folded")
    assert table.seat(1).score_sheets == "folded"
    play_to_the_end(friday, [m for m in friday.received if TURN.search(m["Subject"])])

    bobs = to(friday.received, BOB)
    assert [m["Subject"] for m in bobs if m["Subject"].endswith(" scores")] == [], "no sheet of its own"
    shown = [(m["Subject"], sheets_in(m)) for m in bobs if sheets_in(m)]
    assert len(shown) == 2, shown
    (first_subject, first), (last_subject, last) = shown
    assert TURN.search(first_subject) and first == [1], "round 1's sheet in bob's next turn email"
    assert last_subject == "Friday game · Game over" and last == [2], "the last round's in his game-over email"
    # It is his first turn email after round 1 was scored: no turn email came between.
    scored_at = next(i for i, m in enumerate(friday.received) if m["Subject"] == "Friday game · Round 1 scores")
    later_turns = [m for m in friday.received[scored_at:] if m.envelope_to == [BOB] and TURN.search(m["Subject"])]
    assert later_turns[0]["Subject"] == first_subject and sheets_in(later_turns[0]) == [1]
    assert all(sheets_in(m) == [] for m in later_turns[1:]), "shown once, not again"
    assert table.seat(1).pending_sheets is None

    for addr in (ZOE, SARA):  # the default: each sheet its own email, and none folded anywhere
        mine = to(friday.received, addr)
        own = [m for m in mine if m["Subject"].endswith(" scores")]
        assert [m["Subject"] for m in own] == ["Friday game · Round 1 scores", "Friday game · Round 2 scores"]
        assert [sheets_in(m) for m in own] == [[1], [2]]
        assert all(sheets_in(m) == [] for m in mine if m not in own)


def test_a_folded_sheet_is_not_lost_when_its_turn_email_is_no_longer_needed(friday: Players) -> None:
    """Bob folds his sheets; the turn email carrying one goes out only after he played from his page: the sheet
    still arrives, on its own and once, and the turn email does not."""
    app, table = friday.app, friday.table
    choose(friday.browsers[BOB], settings_path(app, table, 1), score_sheets="folded")
    carried = False
    for _ in range(200):  # bots play (without sending) until bob's turn email carries round 1's sheet
        state = table.state()
        held = table.seat(1).pending_sheets
        carried = carried or bool(held)
        if carried and not held:
            break
        move = HeuristicBot().choose(state).to_json()
        del move["player"]
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session, game_id=table.game_id, seat=state.current, move=move, decision=state.ply, source="page"
            )
    assert carried and table.seat(1).pending_sheets is None and table.state().current == 1
    friday.server.clear()
    _play_from_page(friday, BOB, 1)  # before the sender ran
    with app.app_context():
        while sender.send_due().claimed:
            pass
    bobs = to(friday.server.messages, BOB)
    assert [m["Subject"] for m in bobs] == ["Friday game · Round 1 scores"]
    assert sheets_in(bobs[0]) == [1]


def seat_due(app: Flask, table: Table, position: int) -> datetime:
    due = timing.utc(table.seat(position).next_digest_at)
    assert due is not None
    return due


def digest(app: Flask, now: datetime) -> int:
    with app.app_context():
        return sweeps.digest_sweep(now=now)


def test_a_daily_digest_tells_what_happened_once_a_day_to_seats_not_waited_on(friday: Players) -> None:
    app, table = friday.app, friday.table
    for position, addr in enumerate((ZOE, BOB, SARA)):
        choose(friday.browsers[addr], settings_path(app, table, position), digest="daily")
    due = {position: seat_due(app, table, position) for position in range(3)}
    for position, addr in enumerate((ZOE, BOB, SARA)):  # 08:00 on each seat's own clock, the first one from now
        local = due[position].astimezone(ZoneInfo(ZONES[addr]))
        assert (local.hour, local.minute) == (8, 0) and due[position] - datetime.now(ZoneInfo("UTC")) <= timedelta(1)
    assert digest(app, min(due.values()) - timedelta(minutes=1)) == 0, "none before it is due"
    friday.server.clear()
    friday.received.clear()

    # Zoë plays her turn and says something at the table; bob is waited on now.
    assert table.state().current == 0
    _play_from_page(friday, ZOE, 0)
    [(say, fields)] = [(a, f) for a, f in forms(friday.browsers[ZOE].get(_page(table, 0)).text) if a.endswith("/say")]
    assert friday.browsers[ZOE].post(say, data={**fields, "message": "Good luck, Bob!"}).status_code == 303
    assert [m.envelope_to for m in friday.deliver()] == [[BOB]], "bob's turn email"

    now = max(due.values())
    assert digest(app, now) == 1, "sara's only: bob is waited on, and nothing happened since zoë's own move"
    [sent] = friday.deliver()
    assert sent.envelope_to == [SARA] and sent["Subject"] == "Friday game · What happened"
    text, html = text_and_html(sent)
    assert "Zoë Ærø said: “Good luck, Bob!”" in text and "Good luck, Bob!" in html
    assert re.search(r"^- Zoë Ærø .+", text, re.MULTILINE), "zoë's turn narrated"
    assert sent["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert digest(app, now) == 0, "a second sweep sends nothing"
    with app.app_context(), db.write_session() as session:  # as if another scheduler had not seen the first
        session.execute(update(Seat).where(col(Seat.game_id) == table.game_id).values(next_digest_at=now))
    assert digest(app, now) == 0, "one digest per seat and local day"
    assert friday.deliver() == []

    # Bob plays; sara is waited on now. The next morning zoë hears of bob's turn, sara (her turn) of nothing.
    _play_from_page(friday, BOB, 1)
    friday.deliver()
    # past zoë's next 08:00 and outside her quiet hours, whatever the hour the test runs at (`now` is 06:00 UTC,
    # sara's 08:00, when the test runs between 06:00 and 08:00 UTC)
    tomorrow = now + timedelta(days=1, hours=4)
    assert digest(app, tomorrow) == 1
    [sent] = friday.deliver()
    text = text_and_html(sent)[0]
    assert sent.envelope_to == [ZOE] and re.search(r"^- Bob 🎲 .+", text, re.MULTILINE)
    assert "Good luck" not in text, "her own words are not news to her"
    assert digest(app, tomorrow + timedelta(days=1)) == 0, "nothing happened since: no digest"
    assert friday.deliver() == []


def test_no_digest_for_seats_that_left_or_chose_none(friday: Players) -> None:
    app, table = friday.app, friday.table
    choose(friday.browsers[BOB], settings_path(app, table, 1), digest="daily")
    choose(friday.browsers[BOB], settings_path(app, table, 1), digest="none")
    assert table.seat(1).next_digest_at is None
    choose(friday.browsers[SARA], settings_path(app, table, 2), digest="daily")
    due = seat_due(app, table, 2)
    path = settings_path(app, table, 2)
    [leave] = [f for _, f in forms(friday.browsers[SARA].get(f"{path}?confirm=leave").text) if f["action"] == "leave"]
    assert friday.browsers[SARA].post(path, data=leave).status_code == 200
    _play_from_page(friday, ZOE, 0)
    friday.deliver()
    assert digest(app, due + timedelta(days=2)) == 0
    assert friday.deliver() == []


def test_reminders_off_means_no_reminder(friday: Players) -> None:
    app, table = friday.app, friday.table
    choose(friday.browsers[ZOE], settings_path(app, table, 0), reminders="off")
    with app.app_context():
        wait = waits.of_seat(db.get_session(), table.game_id, 0)
    assert wait is not None and wait.next_reminder_at is not None
    due = wait.next_reminder_at
    with app.app_context():
        assert sweeps.reminder_sweep(now=due) == 0
    assert friday.deliver() == []
    choose(friday.browsers[ZOE], settings_path(app, table, 0), reminders="on")
    with app.app_context():
        wait = waits.of_seat(db.get_session(), table.game_id, 0)
        assert wait is not None and wait.next_reminder_at is not None
        assert sweeps.reminder_sweep(now=wait.next_reminder_at) == 1
    [reminder] = friday.deliver()
    assert reminder.envelope_to == [ZOE] and "Reminder" in reminder["Subject"]


def _page(table: Table, position: int) -> str:
    return f"/play/{table.personal(position)}"


def _play_from_page(players: Players, addr: str, position: int) -> None:
    """The seat plays its whole turn with the first choice of each decision on its page."""
    browser, table = players.browsers[addr], players.table
    path = _page(table, position)
    while table.state().current == position and not table.state().is_finished:
        choices = [(a, f) for a, f in forms(browser.get(path).text) if f.get("decision") and f.get("do")]
        assert choices
        action, fields = choices[0]
        response = browser.post(action, data=fields)
        assert response.status_code == 303
        path = urlsplit(response.headers["Location"]).path


def test_two_schedulers_sweeping_at_once_send_each_digest_once(smtp_app: Flask, smtp_server: SMTPServer) -> None:
    app = smtp_app
    specs = [games.SeatSpec(name, email=addr, timezone=ZONES[addr]) for name, addr in PLAYERS]
    tables = [new_table(app, specs, name="Friday game", seed=seed) for seed in range(1, 5)]
    browser = app.test_client()
    for table in tables:
        choose(browser, settings_path(app, table, 2), digest="daily")
        players = Players(app, smtp_server, table)
        _play_from_page(players, ZOE, 0)
    deliver(app)
    smtp_server.clear()
    now = max(seat_due(app, table, 2) for table in tables)
    engines = [make_engine(app.config["DATABASE_URL"]), make_engine(app.config["DATABASE_URL"])]
    barrier = threading.Barrier(2)
    counts: list[int] = []

    def sweep(engine: Engine) -> None:
        with app.app_context():
            barrier.wait()
            counts.append(sweeps.digest_sweep(engine=engine, now=now))

    try:
        threads = [threading.Thread(target=sweep, args=(engine,)) for engine in engines]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        for engine in engines:
            engine.dispose()
    assert len(counts) == 2 and sum(counts) == 4, counts
    deliver(app)
    received = smtp_server.messages
    assert [m.envelope_to for m in received] == [[SARA]] * 4
    assert len({m["In-Reply-To"] for m in received}) == 4, "one digest for each game"
