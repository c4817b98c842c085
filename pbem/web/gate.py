"""One request at a time per worker process, for threaded servers (``config/gunicorn.conf.py`` wraps the app).

gunicorn's threaded workers keep a slow client from freezing a worker: reading a request holds one thread, not
the process. But when several threads of one process run the app at once they fight over Python's interpreter
lock, and the one holding the database's write lock waits for it too, so every move queues behind page renders.
``Gate`` lets a request's own upload finish first (its body is read into memory, up to ``max_body`` bytes) and
then runs the app for one request of the process at a time, in the order they arrived (a plain lock is not fair:
some requests would wait for many others); a slow client still holds only its thread.
"""

from __future__ import annotations

import io
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

MAX_BODY = 4 * 1024 * 1024
"""The largest body read before the gate; a larger one goes on unread, for the app to refuse (413)."""


class Gate:
    """A WSGI middleware: read the request's body, then run ``app`` for one request at a time."""

    def __init__(self, app: WsgiApp, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.max_body = max_body
        self._mutex = threading.Lock()
        self._busy = False
        self._waiting: deque[threading.Lock] = deque()  # one held lock per waiting request, oldest first

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        self._read_body(environ)
        self._enter()
        try:
            return self.app(environ, start_response)
        finally:
            self._leave()

    def _enter(self) -> None:
        with self._mutex:
            if not self._busy:
                self._busy = True
                return
            turn = threading.Lock()
            turn.acquire()
            self._waiting.append(turn)
        turn.acquire()  # released by _leave when this request's turn comes: the gate passes to it, still busy

    def _leave(self) -> None:
        with self._mutex:
            if self._waiting:
                self._waiting.popleft().release()  # wakes only the oldest waiter
            else:
                self._busy = False

    def _read_body(self, environ: dict[str, Any]) -> None:
        """Replace ``wsgi.input`` by the body read whole: the declared length, when it is no larger than
        ``max_body``, or a chunked body up to one byte more than that (the app refuses what is too large). The
        declared length stays: a client that sent less than it declared is still refused by the app."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return  # the app answers a bad length
        if 0 < length <= self.max_body:
            environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(length))
        elif not length and environ.get("wsgi.input_terminated"):
            environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(self.max_body + 1))
