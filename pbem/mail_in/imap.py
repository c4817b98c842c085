"""The IMAP transport: read the unseen messages of a mailbox (imap-tools), hand each to the flow in its own
transaction, and only after it committed mark it seen (and move it, if MAIL_IN_IMAP_DONE_FOLDER is set).

A crash or a dropped connection between the commit and the mark leaves the message unseen: it is read again
next time, and its Message-ID makes the second reading a no-op. A database error stops the pass and leaves the
message unseen, to be read again when the database is back.
"""

from __future__ import annotations

import imaplib
import logging
import re
import ssl
import time
from dataclasses import dataclass
from typing import Any

from flask import current_app
from imap_tools import AND, BaseMailBox, MailBox, MailBoxStartTls, MailBoxUnencrypted, MailMessageFlags
from sqlalchemy.exc import SQLAlchemyError

from . import receive

log = logging.getLogger(__name__)


class ImapError(Exception):
    """The IMAP server could not be reached or answered badly: the pass stops, nothing was lost."""


@dataclass
class PollReport:
    """What one pass did: messages read, and of those how many moved a game, were answered, ignored (robots,
    strangers, duplicates); whether it stopped early (``error``)."""

    read: int = 0
    applied: int = 0
    answered: int = 0
    ignored: int = 0
    error: str = ""

    def __str__(self) -> str:
        text = f"read {self.read}: applied {self.applied}, answered {self.answered}, ignored {self.ignored}"
        return text + (f"; stopped: {self.error}" if self.error else "")


def configured() -> bool:
    """True when MAIL_IN_IMAP_HOST is set."""
    return bool(current_app.config.get("MAIL_IN_IMAP_HOST"))


def _mailbox() -> BaseMailBox:
    cfg = current_app.config
    host, port, tls = cfg["MAIL_IN_IMAP_HOST"], cfg["MAIL_IN_IMAP_PORT"], cfg["MAIL_IN_IMAP_TLS"]
    timeout = cfg["MAIL_TIMEOUT"]
    if tls == "ssl":
        return MailBox(host, port, timeout=timeout, ssl_context=ssl.create_default_context())
    if tls == "starttls":
        return MailBoxStartTls(host, port, timeout=timeout, ssl_context=ssl.create_default_context())
    return MailBoxUnencrypted(host, port, timeout=timeout)


def poll(*, limit: int = 1000, chunk: int = 50) -> PollReport:
    """One pass over the mailbox: at most ``limit`` unseen messages, oldest first, fetched ``chunk`` at a time;
    those handled are marked seen (and moved) together at the end of the pass (needs an app context)."""
    cfg = current_app.config
    report = PollReport()
    try:
        login = (cfg["MAIL_IN_IMAP_USER"], cfg["MAIL_IN_IMAP_PASSWORD"], cfg["MAIL_IN_IMAP_FOLDER"])
        with _mailbox().login(*login) as box:
            uids = box.uids(AND(seen=False))[:limit]
            done: list[str] = []
            try:
                for start in range(0, len(uids), chunk):
                    if not _handle(box, uids[start : start + chunk], done, report):
                        break
            finally:
                if done:  # only messages whose transaction committed
                    box.flag(done, MailMessageFlags.SEEN, True)
                    if cfg["MAIL_IN_IMAP_DONE_FOLDER"]:
                        box.move(done, cfg["MAIL_IN_IMAP_DONE_FOLDER"])
    except (OSError, imaplib.IMAP4.error) as exc:  # timeouts and resets are OSErrors
        report.error = f"IMAP: {type(exc).__name__}: {exc}"[:300]
    except Exception as exc:  # imap-tools' own errors (login refused, a folder that is not there …)
        if type(exc).__module__.startswith("imap_tools"):
            report.error = f"IMAP: {type(exc).__name__}: {exc}"[:300]
        else:
            raise
    if report.error:
        log.warning("mail in (IMAP): %s", report)
    return report


def _handle(box: BaseMailBox, uids: list[str], done: list[str], report: PollReport) -> bool:
    """Handle the messages ``uids`` (each in its own transaction), adding those handled to ``done``; False when the
    database stopped the pass."""
    found = _fetch(box, uids)
    for uid in uids:
        raw = found.get(uid)
        if raw is None:
            continue  # deleted meanwhile
        try:
            handled = receive(raw)
        except SQLAlchemyError as exc:
            report.error = f"the database is unavailable ({type(exc).__name__})"
            return False
        done.append(uid)
        report.read += 1
        if handled.outcome == "applied":
            report.applied += 1
        elif handled.outcome == "answered":
            report.answered += 1
        else:
            report.ignored += 1
    return True


_UID = re.compile(rb"UID (\d+)")


def _fetch(box: BaseMailBox, uids: list[str]) -> dict[str, bytes]:
    """The messages' bytes as stored, by UID, in one command (BODY.PEEK: fetching does not mark them seen)."""
    typ, data = box.client.uid("FETCH", ",".join(uids), "(UID BODY.PEEK[])")
    if typ != "OK":
        raise imaplib.IMAP4.error(f"FETCH: {typ}")
    found = {}
    for item in data:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], bytes):
            match = _UID.search(item[0])
            if match:
                found[match.group(1).decode()] = item[1]
    return found


def loop(*, interval: float, stop: Any = None) -> None:
    """Poll every ``interval`` seconds until interrupted (or ``stop()`` is true)."""
    while stop is None or not stop():
        report = poll()
        if report.read or report.error:
            log.info("mail in (IMAP): %s", report)
        time.sleep(interval)
