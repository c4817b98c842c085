"""Reminder and deadline sweeps on SQLite and PostgreSQL, with an injected clock (no sleeping)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update
from sqlmodel import col, select

from pbem import admin, db, flows, timing
from pbem.core import errors, games
from pbem.core import seats as seat_rows
from pbem.db import make_engine
from pbem.flows import timers
from pbem.i18n import when as local_time
from pbem.models import MoveRecord, Seat, Wait
from pbem.scheduler import sweeps
from tests.apps import form_fields
from tests.mail.conftest import deliver

from .conftest import (
    T0,
    Clock,
    address,
    game_row,
    make_game,
    outbox_to,
    play_turn,
    reminders,
    seat_row,
    timeout_moves,
    utc,
    wait_row,
)

H = timedelta(hours=1)
DRAW1 = {"do": "draw", "pile": "draw1"}
DRAW2 = {"do": "draw", "pile": "draw2"}


def remind(app: Flask, now: datetime) -> int:
    with app.app_context():
        return sweeps.reminder_sweep(now=now)


def time_out(app: Flask, now: datetime) -> int:
    with app.app_context():
        return sweeps.deadline_sweep(now=now)


def table_verified(app: Flask, game_id: int) -> bool:
    with app.app_context():
        return games.verify_game(session=db.get_session(), game_id=game_id)


# ---------------------------------------------------------------------------------------------- waits


def test_a_new_game_waits_on_the_first_player_with_reminder_and_deadline(app: Flask, clock: Clock) -> None:
    table = make_game(app)
    game, wait = game_row(app, table.game_id), wait_row(app, table.game_id)
    assert utc(game.waiting_since) == T0 and wait.decision == "0" and wait.reminders_sent == 0
    assert wait.seat == 0 and utc(wait.waiting_since) == T0
    assert utc(wait.next_reminder_at) == T0 + 24 * H and utc(wait.deadline_at) == T0 + 72 * H
    assert utc(game.next_reminder_at) == T0 + 24 * H
    assert utc(game.deadline_at) == T0 + 72 * H
    assert game.policy == timing.Policy().to_json()


def test_the_wait_starts_when_the_seat_to_act_changes_not_at_each_draw(app: Flask, clock: Clock) -> None:
    table = make_game(app)
    clock.advance(hours=5)
    state = table.state()
    with app.app_context(), db.write_session() as session:
        flows.play.move(session=session, game_id=table.game_id, seat=0, move=DRAW1, decision=state.ply, source="page")
    game = game_row(app, table.game_id)
    assert utc(game.waiting_since) == T0 and wait_row(app, table.game_id).decision == "0", "a draw keeps the wait"
    assert utc(game.deadline_at) == T0 + 72 * H
    clock.advance(hours=1)
    play_turn(app, table)  # ann finishes her turn: bob's wait begins now
    game = game_row(app, table.game_id)
    assert table.state().current_player == "bob"
    assert utc(game.waiting_since) == T0 + 6 * H and wait_row(app, table.game_id).decision == str(table.state().ply)
    assert wait_row(app, table.game_id).seat == 1, "ann's wait is gone, bob's began"
    assert utc(game.next_reminder_at) == T0 + 30 * H and utc(game.deadline_at) == T0 + 78 * H


def test_reminders_come_on_time_once_each_and_stop_before_the_deadline(app: Flask, clock: Clock) -> None:
    table = make_game(app)
    gid = table.game_id
    assert remind(app, T0 + 24 * H - timedelta(seconds=1)) == 0
    assert remind(app, T0 + 24 * H) == 1
    assert remind(app, T0 + 24 * H) == 0, "the same sweep again sends nothing"
    assert remind(app, T0 + 30 * H) == 0
    assert remind(app, T0 + 48 * H) == 1
    assert remind(app, T0 + 71 * H) == 0, "the third slot would fall on the deadline"
    deliver(app)  # the sender renders them
    sent = reminders(app, gid)
    wait = int(T0.timestamp())  # a reminder's key names its game, decision, wait and number
    assert [r.dedupe_key for r in sent] == [f"reminder:{gid}:0:0:{wait}:1", f"reminder:{gid}:0:0:{wait}:2"]
    assert {address(r) for r in sent} == {"ann@example.com"}
    assert "Reminder 1" in sent[0].subject and "Reminder 2" in sent[1].subject
    # The last one names the deadline, on ann's clock (UTC): Thursday 4 June 2026, 10:00.
    assert "4 June" in sent[1].text_body and "4 June" not in sent[0].text_body
    game = game_row(app, gid)
    assert wait_row(app, gid).reminders_sent == 2 and game.next_reminder_at is None


def test_reminders_respect_quiet_hours_across_daylight_saving_changes(app: Flask, clock: Clock) -> None:
    # Amsterdam, the night of 28-29 March 2026 (02:00 -> 03:00): the reminder due at 23:30 CET waits until 08:00 CEST.
    clock.at(datetime(2026, 3, 27, 22, 30, tzinfo=UTC))
    ams = make_game(app, overrides={"ann": {"timezone": "Europe/Amsterdam"}})
    assert utc(game_row(app, ams.game_id).next_reminder_at) == datetime(2026, 3, 29, 6, 0, tzinfo=UTC)
    # New York, the night of 31 October - 1 November 2026 (02:00 EDT -> 01:00 EST): 08:00 EST is 13:00 UTC.
    clock.at(datetime(2026, 10, 31, 3, 30, tzinfo=UTC))
    ny = make_game(app, overrides={"ann": {"timezone": "America/New_York"}})
    assert utc(game_row(app, ny.game_id).next_reminder_at) == datetime(2026, 11, 1, 13, 0, tzinfo=UTC)
    # New York, 8 March 2026 (02:00 EST -> 03:00 EDT): 08:00 EDT is 12:00 UTC.
    clock.at(datetime(2026, 3, 7, 4, 0, tzinfo=UTC))  # 23:00 EST on 6 March: due 23:00 EST on the 7th
    spring = make_game(app, overrides={"ann": {"timezone": "America/New_York"}})
    assert utc(game_row(app, spring.game_id).next_reminder_at) == datetime(2026, 3, 8, 12, 0, tzinfo=UTC)
    assert remind(app, datetime(2026, 3, 8, 11, 59, tzinfo=UTC)) == 0
    assert remind(app, datetime(2026, 3, 8, 12, 0, tzinfo=UTC)) == 1
    assert remind(app, datetime(2026, 3, 29, 5, 59, tzinfo=UTC)) == 0
    assert remind(app, datetime(2026, 3, 29, 6, 0, tzinfo=UTC)) == 1
    assert remind(app, datetime(2026, 11, 1, 12, 59, tzinfo=UTC)) == 0
    assert remind(app, datetime(2026, 11, 1, 13, 0, tzinfo=UTC)) == 1
    assert {r.game_id for r in reminders(app)} == {ams.game_id, ny.game_id, spring.game_id}


def test_a_sweep_never_reminds_in_quiet_hours_even_if_the_seat_moved_zone(app: Flask, clock: Clock) -> None:
    table = make_game(app)  # ann in UTC: the reminder is due at 10:00 UTC tomorrow
    with app.app_context(), db.write_session() as session:
        to_tokyo = update(Seat).where(col(Seat.game_id) == table.game_id, col(Seat.position) == 0)
        session.execute(to_tokyo.values(timezone="Asia/Tokyo"))
    due = T0 + 24 * H  # 19:00 in Tokyo: fine; but at 14:00 UTC it is 23:00 there
    game_id = table.game_id
    with app.app_context(), db.write_session() as session:
        session.execute(update(Wait).where(col(Wait.game_id) == game_id).values(next_reminder_at=due + 4 * H))
    assert remind(app, due + 4 * H) == 0
    assert utc(game_row(app, game_id).next_reminder_at) == datetime(2026, 6, 2, 23, 0, tzinfo=UTC)  # 08:00 in Tokyo
    assert remind(app, datetime(2026, 6, 2, 23, 0, tzinfo=UTC)) == 1


@pytest.mark.parametrize("who", ["reminders off", "no email"])
def test_no_reminders_for_seats_that_cannot_or_do_not_want_them(app: Flask, clock: Clock, who: str) -> None:
    overrides = {"ann": {"email": None}} if who == "no email" else {}
    table = make_game(app, overrides=overrides)
    if who == "reminders off":
        with app.app_context(), db.write_session() as session:
            session.execute(update(Seat).where(col(Seat.game_id) == table.game_id).values(reminders=False))
    assert remind(app, T0 + 24 * H) == 0
    assert reminders(app, table.game_id) == []
    assert wait_row(app, table.game_id).reminders_sent == 1, "the slot passed all the same"
    assert remind(app, T0 + 48 * H) == 0 and reminders(app, table.game_id) == []


def test_a_seat_that_left_gets_no_reminders(app: Flask, clock: Clock) -> None:
    table = make_game(app)
    assert timers.remindable(seat_row(app, table.game_id, 0))
    clock.advance(hours=2)
    with app.app_context(), db.write_session() as session:
        flows.play.leave(session=session, game_id=table.game_id, seat=0)
    assert not timers.remindable(seat_row(app, table.game_id, 0))
    assert table.state().current_player == "bob", "the bot took ann's seat and played her turn"
    for hours in range(0, 24 * 20, 6):
        clock.at(T0 + hours * H)
        remind(app, clock.now)
        time_out(app, clock.now)
    assert reminders(app) and all(address(r) != "ann@example.com" for r in reminders(app))


def test_bots_never_get_reminders_or_deadlines(app: Flask, clock: Clock) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("Bot", kind="heuristic")]
    with app.app_context(), db.write_session() as session:
        game = flows.games.create(session=session, name="Bots", seats=specs, seed=3)
        gid = game.id or 0
    for hours in range(0, 24 * 30, 12):
        clock.at(T0 + hours * H)
        remind(app, clock.now)
        time_out(app, clock.now)
    sent, timed_out = reminders(app, gid), timeout_moves(app, gid)
    assert sent and {address(r) for r in sent} == {"ann@example.com"}
    assert timed_out and {m.seat for m in timed_out} == {0}, "only ann's turns time out: the bot never waits"
    assert table_verified(app, gid)


# ---------------------------------------------------------------------------------------------- deadlines


def test_at_the_deadline_the_bot_plays_the_rest_of_the_turn(app: Flask, clock: Clock) -> None:
    table = make_game(app)
    state = table.state()
    with app.app_context(), db.write_session() as session:
        flows.play.move(session=session, game_id=table.game_id, seat=0, move=DRAW2, decision=state.ply, source="page")
    assert time_out(app, T0 + 72 * H - timedelta(seconds=1)) == 0
    clock.at(T0 + 72 * H)
    assert time_out(app, clock.now) == 1
    moves = timeout_moves(app, table.game_id)
    assert moves and all(m.seat == 0 for m in moves)
    assert moves[0].move["do"] == "draw", "ann drew once herself; the bot made her second draw"
    assert moves[-1].move["do"] in ("lay", "discard"), "and ended her turn"
    after = table.state()
    assert after.current_player == "bob" and after.turn == state.turn + 1
    assert table.verify(), "replaying the log still gives the stored snapshot"
    game = game_row(app, table.game_id)
    assert utc(game.waiting_since) == clock.now and utc(game.deadline_at) == clock.now + 72 * H
    assert time_out(app, clock.now) == 0, "applied once"
    assert outbox_to(app, "bob@example.com")[-1].kind == "turn", "bob is told it is his turn"


def test_the_pause_notice_speaks_the_organisers_language(app: Flask, clock: Clock) -> None:
    with app.app_context(), db.write_session() as session:
        admin.create_admin(
            session=session, username="org", password="organise-4-us!", email="org@example.com", language="nl"
        )
    make_game(app, policy=timing.Policy(timeout="pause"), organiser_email="org@example.com")
    clock.at(T0 + 73 * H)
    assert time_out(app, clock.now) == 1
    notice = outbox_to(app, "org@example.com")[-1]
    assert "Gepauzeerd" in notice.subject or "gepauzeerd" in notice.text_body, notice.subject
    assert "waited for" not in notice.text_body and "did not play in time" not in notice.subject


def test_pause_policy_pauses_refuses_moves_and_tells_the_organiser(
    app: Flask, client: FlaskClient, clock: Clock
) -> None:
    table = make_game(app, policy=timing.Policy(timeout="pause"), organiser_email="org@example.com")
    clock.at(T0 + 73 * H)
    assert time_out(app, clock.now) == 1
    game = game_row(app, table.game_id)
    assert utc(game.paused_at) == clock.now and "ann did not play within 3 days" in games.pause_words(game)
    assert game.status == "playing", "the status still mirrors the engine"
    assert game.deadline_at is None and game.next_reminder_at is None
    notice = outbox_to(app, "org@example.com")[-1]
    assert "Paused" in notice.subject and "ann" in notice.text_body
    assert table.moves_logged() == 0
    assert remind(app, clock.now + 48 * H) == 0 and time_out(app, clock.now + 480 * H) == 0
    # The player's page says so and offers no moves; a move link or a posted move is refused with 409.
    page = client.get(f"/play/{table.personal(0)}").get_data(as_text=True)
    assert "This game is paused" in page and "ann did not play within 3 days" in page
    assert 'name="do" value="draw"' not in page
    link = client.get(f"/play/{table.move_token(0, DRAW1)}")
    assert link.status_code == 200 and "Confirm your move" not in link.get_data(as_text=True)
    csrf, _ = form_fields(page)
    form = {"csrf_token": csrf, **DRAW1, "decision": "0"}
    posted = client.post(f"/play/{table.personal(0)}", data=form)
    assert posted.status_code == 409 and "This game is paused" in posted.get_data(as_text=True)
    moved = client.post(f"/play/{table.move_token(0, DRAW1)}", data={"csrf_token": csrf})
    assert moved.status_code == 409 and table.moves_logged() == 0
    # Resumed (the admin page's service): a fresh wait from now.
    clock.advance(hours=5)
    with app.app_context(), db.write_session() as session:
        flows.games.resume(session=session, game_id=table.game_id, now=clock.now)
    game = game_row(app, table.game_id)
    assert game.paused_at is None and utc(game.deadline_at) == clock.now + 72 * H
    assert 'name="do" value="draw"' in client.get(f"/play/{table.personal(0)}").get_data(as_text=True)
    posted = client.post(f"/play/{table.personal(0)}", data=form)
    assert posted.status_code == 303 and table.moves_logged() == 1


def test_no_deadline_policy_never_times_out(app: Flask, clock: Clock) -> None:
    table = make_game(app, policy=timing.Policy(deadline_hours=None))
    assert game_row(app, table.game_id).deadline_at is None
    assert time_out(app, T0 + 1000 * H) == 0
    assert [remind(app, T0 + h * H) for h in (24, 48, 72, 96)] == [1, 1, 1, 0]


# ---------------------------------------------------------------------------------------------- catch-up


def test_after_three_days_down_each_overdue_reminder_goes_once(app: Flask, clock: Clock) -> None:
    policy = timing.Policy(deadline_hours=120)
    tables = [make_game(app, policy=policy, seed=s) for s in (1, 2, 3)]
    now = T0 + 72 * H + 30 * timedelta(minutes=1)  # slots at 24, 48 and 72 h were all missed
    assert remind(app, now) == 3
    assert remind(app, now) == 0
    for table in tables:
        (sent,) = reminders(app, table.game_id)
        assert sent.dedupe_key == f"reminder:{table.game_id}:0:0:{int(T0.timestamp())}:1"
        game = game_row(app, table.game_id)
        assert wait_row(app, table.game_id).reminders_sent == 1 and utc(game.next_reminder_at) == now + 24 * H, (
            "the next counts from now"
        )
    assert remind(app, now + 24 * H) == 3 and remind(app, now + 48 * H) == 0  # 96 h: the third would pass 120 h


def test_after_three_days_down_deadlines_are_applied_oldest_first(app: Flask, clock: Clock) -> None:
    created = {}
    for offset_minutes, seed in ((50, 1), (0, 2), (20, 3)):
        clock.at(T0 + timedelta(minutes=offset_minutes))
        created[offset_minutes] = make_game(app, seed=seed).game_id
    clock.at(T0 + 80 * H)
    assert time_out(app, clock.now) == 3
    first_timeout = {}
    for record in timeout_moves(app):
        first_timeout.setdefault(record.game_id, record.id)
    order = sorted(first_timeout, key=lambda gid: first_timeout[gid])
    assert order == [created[0], created[20], created[50]]
    assert time_out(app, clock.now) == 0
    for gid in created.values():
        game = game_row(app, gid)
        assert utc(game.deadline_at) == clock.now + 72 * H


# ---------------------------------------------------------------------------------------------- two schedulers


def test_two_schedulers_sweeping_at_once_send_every_reminder_exactly_once(app: Flask, clock: Clock) -> None:
    tables = [make_game(app, seed=s) for s in range(1, 13)]
    url = app.config["DATABASE_URL"]
    engines = [make_engine(url), make_engine(url)]
    counts: list[int] = []
    barrier = threading.Barrier(2)

    def run(eng: object, sweep: str, now: datetime) -> None:
        with app.app_context():
            barrier.wait()
            counts.append(getattr(sweeps, sweep)(engine=eng, now=now))

    try:
        for sweep, now in (("reminder_sweep", T0 + 24 * H), ("reminder_sweep", T0 + 48 * H)):
            counts.clear()
            threads = [threading.Thread(target=run, args=(e, sweep, now)) for e in engines]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            assert sum(counts) == len(tables), counts
        keys = [r.dedupe_key for r in reminders(app)]
        assert len(keys) == len(set(keys)) == 2 * len(tables)
        # Deadlines: each game's timed-out turn is played once.
        clock.at(T0 + 72 * H)
        counts.clear()
        threads = [threading.Thread(target=run, args=(e, "deadline_sweep", clock.now)) for e in engines]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sum(counts) == len(tables), counts
        for table in tables:
            assert table.state().current_player == "bob" and table.verify()
            assert {m.seat for m in timeout_moves(app, table.game_id)} == {0}
    finally:
        for eng in engines:
            eng.dispose()


def test_a_move_during_a_sweep_wins_or_waits_and_nothing_is_applied_twice(app: Flask, clock: Clock) -> None:
    """A player moving while the deadline sweep runs: the decision is made once, by one of them."""
    tables = [make_game(app, seed=s) for s in range(1, 7)]
    clock.at(T0 + 72 * H)
    failures: list[BaseException] = []

    def player(table_id: int) -> None:
        try:
            with app.app_context(), db.write_session() as session:
                state = games.load_state(seat_rows.get_game(session=session, game_id=table_id))
                flows.play.move(
                    session=session, game_id=table_id, seat=0, move=DRAW1, decision=state.ply, source="page"
                )
        except (errors.AlreadyPlayed, errors.ServiceError):
            pass
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=player, args=(t.game_id,)) for t in tables]
    sweeper = threading.Thread(target=time_out, args=(app, clock.now))
    for t in [sweeper, *threads]:
        t.start()
    for t in [sweeper, *threads]:
        t.join(60)
    assert not failures
    for table in tables:
        assert table.verify()
        with app.app_context():
            seqs = list(db.get_session().exec(select(MoveRecord.seq).where(MoveRecord.game_id == table.game_id)))
        assert sorted(seqs) == list(range(1, len(seqs) + 1)), "one log, no decision made twice"


def test_a_sweep_pages_through_many_due_games_with_equal_times(
    app: Flask, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweeps, "BATCH", 2)  # pages of two: ties on the same instant must neither repeat nor skip
    tables = [make_game(app, seed=s) for s in range(1, 6)]  # five games waiting since the same instant
    clock.advance(minutes=5)
    tables += [make_game(app, seed=s) for s in (6, 7)]
    assert remind(app, T0 + 25 * H) == 7
    assert sorted(r.game_id for r in reminders(app)) == sorted(t.game_id for t in tables)
    clock.at(T0 + 80 * H)
    assert time_out(app, clock.now) == 7
    assert {m.game_id for m in timeout_moves(app)} == {t.game_id for t in tables}


def test_a_resumed_game_has_reminders_of_its_own(app: Flask, clock: Clock) -> None:
    """Nothing can be played while paused, so the wait after a resume is at the same decision: its reminders
    must not be taken for the ones sent before the pause."""
    table = make_game(app, policy=timing.Policy(timeout="pause"), organiser_email="org@example.com")
    assert [remind(app, T0 + 24 * H), remind(app, T0 + 48 * H)] == [1, 1]
    with app.app_context():
        assert sweeps.deadline_sweep(now=T0 + 73 * H) == 1
    assert game_row(app, table.game_id).paused_at is not None
    clock.at(T0 + 80 * H)
    with app.app_context(), db.write_session() as session:
        flows.games.resume(session=session, game_id=table.game_id, now=clock.now)
    assert remind(app, T0 + 104 * H) == 1
    assert len(reminders(app, table.game_id)) == 3


def test_a_new_player_at_the_seat_that_must_act_gets_a_wait_of_their_own(app: Flask, clock: Clock) -> None:
    table = make_game(app)
    clock.at(T0 + 71 * H)
    with app.app_context(), db.write_session() as session:
        admin.hand_seat(
            session=session,
            game_id=table.game_id,
            seat=0,
            kind="human",
            email="new@example.com",
            actor=admin.Actor(id=0, name="org"),
        )
    game = game_row(app, table.game_id)
    assert utc(game.waiting_since) == T0 + 71 * H and utc(game.deadline_at) == T0 + 143 * H
    deliver(app)  # the sender renders it
    [turn] = [row for row in outbox_to(app, "new@example.com") if row.kind == "turn"]
    assert f"Please move before {local_time(T0 + 143 * H, 'UTC')}." in " ".join(turn.text_body.split())
    with app.app_context():
        assert sweeps.deadline_sweep(now=T0 + 72 * H + timedelta(minutes=1)) == 0, "not the old player's deadline"
    assert timeout_moves(app, table.game_id) == []
