"""The README's production command: gunicorn with ``config/gunicorn.conf.py`` serves the pages, and the
settings file's hooks freeze what a worker holds (after start, and again once its caches are built)."""

from __future__ import annotations

import gc
import json
import runpy
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask

from tests.apps import Table, free_port

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"
SETTINGS = ROOT / "config" / "gunicorn.conf.py"


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_gunicorn_with_the_settings_file_serves_a_players_page(app: Flask, table: Table) -> None:
    with app.test_request_context():
        token = table.personal(0)
    port = free_port()
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
    command = [str(GUNICORN), "-c", str(SETTINGS), "-w", "1", "-b", f"127.0.0.1:{port}", "pbem:create_app()"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = None
        deadline = time.monotonic() + 30
        while page is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                page = requests.get(f"http://127.0.0.1:{port}/play/{token}", timeout=2)
            except requests.ConnectionError:
                time.sleep(0.2)
        assert page is not None, "gunicorn did not answer"
        assert page.status_code == 200 and "you are <strong><bdi>ann</bdi></strong>" in page.text
        assert page.headers["Cache-Control"] == "no-store"
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert "Traceback" not in output, output


def test_the_settings_freeze_a_worker_after_start_and_once_more_after_its_first_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings: dict[str, Any] = runpy.run_path(str(SETTINGS))
    before = gc.get_freeze_count()
    try:
        settings["post_worker_init"](None)
        assert gc.get_freeze_count() > before, "the loaded app is out of the collector's sight"
    finally:
        gc.unfreeze()
    calls: list[int] = []
    post_request = settings["post_request"]
    monkeypatch.setitem(post_request.__globals__, "_freeze", lambda: calls.append(1))
    for _ in range(settings["FREEZE_AFTER"] - 1):
        post_request(None, None, None, None)
    assert calls == []
    for _ in range(3 * settings["FREEZE_AFTER"]):
        post_request(None, None, None, None)
    assert calls == [1], "once, when the lazily built caches are full"
