"""The scheduler: APScheduler jobs that send queued mail, send reminders and digests and apply deadlines.

One ``BackgroundScheduler`` (UTC, in-memory job store) with five interval jobs registered from
code at start: the outbox sender every SCHEDULER_SEND_SECONDS, the deadline, reminder, digest and start sweeps every
SCHEDULER_SWEEP_SECONDS; a sixth reads replies over IMAP every MAIL_IN_POLL_SECONDS when MAIL_IN_IMAP_HOST
is set. Nothing is pickled and nothing is remembered here: the database says what
is due, and each job claims its rows, so a second scheduler process does no harm. A run that starts
late still runs (no misfire grace limit), late runs are coalesced into one, and a job never overlaps
itself. ``pbem scheduler`` runs it as its own process; ``pbem serve`` (``make run``) inside the
development server when SCHEDULER_IN_WEB is true. ``create_app`` never starts one.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from types import FrameType

import click
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from flask import Flask, current_app
from flask.cli import with_appcontext
from flask_babel import gettext as _
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.serving import run_simple

from .. import db, timing
from ..core import health
from ..mail import sender
from ..mail_in import imap
from . import sweeps

log = logging.getLogger(__name__)
EXTENSION = "pbem_scheduler"
STOPPING = "pbem_scheduler_stopping"
"""The app's event set when its scheduler stops: a long sending pass ends after its batch."""
JOB_DEFAULTS = {"coalesce": True, "max_instances": 1, "misfire_grace_time": None}


def send_mail_job(app: Flask) -> None:
    """Send the queued emails that are due: batch after batch while they come back full, over one SMTP
    connection, with a heartbeat after each batch (a long backlog never looks like a stopped scheduler)."""
    with app.app_context():
        started = [time.monotonic()]

        def _after_batch(report: sender.SendReport) -> None:
            _beat("send-mail", time.monotonic() - started[0], report.sent)
            started[0] = time.monotonic()

        report = sender.send_while_full(stop=app.extensions.get(STOPPING), after_batch=_after_batch)
        if report.claimed:
            log.info("outbox: %s", report)


def deadline_job(app: Flask) -> None:
    """Apply the timeout policy of every game whose deadline passed."""
    with app.app_context(), _beating("deadlines") as done:
        applied = sweeps.deadline_sweep(now=timing.now())
        done.append(applied)
        if applied:
            log.info("deadlines: %d applied", applied)


def reminder_job(app: Flask) -> None:
    """Queue the reminders that are due."""
    with app.app_context(), _beating("reminders") as done:
        queued = sweeps.reminder_sweep(now=timing.now())
        done.append(queued)
        if queued:
            log.info("reminders: %d queued", queued)


def digest_job(app: Flask) -> None:
    """Queue the daily digests that are due."""
    with app.app_context(), _beating("digests") as done:
        queued = sweeps.digest_sweep(now=timing.now())
        done.append(queued)
        if queued:
            log.info("digests: %d queued", queued)


HOST = f"{socket.gethostname()[:50]}:{os.getpid()}"


@contextmanager
def _beating(job: str) -> Iterator[list[int]]:
    """Run a job's body, then record its heartbeat (``/readyz``, ``/metrics``): when it finished, how long it took
    and what it did (the numbers the body appends). A run that fails records nothing: its heartbeat ages."""
    started = time.monotonic()
    done: list[int] = []
    yield done
    _beat(job, time.monotonic() - started, sum(done))


def _beat(job: str, seconds: float, done: int) -> None:
    """Record a job's heartbeat; a database that cannot take it is only logged (the heartbeat ages, as it should)."""
    try:
        with db.write_session() as session:
            health.beat(session=session, job=job, now=timing.now(), seconds=seconds, done=done, host=HOST)
    except SQLAlchemyError as exc:
        log.warning("%s: the heartbeat could not be recorded: %s", job, type(exc).__name__)


def mail_in_job(app: Flask) -> None:
    """Read the replies waiting in the IMAP mailbox (only scheduled when MAIL_IN_IMAP_HOST is set)."""
    with app.app_context():
        report = imap.poll()
        if report.read:
            log.info("mail in: %s", report)


