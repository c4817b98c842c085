"""Waits per seat: a game that waits on several players at once (the test-only Pick a Number) reminds each of
them on their own clock and applies each one's deadline on its own."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from flask import Flask

from pbem import db, flows, timing
from pbem.core import seats as seat_rows
from pbem.models import Wait
from pbem.scheduler import sweeps
from pbem.web import pages
from tests.apps import Table

from .conftest import (
    T0,
    Clock,
    Mail,
    game_row,
    make_game,
    seat_row,
    timeout_moves,
    utc,
    wait_row,
    wait_rows,
)

pytestmark = pytest.mark.usefixtures("mail")
H = timedelta(hours=1)
PICK = "pick-a-number"


def remind(app: Flask, now: datetime) -> int:
    with app.app_context():
        return sweeps.reminder_sweep(now=now)


def time_out(app: Flask, now: datetime) -> int:
    with app.app_context():
        return sweeps.deadline_sweep(now=now)


def pick(app: Flask, table: Table, seat: int, number: int) -> None:
    with app.app_context(), db.write_session() as session:
        round_no = table.state().round
        flows.play.move(
            session=session,
            game_id=table.game_id,
            seat=seat,
            move={"do": "pick", "number": number},
            decision=f"round-{round_no}",
            source="page",
        )


def picks(table: Table) -> dict[str, int]:
    return dict(table.state().picks)


def new_pick_game(app: Flask, **kw: object) -> Table:
    """ann (UTC), bob (UTC) and cy (New York, where T0 is 06:00, in the default quiet hours)."""
    overrides = {"cy": {"timezone": "America/New_York"}}
    return make_game(app, game=PICK, options={"rounds": 2, "highest": 5}, overrides=overrides, **kw)


def test_every_seat_waited_on_at_once_has_a_wait_of_its_own(app: Flask, clock: Clock) -> None:
    table = new_pick_game(app)
    rows = wait_rows(app, table.game_id)
    assert [r.seat for r in rows] == [0, 1, 2]
    assert {(r.decision, r.wait) for r in rows} == {("round-1", "round-1")}
    assert all(utc(r.waiting_since) == T0 and utc(r.deadline_at) == T0 + 72 * H for r in rows)
    assert [utc(r.next_reminder_at) for r in rows] == [T0 + 24 * H, T0 + 24 * H, datetime(2026, 6, 2, 12, tzinfo=UTC)]
    game = game_row(app, table.game_id)
    assert utc(game.waiting_since) == T0 and utc(game.next_reminder_at) == T0 + 24 * H
    assert utc(game.deadline_at) == T0 + 72 * H, "the game sums its waits up: the earliest of each"
    clock.advance(hours=3)
    pick(app, table, 0, 4)
    rows = wait_rows(app, table.game_id)
    assert [r.seat for r in rows] == [1, 2], "ann picked: her wait is over, the others' go on unchanged"
    assert all(utc(r.waiting_since) == T0 and utc(r.deadline_at) == T0 + 72 * H for r in rows)


def test_two_seats_waited_on_at_once_each_get_their_own_reminders(app: Flask, clock: Clock, mail: Mail) -> None:
    table = new_pick_game(app)
    clock.advance(hours=1)
    pick(app, table, 0, 2)
    since, gid = int(T0.timestamp()), table.game_id
    assert remind(app, T0 + 24 * H) == 1, "bob's reminder is due; cy's waits for the end of her night"
    assert mail.reminders == [(1, 1, f"reminder:{gid}:1:round-1:{since}:1")]
    assert wait_row(app, gid, 1).reminders_sent == 1 and wait_row(app, gid, 2).reminders_sent == 0
    assert remind(app, datetime(2026, 6, 2, 11, 59, tzinfo=UTC)) == 0
    assert remind(app, datetime(2026, 6, 2, 12, 0, tzinfo=UTC)) == 1, "08:00 in New York"
    assert mail.reminders[1:] == [(2, 1, f"reminder:{gid}:2:round-1:{since}:1")]
    assert utc(wait_row(app, gid, 1).next_reminder_at) == T0 + 48 * H
    assert utc(wait_row(app, gid, 2).next_reminder_at) == datetime(2026, 6, 3, 12, 0, tzinfo=UTC)
    assert utc(game_row(app, gid).next_reminder_at) == T0 + 48 * H, "the game's summary: the earliest"
    assert remind(app, T0 + 48 * H) == 1 and mail.reminders[-1][:2] == (1, 2), "bob's second"


def test_one_seat_times_out_to_the_bot_while_the_others_wait_goes_on(app: Flask, clock: Clock) -> None:
    table = new_pick_game(app)
    clock.advance(hours=1)
    pick(app, table, 0, 2)
    with app.app_context(), db.write_session() as session:  # bob is away until 2 June: his deadline moves
        seat_rows.set_absence(session=session, game_id=table.game_id, seat=1, until=date(2026, 6, 2), now=clock.now)
    back = datetime(2026, 6, 3, 0, 0, tzinfo=UTC)
    bob_deadline = T0 + 72 * H + (back - clock.now)
    assert utc(wait_row(app, table.game_id, 1).deadline_at) == bob_deadline
    assert utc(wait_row(app, table.game_id, 2).deadline_at) == T0 + 72 * H
    assert time_out(app, T0 + 72 * H - timedelta(seconds=1)) == 0
    clock.at(T0 + 72 * H)
    assert time_out(app, clock.now) == 1, "cy's deadline only"
    moves = timeout_moves(app, table.game_id)
    assert [m.seat for m in moves] == [2] and moves[0].move["do"] == "pick"
    assert set(picks(table)) == {"ann", "cy"}, "the bot picked for cy; bob has not picked"
    (bob,) = wait_rows(app, table.game_id)
    assert bob.seat == 1 and utc(bob.waiting_since) == T0 and utc(bob.deadline_at) == bob_deadline
    assert utc(game_row(app, table.game_id).deadline_at) == bob_deadline
    assert time_out(app, clock.now + 12 * H) == 0, "bob's wait goes on"
    clock.at(bob_deadline)
    assert time_out(app, clock.now) == 1
    assert [m.seat for m in timeout_moves(app, table.game_id)] == [2, 1]
    assert table.state().round == 2 and picks(table) == {}
    rows = wait_rows(app, table.game_id)
    assert [(r.seat, r.wait) for r in rows] == [(0, "round-2"), (1, "round-2"), (2, "round-2")]
    assert all(utc(r.waiting_since) == clock.now for r in rows), "a new round: a new wait for everyone"
    assert table.verify()


def test_a_timeout_that_pauses_stops_every_wait_and_a_resume_starts_them_anew(app: Flask, clock: Clock) -> None:
    table = new_pick_game(app, policy=timing.Policy(timeout="pause"), organiser_email="org@example.com")
    clock.advance(hours=1)
    pick(app, table, 1, 3)
    clock.at(T0 + 72 * H)
    assert time_out(app, clock.now) == 1, "one pause, for whichever wait came first"
    game = game_row(app, table.game_id)
    assert game.paused_at is not None and game.deadline_at is None and game.next_reminder_at is None
    rows = wait_rows(app, table.game_id)
    assert [r.seat for r in rows] == [0, 2] and all(r.deadline_at is None and r.next_reminder_at is None for r in rows)
    assert time_out(app, clock.now + 500 * H) == 0 and remind(app, clock.now + 500 * H) == 0
    clock.advance(hours=10)
    with app.app_context(), db.write_session() as session:
        flows.games.resume(session=session, game_id=table.game_id, now=clock.now)
    rows = wait_rows(app, table.game_id)
    assert [r.seat for r in rows] == [0, 2]
    assert all(utc(r.waiting_since) == clock.now and utc(r.deadline_at) == clock.now + 72 * H for r in rows)
    assert timeout_moves(app, table.game_id) == []


@pytest.mark.parametrize("policy", [timing.Policy(), timing.Policy(timeout="pause")])
def test_a_finished_game_waits_on_nobody(app: Flask, clock: Clock, policy: timing.Policy) -> None:
    table = make_game(app, game=PICK, options={"rounds": 1, "highest": 3}, names=("ann", "bob"), policy=policy)
    pick(app, table, 0, 1)
    pick(app, table, 1, 2)
    assert game_row(app, table.game_id).status == "finished"
    assert wait_rows(app, table.game_id) == []
    game = game_row(app, table.game_id)
    assert game.waiting_since is None and game.deadline_at is None and game.next_reminder_at is None


def test_each_seat_s_page_can_show_its_own_deadline(app: Flask, clock: Clock) -> None:
    table = new_pick_game(app)
    clock.advance(hours=1)
    with app.app_context(), db.write_session() as session:  # cy is away until 2 June: only her deadline moves
        seat_rows.set_absence(session=session, game_id=table.game_id, seat=2, until=date(2026, 6, 2), now=clock.now)
    game = game_row(app, table.game_id)
    seats = [seat_row(app, table.game_id, p) for p in range(3)]
    rows = [wait_row(app, table.game_id, 1), wait_row(app, table.game_id, 2)]
    info = {w.seat: pages.page_info(game=game, seats=seats, me=seats[w.seat], now=clock.now, wait=w) for w in rows}
    assert info[1].deadline == "Thursday 4 June 2026, 10:00 (UTC)"
    # 72 h plus her 41 h away (from 07:00 EDT on 1 June to the end of 2 June in New York), on her clock
    assert info[2].deadline == "Friday 5 June 2026, 23:00 (America/New_York)"


def test_a_wait_left_behind_is_dropped_by_the_sweep_not_acted_on(app: Flask, clock: Clock, mail: Mail) -> None:
    table = new_pick_game(app)
    pick(app, table, 1, 5)
    with app.app_context(), db.write_session() as session:  # as if bob were still waited on for round 1
        session.add(Wait(game_id=table.game_id, seat=1, decision="round-1", wait="round-1", waiting_since=T0,
                         next_reminder_at=T0, deadline_at=T0))  # fmt: skip
    assert remind(app, T0 + H) == 0 and mail.reminders == []
    assert [r.seat for r in wait_rows(app, table.game_id)] == [0, 2], "bob's stale wait is gone, the others stay"
    assert time_out(app, T0 + 71 * H) == 0 and timeout_moves(app, table.game_id) == []
    assert utc(game_row(app, table.game_id).next_reminder_at) == T0 + 24 * H
