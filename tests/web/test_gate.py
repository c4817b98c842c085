"""pbem.web.gate: a worker's threads run the app one request at a time, in arrival order, each after its own
body was read; what the app gets is the request as sent (a short body is still refused)."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, request
from werkzeug.test import EnvironBuilder

from pbem.web.gate import Gate


def _environ(body: bytes = b"", **extra: Any) -> dict[str, Any]:
    environ = EnvironBuilder(method="POST", data=body, content_type="application/x-www-form-urlencoded").get_environ()
    environ.update(extra)
    return environ


def _call(app: Callable[..., Iterable[bytes]], environ: dict[str, Any]) -> tuple[str, bytes]:
    status: list[str] = []
    body = b"".join(app(environ, lambda s, _h, _e=None: status.append(s)))
    return status[0], body


class _Counting:
    """A WSGI app that takes a while and notes how many requests it runs at once, and in which order."""

    def __init__(self, seconds: float = 0.02) -> None:
        self.seconds, self.now, self.most = seconds, 0, 0
        self.order: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.order.append(environ.get("HTTP_X_NAME", ""))
        time.sleep(self.seconds)
        with self.lock:
            self.now -= 1
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]


def test_one_request_at_a_time() -> None:
    app = _Counting()
    gate = Gate(app)
    threads = [threading.Thread(target=_call, args=(gate, _environ())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert app.most == 1 and len(app.order) == 8


def test_first_come_first_served() -> None:
    app = _Counting(seconds=0.05)
    gate = Gate(app)
    names = [f"r{i}" for i in range(6)]
    threads = []
    for name in names:
        thread = threading.Thread(target=_call, args=(gate, _environ(HTTP_X_NAME=name)))
        thread.start()
        threads.append(thread)
        time.sleep(0.01)  # each arrives while the first still runs
    for t in threads:
        t.join(10)
    assert app.order == names


def test_a_request_that_comes_back_at_once_does_not_jump_the_queue() -> None:
    app = _Counting(seconds=0.005)
    gate = Gate(app)

    ready = [_environ(HTTP_X_NAME="greedy") for _ in range(30)]

    def greedy() -> None:  # a thread that takes its next request the moment it is done with one
        for environ in ready:
            gate(environ, lambda *_args: None)

    first = threading.Thread(target=greedy)
    first.start()
    time.sleep(0.02)
    others = [threading.Thread(target=_call, args=(gate, _environ(HTTP_X_NAME="other"))) for _ in range(3)]
    for t in others:
        t.start()
    for t in [first, *others]:
        t.join(10)
    served = [i for i, name in enumerate(app.order) if name == "other"]
    assert len(served) == 3 and max(served) < 12, app.order


class _SlowInput(io.RawIOBase):
    """A request body that arrives only when ``go`` is set."""

    def __init__(self, data: bytes, go: threading.Event) -> None:
        self.data, self.go = data, go

    def read(self, size: int = -1) -> bytes:
        assert self.go.wait(10)
        out, self.data = (self.data, b"") if size < 0 else (self.data[:size], self.data[size:])
        return out


def test_a_slow_upload_does_not_hold_up_other_requests() -> None:
    app = _Counting(seconds=0)
    gate = Gate(app)
    go = threading.Event()
    slow = _environ(b"a=1", HTTP_X_NAME="slow")
    slow["wsgi.input"] = _SlowInput(b"a=1", go)
    uploading = threading.Thread(target=_call, args=(gate, slow))
    uploading.start()
    time.sleep(0.05)
    status, _ = _call(gate, _environ(HTTP_X_NAME="quick"))  # answered while the other still uploads
    assert status == "200 OK" and app.order == ["quick"]
    go.set()
    uploading.join(10)
    assert app.order == ["quick", "slow"]


def _form_app() -> Flask:
    flask_app = Flask(__name__)

    @flask_app.post("/")
    def echo() -> str:
        return ",".join(f"{k}={v}" for k, v in sorted(request.form.items()))

    return flask_app


def test_the_app_gets_the_body_as_sent() -> None:
    gate = Gate(_form_app().wsgi_app)
    environ = _environ(b"card=emperor&count=2")
    assert _call(gate, environ) == ("200 OK", b"card=emperor,count=2")
    assert isinstance(environ["wsgi.input"], io.BytesIO)  # read before the gate


def test_a_body_shorter_than_declared_is_refused_not_cut() -> None:
    gate = Gate(_form_app().wsgi_app)
    environ = _environ(b"card=emperor&count=2")
    environ["wsgi.input"] = io.BytesIO(b"card=emp")  # the client hung up early
    status, _body = _call(gate, environ)
    assert status.startswith("400")


def test_a_body_too_large_to_read_first_is_left_to_the_app() -> None:
    flask_app = _form_app()
    flask_app.config["MAX_CONTENT_LENGTH"] = 10
    gate = Gate(flask_app.wsgi_app, max_body=10)
    environ = _environ(b"card=emperor&count=2")
    original = environ["wsgi.input"]
    status, _body = _call(gate, environ)
    assert status.startswith("413") and environ["wsgi.input"] is original


def test_a_chunked_body_is_read_up_to_the_limit() -> None:
    gate = Gate(_form_app().wsgi_app, max_body=100)
    environ = _environ(b"card=emperor", **{"wsgi.input_terminated": True})
    del environ["CONTENT_LENGTH"]
    assert _call(gate, environ) == ("200 OK", b"card=emperor")
