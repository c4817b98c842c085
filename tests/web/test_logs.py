"""No link token in any log line: the app's own, werkzeug's, and gunicorn's access and error logs (with the
settings file), tracebacks included."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests
from flask import Flask

from pbem import logs
from tests.apps import GUNICORN, GUNICORN_SETTINGS, ROOT, Table, free_port

DOMAIN = "games.example.org"


SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@SQLITE
def test_mask_hides_link_tokens_wherever_they_are(app: Flask, table: Table) -> None:
    personal, move = table.personal(0), table.move_token(0, {"do": "draw", "pile": "draw1"})
    lines = [
        f"GET /play/{personal} HTTP/1.1",
        f"GET /play/{move}/check?x=1",
        f"POST /settings/{personal}",
        f"a token alone: {move}, in a sentence",
        f"https://{DOMAIN}/play/{personal}#top",
        f"reply to play+{personal[:40]}@{DOMAIN}",
    ]
    for line in lines:
        masked = logs.mask(line)
        assert personal not in masked and move not in masked and personal[:40] not in masked, masked
        assert "…" in masked
    assert logs.mask("GET /play/… and /how-to-play/call-to-glory") == "GET /play/… and /how-to-play/call-to-glory"
    for plain in ("psycopg.errors.AdminShutdown: terminating", "sqlalchemy.exc.OperationalError", "ann@example.com"):
        assert logs.mask(plain) == plain


@SQLITE
def test_app_log_records_and_tracebacks_are_masked(app: Flask, table: Table, caplog: pytest.LogCaptureFixture) -> None:
    personal = table.personal(0)
    log = logging.getLogger("pbem.test")
    with caplog.at_level(logging.INFO):
        log.info("opened %s", f"/play/{personal}")
        try:
            raise ValueError(f"bad link {personal}")
        except ValueError:
            log.exception("failed on /settings/%s", personal)
    assert personal not in caplog.text
    assert "opened /play/…" in caplog.text and "failed on /settings/…" in caplog.text
    assert "ValueError: bad link …" in caplog.text


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_gunicorns_access_and_error_logs_hold_no_token(app: Flask, table: Table, tmp_path: Path) -> None:
    port = free_port()
    access, errors = tmp_path / "access.log", tmp_path / "error.log"
    env = {
        "PATH": "/usr/bin:/bin",
        "PBEM_ENV": "production",
        "PBEM_SECRET_KEY": app.config["SECRET_KEY"],
        "PBEM_DATABASE_URL": app.config["DATABASE_URL"],
        "PBEM_SERVER_NAME": f"127.0.0.1:{port}",
        "PBEM_TRUSTED_HOSTS": json.dumps(["127.0.0.1"]),
        "PBEM_PREFERRED_URL_SCHEME": "https",
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
    }
    command = [
        *(str(GUNICORN), "-c", str(GUNICORN_SETTINGS), "-w", "1", "-b", f"127.0.0.1:{port}"),
        *("--access-logfile", str(access), "--error-logfile", str(errors), "--log-level", "debug"),
        "tests.web.boom_app:create()",
    ]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    personal, move = table.personal(0), table.move_token(0, {"do": "draw", "pile": "draw1"})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.get(f"{base}/healthz", timeout=5)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline and proc.poll() is None, "gunicorn did not answer"
                time.sleep(0.2)
        assert requests.get(f"{base}/play/{personal}", timeout=30).status_code == 200
        assert requests.get(f"{base}/play/{move}?again={move}", timeout=30).status_code == 200
        assert requests.post(f"{base}/play/{move}", timeout=30, headers={"Referer": f"{base}/play/{move}"}).ok is False
        assert requests.get(f"{base}/play/{personal}/boom", timeout=30).status_code == 500
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    access_log, error_log = access.read_text(), errors.read_text()
    assert access_log.count("/play/…") == 5, "four requests and a Referer"
    assert "GET /play/…?again=… HTTP/1.1" in access_log
    assert "Error handling request GET /play/…/boom" in error_log and "RuntimeError: boom at /play/…/boom" in error_log
    for text in (access_log, error_log):
        assert personal not in text and move not in text
