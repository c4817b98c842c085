"""Time away and quiet hours from the player's page: the form, its POSTs, the cap, and what they change."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update
from sqlmodel import col

from pbem import db, flows, timing
from pbem.core import errors, links
from pbem.core import seats as seat_rows
from pbem.models import Game, Seat
from pbem.scheduler import sweeps
from tests.apps import form_fields

from .conftest import T0, Clock, game_row, make_game, play_turn, reminders, seat_row, utc

H = timedelta(hours=1)


def page(client: FlaskClient, token: str) -> str:
    response = client.get(f"/play/{token}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def post(client: FlaskClient, token: str, what: str, **data: str) -> tuple[int, str, str]:
    """POST one of the away forms with the CSRF token of the seat's page: (status, Location, body)."""
    csrf, _ = form_fields(page(client, token))
    response = client.post(f"/play/{token}/{what}", data={"csrf_token": csrf, **data})
    return response.status_code, response.headers.get("Location", ""), response.get_data(as_text=True)


def test_the_page_shows_the_form_and_a_get_writes_nothing(
    app: Flask, client: FlaskClient, clock: Clock, write_counter: list[str]
) -> None:
    table = make_game(app)
    write_counter.clear()
    html = page(client, table.personal(0))
    assert 'id="away"' in html and 'name="until"' in html and 'min="2026-06-01"' in html and 'max="2026-06-14"' in html
    assert "Your deadline: <strong>Thursday 4 June 2026, 10:00 (UTC)</strong>" in html
    assert "the bot plays the rest of your turn" in html
    assert "Quiet hours: 22:00-08:00 (the default)" in html
    assert "Your deadline" not in page(client, table.personal(1)), "only the player to act has a deadline"
    assert client.get(f"/play/{table.personal(0)}/away").status_code == 405
    assert client.head(f"/play/{table.personal(0)}").status_code == 200
    assert write_counter == []


def test_a_post_without_the_csrf_token_is_refused(app: Flask, client: FlaskClient, clock: Clock) -> None:
    table = make_game(app)
    for what, data in (("away", {"until": "2026-06-03"}), ("back", {}), ("quiet", {"start": "23:00", "end": "07:00"})):
        response = client.post(f"/play/{table.personal(0)}/{what}", data=data)
        assert response.status_code == 400 and "security token" in response.get_data(as_text=True)
    seat = seat_row(app, table.game_id, 0)
    assert seat.away_until is None and seat.quiet_start is None


def test_going_away_moves_the_deadline_holds_reminders_and_shows_to_others(
    app: Flask, client: FlaskClient, clock: Clock
) -> None:
    table = make_game(app)
    clock.advance(hours=2)  # 12:00 on Monday 1 June
    status, location, _ = post(client, table.personal(0), "away", until="2026-06-03")
    assert status == 303 and location.endswith("#away")
    with app.test_request_context():  # the server signs the seat's link anew: same seat, maybe another second
        back = links.read(location.split("/play/", 1)[1].removesuffix("#away"))
    assert (back.purpose, back.game_id, back.seat) == (links.PERSONAL, table.game_id, 0)
    seat = seat_row(app, table.game_id, 0)
    assert seat.away_until == date(2026, 6, 3) and seat.away_days_used == 3 and utc(seat.away_from) == clock.now
    game = game_row(app, table.game_id)
    back = datetime(2026, 6, 4, 0, 0, tzinfo=UTC)  # the first instant after 3 June on ann's clock
    assert utc(game.deadline_at) == T0 + 72 * H + (back - clock.now)
    assert utc(game.next_reminder_at) == datetime(2026, 6, 4, 8, 0, tzinfo=UTC), "after the absence and the night"
    mine = page(client, table.personal(0))
    assert "You are away until <strong>3 June 2026</strong>" in mine and "I am back" in mine
    theirs = page(client, table.personal(1))
    assert "<strong><bdi>ann</bdi></strong> is away until 3 June 2026." in theirs
    wait = re.search(r'<p class="turn">(.*?)</p>', theirs, re.DOTALL)
    assert wait and '<span class="away-wait"><bdi>ann</bdi> is away until 3 June 2026.</span>' in wait.group(1), (
        "beside the wait"
    )
    assert "is away until" not in mine
    # No reminders while away (the sweep re-checks, even if a reminder was due by the old plan).
    assert sweeps_remind(app, datetime(2026, 6, 2, 10, 0, tzinfo=UTC)) == 0
    assert sweeps_remind(app, datetime(2026, 6, 4, 8, 0, tzinfo=UTC)) == 1
    wait = int(utc(game_row(app, table.game_id).waiting_since).timestamp())
    assert [r.dedupe_key for r in reminders(app)] == [f"reminder:{table.game_id}:0:0:{wait}:1"]


def sweeps_remind(app: Flask, now: datetime) -> int:
    with app.app_context():
        return sweeps.reminder_sweep(now=now)


def test_a_reminder_planned_before_the_absence_waits_for_its_end(app: Flask, clock: Clock) -> None:
    table = make_game(app)
    with app.app_context(), db.write_session() as session:  # away set some other way: the sweep still checks
        values = {"away_from": T0, "away_until": date(2026, 6, 2)}
        session.execute(update(Seat).where(col(Seat.game_id) == table.game_id, col(Seat.position) == 0).values(values))
    assert sweeps_remind(app, T0 + 24 * H) == 0
    assert utc(game_row(app, table.game_id).next_reminder_at) == datetime(2026, 6, 3, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("until", "status", "message"),
    [
        ("2026-05-31", 400, "31 May 2026 is in the past: choose today or a later date."),
        ("2026-06-15", 400, "This game allows 14 days of time away in all; you have 14 left, so the latest date is"),
        ("2026-02-30", 400, "Choose the date you are back"),
        ("tomorrow", 400, "Choose the date you are back"),
        ("", 400, "Choose the date you are back"),
    ],
)
def test_bad_dates_are_refused_with_a_clear_message(
    app: Flask, client: FlaskClient, clock: Clock, until: str, status: int, message: str
) -> None:
    table = make_game(app)
    code, _, body = post(client, table.personal(0), "away", until=until)
    assert code == status and message in body
    seat = seat_row(app, table.game_id, 0)
    assert seat.away_until is None and seat.away_days_used == 0
    assert utc(game_row(app, table.game_id).deadline_at) == T0 + 72 * H, "nothing half-applied"


