"""Production as the README runs it (gunicorn with ``config/gunicorn.conf.py``): clients that send their request
slowly do not hold up anyone else, and responses carry HSTS but no ``Server: gunicorn`` banner."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import requests
from flask import Flask

from tests.apps import Table

SLOW_LINES = 8
LINE_EVERY = 1.0
"""Each slow client sends a header line every LINE_EVERY seconds, SLOW_LINES of them, then ends its request."""


def _slow_client(port: int, started: threading.Event, finished: threading.Event) -> None:
    """A request whose header lines arrive one every LINE_EVERY seconds (as in a slowloris attack)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(b"GET /static/style.css HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started.set()
        for n in range(SLOW_LINES):
            time.sleep(LINE_EVERY)
            sock.sendall(f"X-Slow-{n}: {'a' * 10}\r\n".encode())
        sock.sendall(b"Connection: close\r\n\r\n")
        finished.set()
        sock.recv(1024)


def _slow_upload(port: int, path: str, started: threading.Event, finished: threading.Event) -> None:
    """A POST whose body arrives one byte every LINE_EVERY seconds, SLOW_LINES bytes in all."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        sock.sendall(f"{head}Content-Length: {SLOW_LINES}\r\nConnection: close\r\n\r\n".encode())
        started.set()
        for _ in range(SLOW_LINES):
            time.sleep(LINE_EVERY)
            sock.sendall(b"a")
        finished.set()
        sock.recv(1024)


def _page_answered_during(server: str, token: str, clients: int, slow: Callable[..., None], *args: Any) -> bool:
    """Start ``clients`` slow clients (``slow(port, *args, started, finished)``), then get the seat's page: True
    when it came before any slow client had finished sending."""
    port = int(server.rsplit(":", 1)[1])
    events = [(threading.Event(), threading.Event()) for _ in range(clients)]
    threads = [threading.Thread(target=slow, args=(port, *args, *pair), daemon=True) for pair in events]
    for thread in threads:
        thread.start()
    for started, _ in events:
        assert started.wait(10)
    time.sleep(2 * LINE_EVERY)  # all are being read by now: with sync workers, each would hold a worker
    page = requests.get(f"{server}/play/{token}", timeout=60)
    answered_first = not any(finished.is_set() for _, finished in events)
    assert page.status_code == 200 and "you are <strong><bdi>ann</bdi></strong>" in page.text
    for thread in threads:
        thread.join(30)
    return answered_first


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_slow_clients_do_not_delay_other_requests(production_server: str, table: Table, app: Flask) -> None:
    with app.test_request_context():
        token = table.personal(0)
    assert _page_answered_during(production_server, token, 2, _slow_client), "the page waited for the slow clients"


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_slow_uploads_do_not_delay_other_requests(production_server: str, table: Table, app: Flask) -> None:
    """The app runs one request of a worker at a time (pbem.web.gate), but only once the request's body is in:
    four slow uploads (both workers get some, most likely) hold threads, not the app."""
    with app.test_request_context():
        token = table.personal(0)
    answered = _page_answered_during(production_server, token, 4, _slow_upload, f"/play/{token}/say")
    assert answered, "the page waited for the slow uploads to finish"


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_production_responses_carry_hsts_and_no_server_banner(production_server: str, table: Table, app: Flask) -> None:
    with app.test_request_context():
        token = table.personal(0)
    for path in (f"/play/{token}", "/nowhere", "/static/style.css", "/admin/login"):
        response = requests.get(f"{production_server}{path}", timeout=10, allow_redirects=False)
        assert response.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains", path
        assert "gunicorn" not in response.headers.get("Server", "").lower(), response.headers.get("Server")