def start_job(app: Flask) -> None:
    """Start the games waiting for answers whose start date has come."""
    with app.app_context(), _beating("starts") as done:
        started = sweeps.start_sweep(now=timing.now())
        done.append(started)
        if started:
            log.info("starts: %d games started", started)


JOBS: tuple[tuple[str, Callable[[Flask], None], str], ...] = (
    ("send-mail", send_mail_job, "SCHEDULER_SEND_SECONDS"),
    ("deadlines", deadline_job, "SCHEDULER_SWEEP_SECONDS"),
    ("reminders", reminder_job, "SCHEDULER_SWEEP_SECONDS"),
    ("digests", digest_job, "SCHEDULER_SWEEP_SECONDS"),
    ("starts", start_job, "SCHEDULER_SWEEP_SECONDS"),
)


def build(app: Flask) -> BackgroundScheduler:
    """A scheduler with the jobs (not started); each job's first run is at start."""
    scheduler = BackgroundScheduler(
        timezone="UTC",
        jobstores={"default": MemoryJobStore()},
        executors={"default": ThreadPoolExecutor(len(JOBS) + 1)},
        job_defaults=JOB_DEFAULTS,
    )
    first = datetime.now(UTC)  # APScheduler runs on the wall clock, whatever clock the jobs read
    jobs = list(JOBS)
    if app.config["MAIL_IN_IMAP_HOST"]:
        jobs.append(("mail-in", mail_in_job, "MAIL_IN_POLL_SECONDS"))
    for job_id, function, interval in jobs:
        scheduler.add_job(
            function,
            "interval",
            seconds=app.config[interval],
            args=[app],
            id=job_id,
            name=job_id,
            next_run_time=first,
            replace_existing=True,
        )
    return scheduler


def start(app: Flask) -> BackgroundScheduler:
    """Start the app's scheduler, once: a second call returns the running one."""
    running: BackgroundScheduler | None = app.extensions.get(EXTENSION)
    if running is not None:
        return running
    scheduler = build(app)
    app.extensions[STOPPING] = threading.Event()
    scheduler.start()
    app.extensions[EXTENSION] = scheduler
    log.info("scheduler started: %s", ", ".join(job.id for job in scheduler.get_jobs()))
    return scheduler


def stop(app: Flask) -> None:
    """Stop the app's scheduler (if it runs), letting running jobs finish."""
    scheduler: BackgroundScheduler | None = app.extensions.pop(EXTENSION, None)
    stopping: threading.Event | None = app.extensions.get(STOPPING)
    if stopping is not None:
        stopping.set()
    if scheduler is not None:
        scheduler.shutdown(wait=True)
        log.info("scheduler stopped")


def _log_to_terminal() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Our jobs log what they did; APScheduler's "running job … executed" lines every few seconds drown it.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)


@click.command("scheduler")
@with_appcontext
def scheduler_command() -> None:
    """Run the scheduler in this process until SIGTERM or Ctrl-C (production: one such process, or two)."""
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    _log_to_terminal()
    done = threading.Event()

    def _stop(_signum: int, _frame: FrameType | None) -> None:
        done.set()

    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    start(app)
    send, sweep = app.config["SCHEDULER_SEND_SECONDS"], app.config["SCHEDULER_SWEEP_SECONDS"]
    said = _(
        "scheduler running: mail every %(send)s s, sweeps every %(sweep)s s; stop with Ctrl-C",
        send=send,
        sweep=sweep,
    )
    click.echo(said, err=True)
    try:
        while not done.wait(1):
            pass
    finally:
        stop(app)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    click.echo(_("scheduler stopped"), err=True)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@with_appcontext
def serve_command(host: str, port: int) -> None:
    """Serve the app with the development server, with the scheduler inside when SCHEDULER_IN_WEB is true."""
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    inside = bool(app.config["SCHEDULER_IN_WEB"])
    _log_to_terminal()
    if inside:
        start(app)
    else:
        click.echo(_("SCHEDULER_IN_WEB is false: run `pbem scheduler` for mail, reminders and deadlines"))
    previous = signal.signal(signal.SIGTERM, _interrupt)  # like Ctrl-C: the server returns, the scheduler stops
    try:
        run_simple(host, port, app, threaded=True, use_reloader=False, use_debugger=False)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if inside:
            stop(app)


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt
