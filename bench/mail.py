"""Mail benchmark: how fast ``pbem scheduler`` delivers into a local SMTP server (aiosmtpd, in this process).

For each database (SQLite in a temporary folder, then PostgreSQL in a temporary schema of
PBEM_BENCH_POSTGRES_URL, when set):

1. **Throughput**: ``--emails`` plain emails queued at once; ``pbem scheduler`` is started as its own process
   and the time from its first to its last delivered email gives emails a second (goal: at least 100).
2. **The outage**: ``--reminders`` active games (16 made by the service, copied in bulk as ``bench/sweep.py``
   does), each with a reminder that fell due during a three-day outage; a fresh ``pbem scheduler`` queues the
   reminders (its reminder sweep) and sends them (rendered from each game, as in production). The time from
   its start until the last one arrived (goal: at most 3 minutes), and that each arrived exactly once.

The SMTP server counts Message-IDs: "lost" is a queued email that never arrived, "doubled" one that arrived twice.
The temporary folder is removed and the schema dropped at the end. Run with
``.venv/bin/python bench/mail.py`` (``--emails 3000 --reminders 10000`` by default).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from common import postgres_schema
from flask import Flask
from sqlalchemy import Engine, func, select, update
from sweep import create_templates, grow, settle

from pbem import create_app, db, timing
from pbem.mail import outbox
from pbem.models import OutboxEmail, Wait

PBEM = Path(sys.executable).with_name("pbem")
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(<[^>]+>)", re.MULTILINE | re.IGNORECASE)


class Counting:
    """An aiosmtpd handler that counts the Message-IDs it accepts, and when the first and last arrived."""

    def __init__(self) -> None:
        self.ids: Counter[bytes] = Counter()
        self.first = 0.0
        self.last = 0.0
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        found = MESSAGE_ID.search(envelope.original_content or envelope.content)
        now = time.monotonic()
        with self.lock:
            self.ids[found.group(1) if found else b"?"] += 1
            self.first = self.first or now
            self.last = now
        return "250 OK"

    def received(self) -> int:
        with self.lock:
            return sum(self.ids.values())


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def scheduler(url: str, port: int, key: str) -> subprocess.Popen[bytes]:
    """``pbem scheduler`` as production runs it, sending to the local SMTP server."""
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_SECRET_KEY": key,
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_MAIL_SERVER": "127.0.0.1",
        "PBEM_MAIL_PORT": str(port),
        "PBEM_QUIET_HOURS": "00:00-00:00",
    }
    return subprocess.Popen([str(PBEM), "scheduler"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_for(handler: Counting, count: int, limit: float) -> bool:
    deadline = time.monotonic() + limit
    while handler.received() < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return handler.received() >= count


def figures(app: Flask, handler: Counting) -> tuple[int, int, int]:
    """(queued, lost, doubled) over the whole outbox."""
    with app.app_context():
        ids = [row.encode() for row in db.get_session().exec(select(OutboxEmail.message_id)).scalars()]
    lost = sum(1 for i in ids if handler.ids[i] == 0)
    doubled = sum(1 for i in ids if handler.ids[i] > 1)
    return len(ids), lost, doubled


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def throughput(label: str, url: str, count: int) -> None:
    key = "bench-" + secrets.token_urlsafe(32)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": key})
    with app.app_context():
        db.upgrade(db.get_engine())
        with db.write_session() as session:
            for n in range(count):
                outbox.queue(
                    session=session, kind="bench", to=f"reader{n}@example.com", subject=f"Bench {n}",
                    text="Your turn.\n" * 20, html="<p>Your turn.</p>" * 20,
                )  # fmt: skip
    handler, port = Counting(), free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    started = time.monotonic()
    proc = scheduler(url, port, key)
    try:
        done = wait_for(handler, count, 600)
    finally:
        stop(proc)
        controller.stop()
    total = time.monotonic() - started
    _queued, lost, doubled = figures(app, handler)
    rate = (count - 1) / (handler.last - handler.first) if handler.last > handler.first else 0.0
    print(
        f"[{label}] throughput: {count} emails in {total:.1f} s from the scheduler's start; "
        f"{rate:.0f} emails/s from the first to the last (goal >= 100); "
        f"lost {lost}, doubled {doubled}{'' if done else ' (TIMED OUT)'}",
        flush=True,
    )
    app.extensions["pbem_engine"].dispose()


def outage(label: str, url: str, reminders: int) -> None:
    key = "bench-" + secrets.token_urlsafe(32)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": key})
    eng: Engine = app.extensions["pbem_engine"]
    with app.app_context():
        db.upgrade(db.get_engine())
    create_templates(app, 16)
    grow(eng, reminders)
    now = timing.now()
    wait = Wait.__table__  # type: ignore[attr-defined]
    with eng.begin() as conn:
        conn.execute(update(OutboxEmail).values(status="sent", sent_at=now))  # the invitations went out long ago
        conn.execute(update(wait).values(next_reminder_at=now - timedelta(days=3), deadline_at=now + timedelta(days=3)))
        due = int(conn.execute(select(func.count()).select_from(wait)).scalar_one())
    if eng.dialect.name == "sqlite":
        settle(eng)
    with app.app_context():
        before = {r.encode() for r in db.get_session().exec(select(OutboxEmail.message_id)).scalars()}
    handler, port = Counting(), free_port()
    for i in before:
        handler.ids[i] = 1  # sent before the outage
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    started = time.monotonic()
    proc = scheduler(url, port, key)
    try:
        done = wait_for(handler, len(before) + due, 900)
        elapsed = time.monotonic() - started
        time.sleep(3)  # anything sent twice would arrive now
    finally:
        stop(proc)
        controller.stop()
    queued, lost, doubled = figures(app, handler)
    print(
        f"[{label}] outage: {due} reminders due after 3 days, {queued - len(before)} queued and delivered in "
        f"{elapsed:.1f} s from the scheduler's start (goal <= 180 s); lost {lost}, doubled {doubled}"
        f"{'' if done else ' (TIMED OUT)'}",
        flush=True,
    )
    eng.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--emails", type=int, default=3000)
    parser.add_argument("--reminders", type=int, default=10_000)
    parser.add_argument("--only", choices=["sqlite", "postgres"])
    parser.add_argument("--outage-only", action="store_true", help="skip the throughput run")
    args = parser.parse_args()
    pg = os.environ.get("PBEM_BENCH_POSTGRES_URL", "")
    if args.only != "postgres":
        folder = Path(tempfile.mkdtemp(prefix="pbem-bench-mail-"))
        try:
            if not args.outage_only:
                throughput("sqlite", f"sqlite:///{folder / 'a.sqlite3'}", args.emails)
            outage("sqlite", f"sqlite:///{folder / 'b.sqlite3'}", args.reminders)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if args.only != "sqlite" and pg:
        if not args.outage_only:
            with postgres_schema(pg) as url:
                throughput("postgres", url, args.emails)
        with postgres_schema(pg) as url:
            outage("postgres", url, args.reminders)


if __name__ == "__main__":
    main()
