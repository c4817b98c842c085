"""Log lines without link tokens: every record made in the process is masked as it is created.

A personal or move link is a password to a seat: it must not sit in a log file that an operator, a backup or a
log shipper can read. ``install()`` wraps logging's record factory, so the app's own lines, werkzeug's, gunicorn's
access log (``GET /play/<token>``) and error log (``Error handling request /play/<token>``) and the tracebacks they
carry all have the token replaced by ``…`` before any handler sees them. It runs in ``create_app`` and in
``config/gunicorn.conf.py`` (the master, before it forks its workers).
"""

from __future__ import annotations

import logging
import re
import traceback
from typing import Any

MASK = "…"
_LINK_PATH = re.compile(r"(/(?:play|settings)/)[^\s/?#\"'<>]+")
"""A link's path: the segment after /play/ or /settings/ is the token, whatever it looks like."""
_SIGNED = re.compile(r"\.?[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{4,8}\.[A-Za-z0-9_-]{27,}")
"""A signed token anywhere (itsdangerous: payload, time stamp, signature of at least 27 characters)."""
_PLUS_ADDRESS = re.compile(r"(\+)[A-Za-z0-9_.=-]{12,}(@)")
"""A reply address's token (``play+TOKEN@example.org``)."""


def mask(text: str) -> str:
    """``text`` with every link token replaced by ``…``."""
    if "/" not in text and "." not in text and "+" not in text:
        return text
    text = _LINK_PATH.sub(rf"\g<1>{MASK}", text)
    text = _SIGNED.sub(MASK, text)
    return _PLUS_ADDRESS.sub(rf"\g<1>{MASK}\g<2>", text)


def _masked(record: logging.LogRecord) -> logging.LogRecord:
    try:
        message = record.getMessage()
    except Exception:  # a malformed call: leave it to the handler to report, as logging does
        return record
    masked = mask(message)
    if masked != message or record.args:
        record.msg, record.args = masked, None
    if record.exc_info and not record.exc_text:
        record.exc_text = mask("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
    if record.stack_info:
        record.stack_info = mask(record.stack_info)
    return record


def install() -> None:
    """Mask tokens in every log record of this process from now on (once, however often it is called)."""
    factory = logging.getLogRecordFactory()
    if getattr(factory, "pbem_masks", False):
        return

    def _factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        return _masked(factory(*args, **kwargs))

    _factory.pbem_masks = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(_factory)
