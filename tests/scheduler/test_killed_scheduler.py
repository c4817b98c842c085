"""A scheduler killed with SIGKILL in the middle of a backlog: the emails it had claimed are held only until its
claim is stale (it no longer renews it), then another scheduler sends them; nothing is lost, and at most the one
email that was on the wire when it died arrives twice (same Message-ID)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from flask import Flask
from sqlmodel import select

from pbem import db
from pbem.mail import outbox
from pbem.models import OutboxEmail
from tests.apps import ROOT, free_port
from tests.mail.conftest import SMTPServer

PBEM = Path(sys.executable).with_name("pbem")
STALE = 20


def scheduler(app: Flask, port: int, **settings: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": app.config["DATABASE_URL"],
        "PBEM_SECRET_KEY": app.config["SECRET_KEY"],
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_MAIL_SERVER": "127.0.0.1",
        "PBEM_MAIL_PORT": str(port),
        "PBEM_MAIL_TIMEOUT": "5",
        "PBEM_MAIL_STALE_CLAIM_SECONDS": str(STALE),
        "PBEM_SCHEDULER_SEND_SECONDS": "1",
        **settings,
    }
    return subprocess.Popen(
        [str(PBEM), "scheduler"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_killed_schedulers_emails_go_out_once_its_claim_is_stale(app: Flask) -> None:
    with app.app_context(), db.write_session() as session:
        for n in range(20):
            outbox.queue(session=session, kind="test", to=f"p{n}@example.com", subject="s", text="t", html="<p>t</p>")
    server = SMTPServer("127.0.0.1", free_port())
    controller = Controller(server, hostname=server.host, port=server.port)
    controller.start()
    try:
        first = scheduler(app, server.port, PBEM_MAIL_RATE_PER_SECOND="2")  # slow: killed mid-backlog
        deadline = time.monotonic() + 60
        while len(server.messages) < 3:
            assert time.monotonic() < deadline, "the first scheduler did not start sending"
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait()
        killed_at, delivered = time.monotonic(), len(server.messages)
        second = scheduler(app, server.port)
        try:
            time.sleep(STALE / 2)
            assert len(server.messages) == delivered, "the killed scheduler's claim still holds"
            while len({m["Message-ID"] for m in server.messages}) < 20:
                assert time.monotonic() - killed_at < STALE + 40, "taken over soon after the claim went stale"
                time.sleep(0.1)
            time.sleep(2)
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(30)
    finally:
        controller.stop()
    arrived = Counter(m["Message-ID"] for m in server.messages)
    with app.app_context():
        rows = db.get_session().exec(select(OutboxEmail)).all()
    assert {r.message_id for r in rows} == set(arrived), "nothing lost"
    assert {r.status for r in rows} == {"sent"}
    assert sum(arrived.values()) - len(arrived) <= 1, "at most the email on the wire when it died arrives twice"
