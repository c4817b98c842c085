"""The README's production command: gunicorn with ``config/gunicorn.conf.py`` serves the pages, and the
settings file's hooks freeze what a worker holds (after start, and again once its caches are built)."""

from __future__ import annotations

import gc
import runpy
from collections.abc import Callable, Iterable
from types import SimpleNamespace
from typing import Any

import pytest
import requests
from flask import Flask

from pbem.web.gate import Gate
from tests.apps import GUNICORN_SETTINGS as SETTINGS
from tests.apps import Table


def _plain_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", [])
    return [b""]


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_gunicorn_with_the_settings_file_serves_a_players_page(
    production_server: str, app: Flask, table: Table
) -> None:
    with app.test_request_context():
        token = table.personal(0)
    page = requests.get(f"{production_server}/play/{token}", timeout=30)
    assert page.status_code == 200 and "you are <strong><bdi>ann</bdi></strong>" in page.text
    assert page.headers["Cache-Control"] == "no-store"


def test_the_settings_freeze_a_worker_after_start_and_once_more_after_its_first_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings: dict[str, Any] = runpy.run_path(str(SETTINGS))
    before = gc.get_freeze_count()
    worker = SimpleNamespace(wsgi=_plain_app)
    try:
        settings["post_worker_init"](worker)
        assert gc.get_freeze_count() > before, "the loaded app is out of the collector's sight"
    finally:
        gc.unfreeze()
    assert isinstance(worker.wsgi, Gate) and worker.wsgi.app is _plain_app, "the app runs one request at a time"
    calls: list[int] = []
    post_request = settings["post_request"]
    monkeypatch.setitem(post_request.__globals__, "_freeze", lambda: calls.append(1))
    for _ in range(settings["FREEZE_AFTER"] - 1):
        post_request(None, None, None, None)
    assert calls == []
    for _ in range(3 * settings["FREEZE_AFTER"]):
        post_request(None, None, None, None)
    assert calls == [1], "once, when the lazily built caches are full"
