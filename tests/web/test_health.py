"""Watching the server: /healthz answers, /readyz says whether the database, its schema and the scheduler are
fine (JSON, 200 or 503), /metrics gives Prometheus what the database and the workers know, to allowed addresses or
the bearer token only. None of them shows a token or an address."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import create_app, db, timing
from pbem.mail import outbox
from pbem.scheduler import jobs
from pbem.web import health
from tests.apps import Table

TOKEN = "m" * 32


def run_every_job(app: Flask) -> None:
    for _job_id, function, _setting in jobs.JOBS:
        function(app)


def test_healthz_answers_without_the_database(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path}/gone/x.sqlite3"})
    response = app.test_client().get("/healthz")
    assert response.status_code == 200 and response.get_data(as_text=True) == "ok\n"


def test_readyz_waits_for_the_scheduler_then_says_ready(app: Flask, client: FlaskClient, table: Table) -> None:
    response = client.get("/readyz")
    assert response.status_code == 503
    report = response.get_json()
    assert report["checks"]["database"] == {"ok": True}
    assert report["checks"]["migrations"]["ok"] and report["checks"]["migrations"]["current"]
    assert report["checks"]["scheduler"]["jobs"]["send-mail"] == {"ok": False, "age_seconds": None, "limit_seconds": 15}
    assert report["checks"]["inbound_mail"]["status"] == "not configured"
    assert report["checks"]["outbox"]["oldest_queued_seconds"] is not None, "the invitations wait"

    run_every_job(app)  # the scheduler's passes: invitations sent (to the mailbox), heartbeats recorded
    response = client.get("/readyz")
    assert response.status_code == 200, response.get_json()
    report = response.get_json()
    assert report["ok"] and report["checks"]["outbox"]["oldest_queued_seconds"] is None
    assert 0 <= report["checks"]["scheduler"]["jobs"]["reminders"]["age_seconds"] < 60

    with app.app_context():
        later = health.readiness(app, timing.now() + timedelta(seconds=16))  # three send periods without a beat
    assert not later["ok"] and not later["checks"]["scheduler"]["jobs"]["send-mail"]["ok"]
    assert later["checks"]["scheduler"]["jobs"]["deadlines"]["ok"], "the sweeps run once a minute"
    for text in (client.get("/readyz").get_data(as_text=True),):
        assert "@example.com" not in text and "ann" not in text


def test_readyz_says_when_the_schema_is_behind(database_url: str) -> None:
    app = create_app({"TESTING": True, "DATABASE_URL": database_url})
    report = app.test_client().get("/readyz")
    app.extensions["pbem_engine"].dispose()
    assert report.status_code == 503
    migrations = report.get_json()["checks"]["migrations"]
    assert migrations["ok"] is False and migrations["current"] == [] and migrations["expected"]


def test_readyz_says_when_the_database_is_gone(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path}/gone/x.sqlite3"})
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.get_json() == {"ok": False, "checks": {"database": {"ok": False, "error": "OperationalError"}}}


def metric(text: str, name: str, **labels: str) -> float:
    """One sample's value from Prometheus's text format."""
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = re.escape(name) + (r"\{" + re.escape(wanted) + r"\}" if wanted else "") + r" (\S+)"
    found = re.search(r"^" + pattern + "$", text, re.MULTILINE)
    assert found, f"{name} {labels} not in:\n{text}"
    return float(found.group(1))


def test_metrics_count_moves_emails_requests_and_jobs(app: Flask, client: FlaskClient, table: Table) -> None:
    client.get(f"/play/{table.personal(0)}")
    with app.app_context(), db.write_session() as session:
        outbox.queue(session=session, kind="test", to="x@example.com", subject="s", text="t", html="<p>t</p>")
    run_every_job(app)
    with app.app_context(), db.write_session() as session:
        outbox.queue(session=session, kind="test", to="y@example.com", subject="s", text="t", html="<p>t</p>")
    response = client.get("/metrics")
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    assert metric(text, "pbem_database_up") == 1
    sent = metric(text, "pbem_emails", status="sent")
    assert sent >= 4, "the game's emails and one more"
    assert metric(text, "pbem_emails", status="queued") == 1
    assert metric(text, "pbem_outbox_oldest_queued_seconds") >= 0
    assert metric(text, "pbem_scheduler_job_runs_total", job="send-mail") == 1
    assert metric(text, "pbem_scheduler_job_done_total", job="send-mail") == sent
    assert metric(text, "pbem_request_seconds_count", endpoint="play.page", method="GET") >= 1
    assert "@example.com" not in text and table.personal(0) not in text


def test_metrics_count_moves_by_game_and_source(app: Flask, client: FlaskClient, table: Table) -> None:
    from tests.apps import form_fields

    token = table.move_token(0, {"do": "draw", "pile": "draw1"})
    csrf, _decision = form_fields(client.get(f"/play/{token}").get_data(as_text=True))
    assert client.post(f"/play/{token}", data={"csrf_token": csrf}).status_code == 303
    text = client.get("/metrics").get_data(as_text=True)
    assert metric(text, "pbem_moves_total", game="call-to-glory", source="link") == 1


@pytest.mark.parametrize(
    ("environ", "headers", "status"),
    [
        ({"REMOTE_ADDR": "127.0.0.1"}, {}, 200),
        ({"REMOTE_ADDR": "203.0.113.7"}, {}, 404),
        ({"REMOTE_ADDR": "203.0.113.7"}, {"Authorization": f"Bearer {TOKEN}"}, 200),
        ({"REMOTE_ADDR": "203.0.113.7"}, {"Authorization": "Bearer wrong-wrong-wrong-wrong"}, 404),
        ({"REMOTE_ADDR": "127.0.0.1"}, {"X-Forwarded-For": "203.0.113.7"}, 404),  # a proxy's peer is not the client
        ({"REMOTE_ADDR": "10.1.2.3"}, {}, 200),
    ],
)
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_metrics_only_for_allowed_addresses_or_the_token(
    app: Flask, environ: dict[str, str], headers: dict[str, str], status: int
) -> None:
    app.config["METRICS_TOKEN"] = TOKEN
    app.config["METRICS_ALLOWED"] = ["127.0.0.1/32", "10.0.0.0/8"]
    response = app.test_client().get("/metrics", environ_base=environ, headers=headers)
    assert response.status_code == status
    if status == 404:
        assert "pbem_" not in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"METRICS_ALLOWED": ["not an address"]}, "METRICS_ALLOWED"),
        ({"METRICS_ALLOWED": "127.0.0.1"}, "METRICS_ALLOWED"),
        ({"METRICS_TOKEN": "short"}, "METRICS_TOKEN"),
    ],
)
def test_metrics_settings_are_checked(settings: dict[str, Any], words: str) -> None:
    from pbem.config import ConfigError

    with pytest.raises(ConfigError, match=words):
        create_app({"TESTING": True, **settings})
