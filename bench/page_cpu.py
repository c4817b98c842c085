"""CPU per move through the pages, in one process: ``python bench/page_cpu.py [--moves N] [--rounds R]``.

What ``make bench-web`` measures as "server CPU per move", without gunicorn, sockets or other processes, so that two
versions can be compared in a few minutes on a busy machine: three people with addresses play Call to Glory games
on a fresh SQLite database through Flask's test client, as ``bench/web.py``'s players do (GET the page of the seat
to act, press one of its move buttons, follow nothing). Only the CPU time of the requests counts
(``time.process_time``); each round is a fresh database, and the lowest round is the one to compare (the others
were slowed by the machine). Run it from each checkout: ``.venv/bin/python bench/page_cpu.py``.
"""

from __future__ import annotations

import argparse
import html
import os
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import web  # bench/web.py: its game set-up and page parsing
from flask import Flask

from pbem import create_app, db

BASE = "https://127.0.0.1:5999"


def _app(folder: str) -> Flask:
    os.environ["PBEM_ENV"] = "production"
    app = create_app(
        {
            "DATABASE_URL": f"sqlite:///{folder}/bench.sqlite3",
            "SECRET_KEY": "bench-" + secrets.token_urlsafe(32),
            "SERVER_NAME": "127.0.0.1:5999",
            "TRUSTED_HOSTS": ["127.0.0.1"],
            "MAIL_BACKEND": "smtp",  # moves queue their emails; no sender runs, as in bench/web.py
            "PREFERRED_URL_SCHEME": "https",
            "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",  # production refuses per-process memory (unused here)
        }
    )
    with app.app_context():
        db.upgrade(db.get_engine())
    return app


def one_round(moves: int, games: int = 6) -> tuple[float, float, float]:
    """(CPU ms per move, per page GET, per move POST) over ``moves`` moves on a fresh database."""
    with tempfile.TemporaryDirectory() as folder:
        app = _app(folder)
        ids = [web.create_active(app, f"Bench {i}", 10_000 + i, "call-to-glory") for i in range(games)]
        seatings = web._seatings(app, ids)
        client = app.test_client()
        rng = random.Random(1)
        seat = dict.fromkeys(ids, web.NAMES[0])
        spent = {"get": 0.0, "post": 0.0}
        count = {"get": 0, "post": 0}

        def step(game: int) -> None:
            for _ in range(4):
                t0 = time.process_time()
                page = client.get(f"/play/{seatings[game].tokens[seat[game]]}", base_url=BASE).get_data(as_text=True)
                spent["get"] += time.process_time() - t0
                count["get"] += 1
                forms = [(action, dict(web.HIDDEN.findall(body))) for action, body in web.FORM.findall(page)]
                offered = [(a, f) for a, f in forms if f.get("decision") and "do" in f]
                if offered:
                    action, fields = rng.choice(offered)
                    data = {k: html.unescape(v) for k, v in fields.items()}
                    t0 = time.process_time()
                    response = client.post(html.unescape(action), data=data, base_url=BASE)
                    spent["post"] += time.process_time() - t0
                    count["post"] += 1
                    if response.status_code != 303:
                        raise SystemExit(f"a move was answered {response.status_code}")
                    return
                waiting = web.WAITING.search(page)
                if waiting is None:
                    return  # game over
                seat[game] = html.unescape(waiting.group(1))

        for game in ids[:2]:  # warm up: templates compiled, statements cached
            step(game)
        spent = {"get": 0.0, "post": 0.0}
        count = {"get": 0, "post": 0}
        turn = 0
        while count["post"] < moves:
            step(ids[turn % len(ids)])
            turn += 1
        posts = max(1, count["post"])
        total = (spent["get"] + spent["post"]) / posts
        return total * 1000, spent["get"] / max(1, count["get"]) * 1000, spent["post"] / posts * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=200, help="moves per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (fresh databases); the lowest is reported")
    args = parser.parse_args()
    results = []
    for n in range(args.rounds):
        per_move, per_get, per_post = one_round(args.moves)
        results.append((per_move, per_get, per_post))
        print(f"round {n + 1}: {per_move:.2f} ms CPU per move (page GET {per_get:.2f} ms, move POST {per_post:.2f} ms)")
    best = min(results)
    print(f"lowest: {best[0]:.2f} ms CPU per move (page GET {best[1]:.2f} ms, move POST {best[2]:.2f} ms)")


if __name__ == "__main__":
    main()
