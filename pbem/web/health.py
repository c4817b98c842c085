"""Watching the server: ``/healthz`` (the process answers), ``/readyz`` (it can serve: database, schema, scheduler,
mail backlog, as JSON) and ``/metrics`` (Prometheus, for configured addresses or a bearer token).

None of them shows a token, a name or an address; ``/healthz`` and ``/readyz`` are cheap enough for a proxy, systemd
or a monitor to call every few seconds. Under gunicorn the request timings of every worker are gathered through
prometheus_client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, set by ``config/gunicorn.conf.py``); what the
database knows (moves, emails, the scheduler's heartbeats and totals) is read from it at each scrape, so it is the
same whichever worker or machine answers.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest, multiprocess
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from .. import db, timing
from ..core import health

log = logging.getLogger(__name__)
bp = Blueprint("health", __name__)

REQUEST_SECONDS = Histogram(
    "pbem_request_seconds",
    "Time to answer a request, by endpoint and method.",
    ["endpoint", "method"],
    registry=None,
)
METHODS = frozenset({"GET", "HEAD", "POST", "OPTIONS"})
"""Methods named in the request timings; any other counts as "other" (a client cannot add labels)."""
SCHEDULER_JOBS = {
    "send-mail": "SCHEDULER_SEND_SECONDS",
    "deadlines": "SCHEDULER_SWEEP_SECONDS",
    "reminders": "SCHEDULER_SWEEP_SECONDS",
    "digests": "SCHEDULER_SWEEP_SECONDS",
    "starts": "SCHEDULER_SWEEP_SECONDS",
}
"""The scheduler's jobs and the setting that says how often each runs."""
LATE_AFTER_PERIODS = 3
"""A job whose last run finished more than this many of its periods ago counts as stopped."""


@bp.get("/healthz")
def healthz() -> Response:
    """The process answers (nothing else is checked)."""
    return Response("ok\n", mimetype="text/plain")


@bp.get("/readyz")
def readyz() -> tuple[Response, int]:
    """200 when the database answers, its schema is current and the scheduler beats; else 503. JSON either way."""
    report = readiness(current_app, timing.now())
    return jsonify(report), 200 if report["ok"] else 503


def readiness(app: Flask, now: datetime) -> dict[str, Any]:
    """The checks of ``/readyz``: database, migrations, scheduler heartbeats, oldest queued email, inbound mail."""
    checks: dict[str, Any] = {}
    try:
        with Session(db.get_engine()) as session:
            current = db.schema_revisions(session)
            beats = health.beats(session=session) if current else {}
            oldest = health.oldest_queued(session=session) if current else None
    except SQLAlchemyError as exc:
        log.warning("readyz: the database cannot be read: %s", type(exc).__name__)
        checks["database"] = {"ok": False, "error": type(exc).__name__}
        return {"ok": False, "checks": checks}
    checks["database"] = {"ok": True}
    expected = db.schema_heads()
    checks["migrations"] = {"ok": current == expected, "current": sorted(current), "expected": sorted(expected)}
    jobs: dict[str, Any] = {}
    for job, setting in SCHEDULER_JOBS.items():
        limit = LATE_AFTER_PERIODS * app.config[setting]
        found = beats.get(job)
        age = None if found is None else max(0.0, (now - found.beat_at).total_seconds())
        jobs[job] = {"ok": age is not None and age <= limit, "age_seconds": age, "limit_seconds": limit}
    checks["scheduler"] = {"ok": all(j["ok"] for j in jobs.values()), "jobs": jobs}
    checks["outbox"] = {
        "ok": True,
        "oldest_queued_seconds": None if oldest is None else max(0.0, (now - oldest).total_seconds()),
    }
    checks["inbound_mail"] = {"ok": True, "status": "not configured"}
    return {"ok": all(c["ok"] for c in checks.values()), "checks": checks}


