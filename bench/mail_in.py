"""Replies by email: ``python bench/mail_in.py [--replies N] [--games G]`` (``make bench-mail-in``).

Three people play Call to Glory games by reply only: for each game, the seat to act replies with one of the
commands its email lists (the first, as a Gmail client writes it, quoting the email's commands), the replies are
delivered into a real Dovecot (started here, under a temporary folder) and ``pbem mail-in --imap``'s pass
(``pbem.mail_in.imap.poll``) reads and handles them, each in its own transaction with its answer email queued.
Only the passes are timed: wall time (replies handled per second) and the process's CPU time per reply. Beside
it, the CPU per move of the same moves by link (``bench/page_cpu.py``: the player's page GET and the move POST).
SQLite always; PostgreSQL too when PBEM_BENCH_POSTGRES_URL is set (a database this script may fill).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

import page_cpu  # bench/page_cpu.py: the CPU per move by link
import web  # bench/web.py: its game set-up
from flask import Flask
from imap_tools import MailBoxUnencrypted
from sqlalchemy import create_engine, text

from pbem import create_app, db
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.mail import compose
from pbem.mail_in import imap
from tests.mail_in import clients
from tests.mail_in.dovecot import start as start_dovecot

REPLY = "play@club.example"


def _app(url: str, settings: dict[str, object]) -> Flask:
    app = create_app(
        {
            "DATABASE_URL": url,
            "SECRET_KEY": "bench-" + secrets.token_urlsafe(32),
            "SERVER_NAME": "127.0.0.1:5999",
            "MAIL_BACKEND": "smtp",  # replies queue their answers; no sender runs
            "MAIL_REPLY_ADDRESS": REPLY,
            "TESTING": True,
            **settings,
        }
    )
    with app.app_context():
        db.upgrade(db.get_engine())
    return app


def _replies(app: Flask, ids: list[int]) -> list[bytes]:
    """One reply per game that is not over: from the seat to act, to its reply address, with its first command."""
    out = []
    with app.test_request_context():
        session = db.get_session()
        for gid in ids:
            game = seat_rows.get_game(session=session, game_id=gid)
            rules = games.rules_of(game)
            state = games.load_state(game)
            seats = seat_rows.seats_of(session=session, game_id=gid)
            waiting = rules.waiting_for(state)
            seat = next((s for s in seats if s.name in waiting), None)
            if seat is None:
                continue
            commands = rules.commands(state, seat.name)
            address = compose.reply_address(game, seat, waiting[seat.name].id) or ""
            listing = "\n".join(f"{i}. {c.text}" for i, c in enumerate(commands, 1))
            original = clients.Original("Call to Glory <glory@club.example>", address, game.name, "<x@y>", listing, "")
            out.append(clients.gmail(original, commands[0].text, sender=seat.email or ""))
    session.close()
    return out


def one_database(url: str, replies: int, games_n: int) -> tuple[float, float]:
    """(replies per second, CPU ms per reply) for ``replies`` replies on the database at ``url``."""
    dovecot_run = start_dovecot()
    server = next(dovecot_run)
    try:
        app = _app(url, server.settings())
        ids = [web.create_active(app, f"Mail {i}", 20_000 + i, "call-to-glory") for i in range(games_n)]
        handled, wall, cpu = 0, 0.0, 0.0
        while handled < replies:
            batch = _replies(app, ids)[: replies - handled]
            if not batch:
                raise SystemExit("every game is over: use more --games")
            with MailBoxUnencrypted(server.host, server.port).login(server.user, server.password) as box:
                for raw in batch:
                    box.append(raw, "INBOX")
            with app.app_context():
                t0, c0 = time.perf_counter(), time.process_time()
                report = imap.poll()
                wall += time.perf_counter() - t0
                cpu += time.process_time() - c0
            if report.error or report.applied != len(batch):
                raise SystemExit(f"a pass went wrong: {report}")
            handled += report.read
        return handled / wall, cpu / handled * 1000
    finally:
        with contextlib.suppress(StopIteration):
            next(dovecot_run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replies", type=int, default=1000, help="replies per database")
    parser.add_argument("--games", type=int, default=50, help="games played at once (one reply each per pass)")
    parser.add_argument("--link-moves", type=int, default=200, help="moves by link for the comparison")
    args = parser.parse_args()
    targets = []
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)
        targets.append(("SQLite", f"sqlite:///{folder}/bench.sqlite3"))
        pg = os.environ.get("PBEM_BENCH_POSTGRES_URL", "")
        if pg:
            schema = f"bench_{secrets.token_hex(4)}"
            admin = create_engine(pg, isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f"CREATE SCHEMA {schema}"))
            sep = "&" if "?" in pg else "?"
            targets.append(("PostgreSQL", f"{pg}{sep}options=-csearch_path%3D{schema}"))
        try:
            for name, url in targets:
                rate, cpu = one_database(url, args.replies, args.games)
                print(
                    f"{name}: {args.replies} replies through Dovecot and mail-in --imap: {rate:.1f} replies/s, "
                    f"{cpu:.2f} ms CPU per reply"
                )
        finally:
            if pg:
                with admin.connect() as conn:
                    conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
                admin.dispose()
    per_move, per_get, per_post, _gets = page_cpu.one_round(args.link_moves)
    print(
        f"by link (SQLite, bench/page_cpu.py): {per_move:.2f} ms CPU per move (page GET {per_get:.2f} ms, "
        f"move POST {per_post:.2f} ms)"
    )


if __name__ == "__main__":
    main()
