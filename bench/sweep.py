"""Sweep benchmark: the reminder and deadline sweeps with nothing due, over 10,000 and 100,000 active games.

For each database (SQLite in a temporary folder, then PostgreSQL in a temporary schema of
PBEM_BENCH_POSTGRES_URL): a fresh database migrated with ``pbem.db.upgrade``; 16 active games of three
people created by the service (so every column is what a real game stores); copied in bulk by doubling
``INSERT … SELECT`` (games, seats and waits) to 10,000, then 100,000 games; every wait's next reminder and
deadline spread over the next three days with one UPDATE (none due). At each size: one cold sweep of
each kind, then ``--runs`` more, each through the same ``pbem.sweeps`` functions the scheduler calls;
the target is at most 1 s per sweep. Then one game's wait is made due, to check that the sweep finds it.

The temporary folder is removed and the PostgreSQL schema dropped at the end, also on errors or Ctrl-C.
Run with ``make bench-sweep``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from common import postgres_schema
from flask import Flask
from sqlalchemy import Connection, Engine, func, insert, select, text, update

from pbem import create_app, db, flows, timing
from pbem.core import games
from pbem.models import Game, Seat, Wait
from pbem.scheduler import sweeps

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TEMPLATES = 16
SPREAD_SECONDS = 3 * 86400
TARGET_SECONDS = 1.0


@dataclass
class Figures:
    """Timings (seconds) of the sweeps at one size."""

    games: int
    seed_seconds: float
    reminder: list[float] = field(default_factory=list)
    deadline: list[float] = field(default_factory=list)
    found_due: tuple[int, int] = (0, 0)


def create_templates(app: Flask, count: int) -> None:
    """``count`` active games of three people, through the service, as a real server stores them."""
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    with app.app_context():
        for i in range(count):
            with db.write_session() as session:
                flows.games.create(session=session, name=f"Sweep bench {i}", seats=specs, seed=i + 1)


def grow(eng: Engine, total: int) -> None:
    """Copy games (and their seats and waits) 1..k to n+1..n+k until there are ``total`` games."""
    g, s, w = Game.__table__, Seat.__table__, Wait.__table__  # type: ignore[attr-defined]
    with eng.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SET LOCAL synchronous_commit = off"))
        n = int(conn.execute(select(func.count()).select_from(g)).scalar_one())
        while n < total:
            k = min(n, total - n)
            _copy(conn, g, "id", n, k)
            _copy(conn, s, "game_id", n, k)
            _copy(conn, w, "game_id", n, k)
            n += k
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT setval(pg_get_serial_sequence('game', 'id'), (SELECT max(id) FROM game))"))


def _copy(conn: Connection, table: Any, key: str, offset: int, k: int) -> None:
    columns = [c for c in table.c if not (c.name == "id" and key != "id")]
    values = [c + offset if c.name == key else c for c in columns]
    conn.execute(insert(table).from_select([c.name for c in columns], select(*values).where(table.c[key] <= k)))


def spread(eng: Engine, start: datetime) -> None:
    """Every wait's next reminder and deadline somewhere in the three days after ``start`` (none due)."""
    with eng.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(
                text(
                    "UPDATE wait SET next_reminder_at = :start + make_interval(secs => id % :spread), "
                    "deadline_at = :start + make_interval(secs => :spread + id % :spread)"
                ),
                {"start": start, "spread": SPREAD_SECONDS},
            )
        else:  # the text format SQLAlchemy stores SQLite datetimes in
            shifted = "strftime('%Y-%m-%d %H:%M:%S', :start, '+' || ({}) || ' seconds') || '.000000'"
            conn.execute(
                text(
                    f"UPDATE wait SET next_reminder_at = {shifted.format('id % :spread')}, "
                    f"deadline_at = {shifted.format(':spread + id % :spread')}"
                ),
                {"start": start.strftime("%Y-%m-%d %H:%M:%S"), "spread": SPREAD_SECONDS},
            )


def settle(eng: Engine) -> None:
    """Flush the seeding's writes before measuring: checkpoint (SQLite), or ANALYZE our tables and CHECKPOINT."""
    with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if eng.dialect.name == "postgresql":
            conn.execute(text("ANALYZE game"))
            conn.execute(text("ANALYZE seat"))
            conn.execute(text("ANALYZE wait"))
            conn.execute(text("CHECKPOINT"))
        else:
            conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    os.sync()


def timed(app: Flask, sweep: Callable[..., int], now: datetime) -> tuple[float, int]:
    """One sweep in an app context, as the scheduler's job runs it: (seconds, games handled)."""
    with app.app_context():
        t0 = time.perf_counter()
        handled = sweep(now=now)
        return time.perf_counter() - t0, handled


def plan(eng: Engine) -> str:
    """How the database answers the reminder sweep's query (it must use the index)."""
    query = (
        "SELECT next_reminder_at, id FROM wait WHERE next_reminder_at <= :now ORDER BY next_reminder_at, id LIMIT 200"
    )
    with eng.connect() as conn:
        if eng.dialect.name == "postgresql":
            rows = conn.execute(text(f"EXPLAIN {query}"), {"now": timing.now()}).scalars().all()
        else:
            rows = [r[-1] for r in conn.execute(text(f"EXPLAIN QUERY PLAN {query}"), {"now": timing.now()})]
    return " / ".join(str(r).strip() for r in rows)