def test_the_cap_counts_every_absence_of_the_game(app: Flask, client: FlaskClient, clock: Clock) -> None:
    table = make_game(app, policy=timing.Policy(absence_cap_days=4))
    token = table.personal(1)  # bob: not the player to act, so his deadline is not touched now
    assert post(client, token, "away", until="2026-06-02")[0] == 303  # 2 days
    assert post(client, token, "away", until="2026-06-04")[0] == 303  # replaced: 4 days in all
    code, _, body = post(client, token, "away", until="2026-06-05")
    assert code == 400 and "you have 4 left, so the latest date is 4 June 2026" in body
    clock.advance(hours=24)  # Tuesday: back a day early
    assert post(client, token, "back")[0] == 303
    seat = seat_row(app, table.game_id, 1)
    assert seat.away_until is None and seat.away_days_used == 2, "Monday and Tuesday used; the rest given back"
    assert "2 more days of time away" in page(client, token)
    assert post(client, token, "away", until="2026-06-03")[0] == 303
    code, _, body = post(client, token, "away", until="2026-06-04")
    assert code == 400 and "latest date is 3 June 2026" in body
    assert post(client, table.personal(2), "away", until="2026-06-05")[0] == 303, "each seat has its own days"


def test_back_early_keeps_the_time_already_away_on_the_deadline(app: Flask, client: FlaskClient, clock: Clock) -> None:
    table = make_game(app)
    assert post(client, table.personal(0), "away", until="2026-06-05")[0] == 303
    clock.advance(hours=30)  # Tuesday 16:00
    assert post(client, table.personal(0), "back")[0] == 303
    game = game_row(app, table.game_id)
    assert utc(game.deadline_at) == T0 + 72 * H + 30 * H
    assert utc(game.next_reminder_at) == clock.now, "the first reminder was due during the absence: it goes now"


def test_a_wait_that_begins_while_away_gets_the_moved_deadline(app: Flask, client: FlaskClient, clock: Clock) -> None:
    table = make_game(app)
    assert post(client, table.personal(1), "away", until="2026-06-02")[0] == 303  # bob away Monday and Tuesday
    clock.advance(hours=1)
    play_turn(app, table)  # ann plays at 11:00: bob's wait begins while he is away
    game = game_row(app, table.game_id)
    back = datetime(2026, 6, 3, 0, 0, tzinfo=UTC)
    assert utc(game.waiting_since) == clock.now
    assert utc(game.deadline_at) == clock.now + 72 * H + (back - clock.now)
    assert utc(game.next_reminder_at) == datetime(2026, 6, 3, 8, 0, tzinfo=UTC)


def test_quiet_hours_of_ones_own(app: Flask, client: FlaskClient, clock: Clock) -> None:
    table = make_game(app)
    token = table.personal(0)
    clock.advance(hours=2)
    assert post(client, token, "quiet", start="09:00", end="13:00")[0] == 303
    seat = seat_row(app, table.game_id, 0)
    assert (seat.quiet_start, seat.quiet_end) == ("09:00", "13:00")
    assert utc(game_row(app, table.game_id).next_reminder_at) == datetime(2026, 6, 2, 13, 0, tzinfo=UTC)
    assert "Quiet hours: 09:00-13:00, on your clock (UTC)" in page(client, token)
    code, _, body = post(client, token, "quiet", start="25:00", end="07:00")
    assert code == 400 and "the start of the quiet hours must be a time like 08:00" in body
    assert post(client, token, "quiet", default="1")[0] == 303
    seat = seat_row(app, table.game_id, 0)
    assert seat.quiet_start is None and seat.quiet_end is None
    assert utc(game_row(app, table.game_id).next_reminder_at) == T0 + 24 * H


def test_bad_links_and_finished_games(app: Flask, client: FlaskClient, clock: Clock) -> None:
    table = make_game(app)
    csrf, _ = form_fields(page(client, table.personal(0)))
    assert client.post("/play/not-a-token/away", data={"csrf_token": csrf, "until": "2026-06-02"}).status_code == 400
    old = table.personal(0)
    with app.app_context(), db.write_session() as session:
        ann = update(Seat).where(col(Seat.game_id) == table.game_id, col(Seat.position) == 0)
        session.execute(ann.values(nonce="rotated-" + "x" * 20))
    response = client.post(f"/play/{old}/away", data={"csrf_token": csrf, "until": "2026-06-02"})
    assert response.status_code == 410 and seat_row(app, table.game_id, 0).away_until is None
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="played by a bot"):
        flows.play.leave(session=session, game_id=table.game_id, seat=1)
        seat_rows.set_absence(session=session, game_id=table.game_id, seat=1, until=date(2026, 6, 2), now=clock.now)
    finished = make_game(app, names=("ann", "bob"))
    with app.app_context(), db.write_session() as session:
        session.execute(update(Game).where(col(Game.id) == finished.game_id).values(status="finished"))
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="The game is over"):
        seat_rows.set_absence(session=session, game_id=finished.game_id, seat=0, until=date(2026, 6, 2), now=clock.now)
