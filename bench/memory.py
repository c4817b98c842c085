"""Memory benchmark for the small-machine profile: one gthread gunicorn worker and ``pbem scheduler`` on one
database, after a load run; prints each process's proportional set size (PSS, from /proc/PID/smaps_rollup).

A SQLite database in a temporary folder (or PostgreSQL with ``--postgres URL``), 8 games of three people; gunicorn
with ``config/gunicorn.conf.py -w 1`` and ``pbem scheduler`` started as the units start them; ``--requests`` page
loads (personal pages, move confirm pages, the front page) from 4 threads; then the PSS of the gunicorn master, its
worker and the scheduler. Goal: worker + scheduler at most 200 MiB. Run with ``.venv/bin/python bench/memory.py``.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from pbem import create_app, db, flows
from pbem.core import games, links
from pbem.core import seats as seat_rows

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def pss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(p) for p in found]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--postgres", default="")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-mem-"))
    url = args.postgres or f"sqlite:///{folder / 'pbem.sqlite3'}"
    key = "bench-" + secrets.token_urlsafe(32)
    port = 18000 + secrets.randbelow(2000)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": key, "SERVER_NAME": f"127.0.0.1:{port}"})
    paths = ["/"]
    with app.app_context():
        db.upgrade(db.get_engine())
        for g in range(8):
            specs = [games.SeatSpec(n, email=f"{n}{g}@example.com") for n in ("ann", "bob", "cy")]
            with db.write_session() as session:
                game_id = flows.games.create(session=session, name=f"Memory {g}", seats=specs, seed=g + 1).id or 0
            for seat in seat_rows.seats_of(session=db.get_session(), game_id=game_id):
                with app.test_request_context():
                    paths.append(f"/play/{links.personal_token(game_id, seat.position, seat.nonce)}")
    env = {
        "PATH": "/usr/bin:/bin",
        "PBEM_ENV": "production",
        "PBEM_SECRET_KEY": key,
        "PBEM_DATABASE_URL": url,
        "PBEM_SERVER_NAME": f"127.0.0.1:{port}",
        "PBEM_TRUSTED_HOSTS": json.dumps(["127.0.0.1"]),
        "PBEM_PREFERRED_URL_SCHEME": "https",
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_MAIL_SERVER": "127.0.0.1",
        "PBEM_MAIL_PORT": "9",
        "PBEM_RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
    }
    web = subprocess.Popen(
        [str(BIN / "gunicorn"), "-c", str(ROOT / "config/gunicorn.conf.py"), "-w", "1", "-b", f"127.0.0.1:{port}",
         "pbem:create_app()"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    scheduler = subprocess.Popen([str(BIN / "pbem"), "scheduler"], cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                requests.get(f"{base}/healthz", timeout=5)
                break
            except requests.RequestException:
                time.sleep(0.2)

        def load(i: int) -> int:
            return requests.get(base + paths[i % len(paths)], timeout=60).status_code

        started = time.monotonic()
        with ThreadPoolExecutor(4) as pool:
            statuses = list(pool.map(load, range(args.requests)))
        took = time.monotonic() - started
        time.sleep(2)
        [worker] = children(web.pid)
        master, work, sched = pss_kib(web.pid), pss_kib(worker), pss_kib(scheduler.pid)
        kind = "PostgreSQL" if args.postgres else "SQLite"
        print(f"{args.requests} requests in {took:.1f} s, statuses {sorted(set(statuses))} ({kind})")
        mib = {name: kib / 1024 for name, kib in (("master", master), ("worker", work), ("scheduler", sched))}
        print("PSS: " + ", ".join(f"{name} {value:.1f} MiB" for name, value in mib.items()))
        together = mib["worker"] + mib["scheduler"]
        print(
            f"worker + scheduler: {together:.1f} MiB (goal <= 200); with the master {together + mib['master']:.1f} MiB"
        )
    finally:
        for proc in (web, scheduler):
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