def measure(app: Flask, eng: Engine, size: int, seed_seconds: float, runs: int) -> Figures:
    """The cold sweep and ``runs`` more of each kind, with nothing due."""
    figures = Figures(size, seed_seconds)
    now = timing.now()
    for _ in range(runs + 1):
        seconds, handled = timed(app, sweeps.reminder_sweep, now)
        assert handled == 0, "nothing is due"
        figures.reminder.append(seconds)
        seconds, handled = timed(app, sweeps.deadline_sweep, now)
        assert handled == 0, "nothing is due"
        figures.deadline.append(seconds)
    return figures


def check_due(app: Flask, eng: Engine, game_id: int) -> tuple[int, int]:
    """Make one game's wait's reminder, then its deadline, due: each sweep must find and handle exactly that wait.

    A reminder found in the player's quiet hours is moved to their end instead of sent: handled all the same.
    """
    now = timing.now()
    table = Wait.__table__  # type: ignore[attr-defined]
    due = now - timedelta(minutes=1)
    with eng.begin() as conn:
        conn.execute(update(table).where(table.c.game_id == game_id).values(next_reminder_at=due))
    timed(app, sweeps.reminder_sweep, now)
    with eng.connect() as conn:
        later = conn.execute(select(func.count()).select_from(table).where(table.c.next_reminder_at <= now))
        reminded = 1 if later.scalar_one() == 0 else 0
    with eng.begin() as conn:
        conn.execute(update(table).where(table.c.game_id == game_id).values(deadline_at=due))
    timed_out = timed(app, sweeps.deadline_sweep, now)[1]
    return reminded, timed_out


def run_database(label: str, url: str, args: argparse.Namespace) -> list[Figures]:
    """Seed, grow and measure one database."""
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench-" + secrets.token_urlsafe(32)})
    eng: Engine = app.extensions["pbem_engine"]
    out: list[Figures] = []
    try:
        with app.app_context():
            db.upgrade(db.get_engine())
        create_templates(app, TEMPLATES)
        for size in args.sizes:
            print(f"[{label}] growing to {size:,} active games …", flush=True)
            t0 = time.perf_counter()
            grow(eng, size)
            spread(eng, timing.now() + timedelta(hours=1))
            settle(eng)
            out.append(measure(app, eng, size, time.perf_counter() - t0, args.runs))
            print(f"[{label}] {size:,} games: plan {plan(eng)}", flush=True)
        out[-1].found_due = check_due(app, eng, args.sizes[-1] // 2)
    finally:
        eng.dispose()
    return out


def ms(values: list[float]) -> str:
    return f"{1000 * values[0]:>8.1f}{1000 * statistics.median(values[1:] or values):>9.1f}{1000 * max(values):>8.1f}"


def print_reports(reports: dict[str, list[Figures]], runs: int) -> None:
    """The table and the targets."""
    print()
    print(f"Sweeps with nothing due: one cold run, then {runs} more (ms); {os.cpu_count()} CPUs")
    head = f"{'database':<11}{'games':>9}{'seeding':>9}  {'reminder: cold':>14}{'median':>9}{'max':>8}"
    head += f"  {'deadline: cold':>14}{'median':>9}{'max':>8}"
    print(head)
    print("-" * len(head))
    for label, figures in reports.items():
        for f in figures:
            print(f"{label:<11}{f.games:>9,}{f.seed_seconds:>8.1f}s  {ms(f.reminder):>31}  {ms(f.deadline):>31}")
    print()
    for label, figures in reports.items():
        for f in figures:
            worst = max(max(f.reminder), max(f.deadline))
            verdict = "met" if worst <= TARGET_SECONDS else "MISSED"
            print(f"target <= 1 s per sweep, {label}, {f.games:,} games: worst {1000 * worst:.1f} ms -> {verdict}")
        reminded, timed_out = figures[-1].found_due
        ok = "yes" if (reminded, timed_out) == (1, 1) else "NO"
        print(f"one game made due, {label}: reminder sweep handled {reminded}, deadline sweep {timed_out} -> {ok}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (the defaults are the benchmark's)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="active games, ascending")
    p.add_argument("--runs", type=int, default=5, help="warm runs of each sweep after the cold one")
    p.add_argument("--skip-postgres", action="store_true")
    p.add_argument("--postgres-url", default=os.environ.get("PBEM_BENCH_POSTGRES_URL") or DEFAULT_PG)
    args = p.parse_args(argv)
    if args.sizes != sorted(args.sizes) or args.sizes[0] < TEMPLATES:
        p.error(f"--sizes must be ascending and at least {TEMPLATES}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark on SQLite, then PostgreSQL; print the table; clean up."""
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the finally blocks run
    workdir = Path(tempfile.mkdtemp(prefix="pbem-bench-sweep-"))
    reports: dict[str, list[Figures]] = {}
    try:
        reports["sqlite"] = run_database("sqlite", f"sqlite:///{workdir / 'bench.sqlite3'}", args)
        if not args.skip_postgres:
            with postgres_schema(args.postgres_url) as url:
                reports["postgresql"] = run_database("postgresql", url, args)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print_reports(reports, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
