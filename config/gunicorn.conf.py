"""gunicorn settings for pbem: ``gunicorn -c config/gunicorn.conf.py 'pbem:create_app()'``.

Only what the app needs beyond gunicorn's defaults; the number of workers, binding and TLS stay on the command
line. Threaded workers: a client that sends its request slowly holds one thread, not the whole worker (gunicorn's
default sync worker serves one connection at a time, so two slow clients froze two workers); the app itself runs
for one request of a worker at a time (see ``post_worker_init``). Put a buffering reverse proxy (nginx, see the
README) in front as well: it reads whole requests before gunicorn sees them.
"""

import atexit
import gc
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import gunicorn.http.wsgi

from pbem import logs

# No link token in any log line: gunicorn's access log ("GET /play/<token>") and error log ("Error handling request
# /play/<token>") included. Installed here, in the master, so every worker it forks has it too.
logs.install()


worker_class = "gthread"
threads = 8
"""Requests a worker serves at once; each slow client holds one of them."""
timeout = 30
"""Seconds a worker may stay silent (a request stuck in the app) before it is restarted."""
keepalive = 5
"""Seconds an idle kept-alive connection stays open."""
limit_request_line = 4094
limit_request_fields = 50
limit_request_field_size = 8190
control_socket_disable = True
"""gunicorn's control socket (~/.gunicorn/gunicorn.ctl, one path for every gunicorn of the user) is not used."""

# No "Server: gunicorn" banner: responses name the app, not the server software.
gunicorn.http.wsgi.SERVER = "pbem"  # what gunicorn 23 and later send
gunicorn.http.wsgi.SERVER_SOFTWARE = "pbem"  # what gunicorn 22 sent, with its version

FREEZE_AFTER = 200
"""Requests after which a worker freezes again: templates and SQL statements are compiled on first use."""

_served = 0


def _freeze() -> None:
    gc.collect()
    gc.freeze()


def post_worker_init(worker: Any) -> None:
    """Let the worker's threads run the app one request at a time, then freeze what the loaded app holds.

    The threads still read slow requests side by side, but the app runs for one request at a time
    (``pbem.web.gate``): threads of one process that compute at once fight over the interpreter lock,
    and a move holding the database's write lock then waits behind page renders.

    Frozen objects are left out of the garbage collector's scans: a worker holds some 100,000 long-lived
    objects (SQLAlchemy, Jinja, the app), and a full collection scanning them all stops the request it
    falls in for 25-40 ms, which the slowest moves measured. What requests create is still collected.
    """
    from pbem.web.gate import Gate

    worker.wsgi = Gate(worker.wsgi)
    _freeze()


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    """Freeze once more after the first FREEZE_AFTER requests, when the lazily built caches are full."""
    global _served
    _served += 1
    if _served == FREEZE_AFTER:
        _freeze()


def on_starting(server: Any) -> None:
    """Give the workers one metrics folder, empty at start.

    prometheus_client gathers every worker's request timings in files of this folder (its multiprocess mode), which
    must be named before a worker loads the app. Under systemd it is the unit's runtime folder
    (``PROMETHEUS_MULTIPROC_DIR=/run/pbem/metrics``); else a private temporary folder, removed when gunicorn exits.
    Files of a previous run's workers would count twice: they are removed.
    """
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        made = tempfile.mkdtemp(prefix="pbem-metrics-")
        atexit.register(shutil.rmtree, made, ignore_errors=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = made
    folder = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink()


def child_exit(server: Any, worker: Any) -> None:
    """A worker that stopped: its live gauges no longer count (prometheus_client's multiprocess mode)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
