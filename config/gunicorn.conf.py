"""gunicorn settings for pbem: ``gunicorn -c config/gunicorn.conf.py 'pbem:create_app()'``.

Only what the app needs beyond gunicorn's defaults; workers, binding and TLS stay on the command line.
"""

import gc
from typing import Any

FREEZE_AFTER = 200
"""Requests after which a worker freezes again: templates and SQL statements are compiled on first use."""

_served = 0


def _freeze() -> None:
    gc.collect()
    gc.freeze()


def post_worker_init(worker: Any) -> None:
    """Freeze what the loaded app holds, so that the garbage collector stops scanning it.

    A worker holds some 100,000 long-lived objects (SQLAlchemy, Jinja, the app). A full collection
    scans them all and stops the request it falls in for 25-40 ms, which the slowest moves measured.
    Frozen, they are left out of every collection; what requests create is still collected.
    """
    _freeze()


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    """Freeze once more after the first FREEZE_AFTER requests, when the lazily built caches are full."""
    global _served
    _served += 1
    if _served == FREEZE_AFTER:
        _freeze()