@bp.get("/metrics")
def metrics() -> Response:
    """Prometheus metrics, for METRICS_ALLOWED addresses or the METRICS_TOKEN bearer token; else 404."""
    if not _may_scrape():
        return Response("Not Found\n", status=404, mimetype="text/plain")
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(REQUEST_SECONDS)
    registry.register(_Database(current_app._get_current_object(), timing.now()))  # type: ignore[attr-defined]
    return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)


def _may_scrape() -> bool:
    """The bearer token, when one is set, or a client address in METRICS_ALLOWED. A request that came through a
    proxy (X-Forwarded-For) that PROXY_FIX does not trust is judged by the token only: its peer is the proxy."""
    token: str = current_app.config["METRICS_TOKEN"]
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    if request.headers.get("X-Forwarded-For") and not current_app.config["PROXY_FIX"]:
        return False
    try:
        client = ipaddress.ip_address(request.remote_addr or "")
    except ValueError:
        return False
    allowed = current_app.config["METRICS_ALLOWED"]
    return any(client in ipaddress.ip_network(network, strict=False) for network in allowed)


class _Database(Collector):
    """What the database knows, read at each scrape."""

    def __init__(self, app: Flask, now: datetime) -> None:
        self.app = app
        self.now = now

    def collect(self) -> Iterator[Any]:
        up = GaugeMetricFamily("pbem_database_up", "1 if the database answered this scrape, else 0.")
        try:
            with Session(db.get_engine()) as session:
                families = list(self._read(session))
        except SQLAlchemyError as exc:
            log.warning("metrics: the database cannot be read: %s", type(exc).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families

    def _read(self, session: Session) -> Iterator[Any]:
        moves = CounterMetricFamily("pbem_moves", "Moves made, by game and source.", labels=["game", "source"])
        for key, source, count in health.moves_by_source(session=session):
            moves.add_metric([key, source], count)
        yield moves
        emails = GaugeMetricFamily("pbem_emails", "Emails in the outbox, by status.", labels=["status"])
        by_status = health.emails_by_status(session=session)
        for status in ("queued", "sending", "sent", "dead", "dropped"):
            emails.add_metric([status], by_status.get(status, 0))
        yield emails
        failing = health.emails_failing(session=session)
        yield GaugeMetricFamily("pbem_emails_failing", "Queued emails whose last attempt failed.", value=failing)
        oldest = health.oldest_queued(session=session)
        age = 0.0 if oldest is None else max(0.0, (self.now - oldest).total_seconds())
        yield GaugeMetricFamily("pbem_outbox_oldest_queued_seconds", "Age of the oldest email not yet sent.", value=age)
        beat_age = GaugeMetricFamily(
            "pbem_scheduler_heartbeat_age_seconds", "Seconds since the job last finished a run.", labels=["job"]
        )
        took = GaugeMetricFamily("pbem_scheduler_job_seconds", "How long the job's last run took.", labels=["job"])
        runs = CounterMetricFamily("pbem_scheduler_job_runs", "Runs of the job, all schedulers.", labels=["job"])
        done = CounterMetricFamily(
            "pbem_scheduler_job_done",
            "What the job did, all schedulers: emails sent, deadlines applied, reminders and digests queued.",
            labels=["job"],
        )
        for job, found in sorted(health.beats(session=session).items()):
            beat_age.add_metric([job], max(0.0, (self.now - found.beat_at).total_seconds()))
            took.add_metric([job], found.seconds)
            runs.add_metric([job], found.runs)
            done.add_metric([job], found.done)
        yield from (beat_age, took, runs, done)


def register(app: Flask) -> None:
    """Time every request for ``/metrics``."""

    @app.before_request
    def _start() -> None:
        g.pbem_started = time.perf_counter()

    @app.after_request
    def _time(response: Response) -> Response:
        started = g.get("pbem_started")
        if started is not None:
            method = request.method if request.method in METHODS else "other"
            REQUEST_SECONDS.labels(request.endpoint or "none", method).observe(time.perf_counter() - started)
        return response
