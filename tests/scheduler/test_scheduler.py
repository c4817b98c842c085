"""The APScheduler side: how the jobs are set up, the real scheduler delivering mail and reminders, the commands."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.triggers.interval import IntervalTrigger
from flask import Flask
from sqlmodel import col, select

from pbem import create_app, db, timing
from pbem.config import ConfigError
from pbem.core import seats as seat_rows
from pbem.models import OutboxEmail
from pbem.scheduler import jobs as scheduler_jobs
from tests.apps import Table, free_port
from tests.mail.conftest import SMTPServer

from .conftest import make_game, timeout_moves

ROOT = Path(__file__).resolve().parents[2]
PBEM = ROOT / ".venv" / "bin" / "pbem"


def test_the_jobs_are_registered_from_code_and_never_dropped_or_piled_up(
    app: Flask, request: pytest.FixtureRequest
) -> None:
    sched = scheduler_jobs.build(app)
    assert not sched.running
    sched.start(paused=True)  # jobs get their settings when the scheduler starts; paused, none runs
    request.addfinalizer(sched.shutdown)
    assert str(sched.timezone) == "UTC"
    assert isinstance(sched._jobstores["default"], MemoryJobStore)
    registered = {job.id: job for job in sched.get_jobs()}
    assert set(registered) == {"send-mail", "deadlines", "reminders", "digests", "starts"}
    seconds = {job_id: job.trigger.interval.total_seconds() for job_id, job in registered.items()}
    assert seconds == {"send-mail": 5, "deadlines": 60, "reminders": 60, "digests": 60, "starts": 60}
    for job in registered.values():
        assert isinstance(job.trigger, IntervalTrigger)
        assert job.coalesce is True and job.max_instances == 1 and job.misfire_grace_time is None
        assert job.args == (app,)


def test_the_app_never_starts_a_scheduler_and_start_is_once(app: Flask) -> None:
    assert scheduler_jobs.EXTENSION not in app.extensions, "create_app (tests, gunicorn workers) starts none"
    first = scheduler_jobs.start(app)
    try:
        assert scheduler_jobs.start(app) is first and first.running
    finally:
        scheduler_jobs.stop(app)
    assert not first.running and scheduler_jobs.EXTENSION not in app.extensions


def test_scheduler_settings_are_checked(database_url: str) -> None:
    base = {"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "k" * 40}
    assert create_app(base).config["SCHEDULER_IN_WEB"] is True, "development: inside `pbem serve`"
    production = {**base, "ENV": "production", "MAIL_BACKEND": "smtp"}
    assert create_app(production).config["SCHEDULER_IN_WEB"] is False, "production: `pbem scheduler` alone"
    for key, value, message in (
        ("SCHEDULER_IN_WEB", "yes", "SCHEDULER_IN_WEB must be true or false"),
        ("SCHEDULER_SEND_SECONDS", 0, "SCHEDULER_SEND_SECONDS must be a whole number of seconds"),
        ("SCHEDULER_SWEEP_SECONDS", 1.5, "SCHEDULER_SWEEP_SECONDS must be a whole number of seconds"),
        ("QUIET_HOURS", "late", "QUIET_HOURS: quiet hours are written like 22:00-08:00"),
        ("QUIET_HOURS", "22:00-8", "QUIET_HOURS: the end of the quiet hours must be a time like 08:00"),
    ):
        with pytest.raises(ConfigError, match=message):
            create_app({**base, key: value})


def _wait_for(what: Callable[[], bool], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if what():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_the_real_scheduler_delivers_mail_reminders_and_deadlines(
    make_mail_app: Callable[..., Flask], smtp_server: SMTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_mail_app(
        MAIL_SERVER=smtp_server.host,
        MAIL_PORT=smtp_server.port,
        SCHEDULER_SEND_SECONDS=1,
        SCHEDULER_SWEEP_SECONDS=1,
        QUIET_HOURS="00:00-00:00",  # whatever the hour of the test run, a due reminder may go
    )
    now = timing.now()
    with monkeypatch.context() as past:  # two games that have been waiting a while
        past.setattr("pbem.timing._source", lambda: now - timedelta(hours=25))
        reminded = make_game(app, name="Reminded", names=("ann", "bob"), seed=1)
        past.setattr("pbem.timing._source", lambda: now - timedelta(hours=73))
        late = make_game(app, name="Late", names=("cy", "dan"), seed=2)
    smtp_server.clear()
    scheduler_jobs.start(app)
    try:

        def subjects(to: str) -> list[str]:
            return [str(m["Subject"]) for m in smtp_server.messages if to in str(m["To"])]

        assert _wait_for(lambda: any("Reminder 1" in s for s in subjects("ann@example.com"))), subjects("ann@example")
        assert _wait_for(lambda: any("Your turn" in s for s in subjects("dan@example.com"))), subjects("dan@example")
        time.sleep(2)  # a few more sweeps and sender passes: nothing is sent twice
    finally:
        scheduler_jobs.stop(app)
    reminded_subjects = [s for s in subjects("ann@example.com") if "Reminder" in s]
    assert reminded_subjects == ["Reminded · Round 1 · Reminder 1 · Your turn"], reminded_subjects
    assert any("You are invited" in s for s in subjects("bob@example.com")), "queued invitations were delivered"
    moves = timeout_moves(app, late.game_id)
    assert moves and {m.seat for m in moves} == {0}, "cy's turn timed out and the bot played it"
    assert Table(app, late.game_id).verify() and Table(app, reminded.game_id).state().current_player == "ann"
    with app.app_context():
        left = (
            db.get_session().exec(select(OutboxEmail).where(col(OutboxEmail.status).not_in(("sent", "dropped")))).all()
        )
    assert left == [], "every queued email was sent (or dropped: a turn email whose decision was made first)"


def _env(database_url: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_SECRET_KEY": "test-key-" + "x" * 32,
        "PBEM_SCHEDULER_SEND_SECONDS": "1",
        **extra,
    }


def _unsent(app: Flask) -> int:
    with app.app_context():
        rows = db.get_session().exec(select(OutboxEmail.id).where(col(OutboxEmail.status) != "sent")).all()
        db.get_session().close()
        return len(rows)


# The commands' process wiring is the same on both databases (the jobs' work is tested on both above).
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.mark.slow
@SQLITE_ONLY
def test_pbem_scheduler_runs_on_its_own_until_sigterm(app: Flask) -> None:
    make_game(app)  # its invitations and first turn email wait in the outbox
    assert _unsent(app) > 0
    proc = subprocess.Popen(
        [str(PBEM), "scheduler"],
        cwd=ROOT,
        env=_env(app.config["DATABASE_URL"]),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert _wait_for(lambda: _unsent(app) == 0), "the scheduler process sent the queued mail (mailbox backend)"
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert "scheduler running" in output and "scheduler stopped" in output


@pytest.mark.slow
@SQLITE_ONLY
@pytest.mark.parametrize("inside", [True, False])
def test_pbem_serve_starts_the_scheduler_once_or_not_at_all(app: Flask, inside: bool) -> None:
    table = make_game(app)
    token = table.personal(0)
    port = free_port()
    env = _env(
        app.config["DATABASE_URL"],
        PBEM_SERVER_NAME=f"127.0.0.1:{port}",
        PBEM_SCHEDULER_IN_WEB="true" if inside else "false",
    )
    proc = subprocess.Popen(
        [str(PBEM), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )

    def answers() -> bool:
        try:
            return requests.get(f"http://127.0.0.1:{port}/play/{token}", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False

    try:
        assert _wait_for(answers), "the development server answers"
        if inside:
            assert _wait_for(lambda: _unsent(app) == 0), "the scheduler inside it sent the queued mail"
        else:
            time.sleep(2)
            assert _unsent(app) > 0, "no scheduler: the mail waits for `pbem scheduler`"
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert output.count("scheduler started") == (1 if inside else 0), output
    assert ("scheduler stopped" in output) is inside
    with app.app_context():
        assert seat_rows.get_game(session=db.get_session(), game_id=table.game_id).version == 1
