"""CPU per move through the pages, in one process: ``python bench/page_cpu.py [--game KEY] [--moves N] [--rounds R]``;
and the CPU of one late page: ``python bench/page_cpu.py --game call-to-adventure --late-page 85``.

What ``make bench-web`` measures as "server CPU per move", without gunicorn, sockets or other processes, so that two
versions can be compared in a few minutes on a busy machine: three people with addresses play Call to Glory games
on a fresh SQLite database through Flask's test client, as ``bench/web.py``'s players do (GET the page of the seat
to act, press one of its move buttons, follow nothing). Only the CPU time of the requests counts
(``time.process_time``); each round is a fresh database, and the lowest round is the one to compare (the others
were slowed by the machine). After each round, ``bench/floor.py``'s app (the stack with no game) makes as many
moves through the same test client at the round's mix of GETs per move, and the lowest round is also given as a
multiple of that in-process floor (gunicorn and the sockets add the same to both, so ``bench/web.py`` beside
``bench/floor.py`` gives a smaller multiple). Run it from each checkout: ``.venv/bin/python bench/page_cpu.py``.

``--late-page PLY``: a game advanced by bots to ``PLY`` decisions, and the CPU time of a GET of the page of the seat
that must act, repeated (``--gets``), the lowest and the median printed; the profile's top entries with ``--profile``.
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
from floor import CSRF as FLOOR_CSRF  # bench/floor.py: the stack with no game
from floor import create_floor_app

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


def one_round(
    moves: int, game_key: str = web.DEFAULT_GAME, games: int = 6, profile: bool = False
) -> tuple[float, float, float, float]:
    """(CPU ms per move, per page GET, per move POST, page GETs per move) over ``moves`` moves on a fresh
    database."""
    with tempfile.TemporaryDirectory() as folder:
        app = _app(folder)
        ids = [web.create_active(app, f"Bench {i}", 10_000 + i, game_key) for i in range(games)]
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
                if not offered and not web.WAITING.search(page):
                    offered = confirm_forms(page, seatings[game].tokens[seat[game]])
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

        def confirm_forms(page: str, token: str) -> list[tuple[str, dict[str, str]]]:
            """As bench/web.py's players: the forms of the confirm page of one of the page's move links."""
            own = token.split(".")[0]
            found = [h for h in web.PAGE_LINK.findall(page) if h.removeprefix("/play/").split(".")[0] != own]
            if not found:
                return []
            link = html.unescape(rng.choice(found))
            t0 = time.process_time()
            confirm = client.get(link, base_url=BASE).get_data(as_text=True)
            spent["get"] += time.process_time() - t0
            count["get"] += 1
            forms = [(html.unescape(a), dict(web.HIDDEN.findall(body))) for a, body in web.FORM.findall(confirm)]
            return [(a, f) for a, f in forms if a == link or (f.get("decision") and "do" in f)]

        for game in ids[:2]:  # warm up: templates compiled, statements cached
            step(game)
        spent = {"get": 0.0, "post": 0.0}
        count = {"get": 0, "post": 0}
        turn = 0
        profiler = None
        if profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        while count["post"] < moves:
            step(ids[turn % len(ids)])
            turn += 1
            if turn > 20 * moves:
                raise SystemExit("the players made no moves: no move form found on the pages")
        if profiler is not None:
            import pstats

            profiler.disable()
            top = int(os.environ.get("PROFILE_TOP", "30"))
            pstats.Stats(profiler).sort_stats(os.environ.get("PROFILE_SORT", "tottime")).print_stats(top)
        posts = max(1, count["post"])
        total = (spent["get"] + spent["post"]) / posts
        per_get = spent["get"] / max(1, count["get"]) * 1000
        return total * 1000, per_get, spent["post"] / posts * 1000, count["get"] / posts


def floor_round(moves: int, gets_per_move: float) -> float:
    """CPU ms per move of ``bench/floor.py``'s app (the stack with no game) through the same test client, at the
    game round's mix of page GETs per move: the in-process floor to read a round's figure against."""
    with tempfile.TemporaryDirectory() as folder:
        os.environ["FLOOR_DATABASE"] = f"{folder}/floor.sqlite3"
        client = create_floor_app().test_client()
        spent, gets, games = 0.0, 0, 6
        for n in range(moves + games):  # the first round of games warms up: template and statements compiled
            game = n % games
            t0 = time.process_time()
            page = client.get(f"/g/{game}").get_data(as_text=True)
            gets += 1
            while gets < gets_per_move * (n + 1):
                page = client.get(f"/g/{game}").get_data(as_text=True)
                gets += 1
            token = FLOOR_CSRF.search(page)
            posted = client.post(f"/g/{game}", data={"csrf_token": token[1] if token else "", "do": "draw"})
            if posted.status_code != 303:
                raise SystemExit("the floor app did not take a move")
            if n >= games:
                spent += time.process_time() - t0
        return 1000 * spent / moves


def late_page(game_key: str, ply: int, gets: int, profile: bool) -> None:
    """Print the CPU ms of a GET of the page of the seat to act in a game advanced by bots to ``ply``."""
    with tempfile.TemporaryDirectory() as folder:
        app = _app(folder)
        seed = web.long_seeds(1, ply + 10, game_key)[0]
        gid = web.create_active(app, "Late", seed, game_key, ply)
        tokens = web._seatings(app, [gid])[gid].tokens
        client = app.test_client()
        page = client.get(f"/play/{tokens[web.NAMES[0]]}", base_url=BASE).get_data(as_text=True)
        waiting = web.WAITING.search(page)
        url = f"/play/{tokens[html.unescape(waiting.group(1)) if waiting else web.NAMES[0]]}"
        spent = []
        for _ in range(gets):
            t0 = time.process_time()
            response = client.get(url, base_url=BASE)
            spent.append(time.process_time() - t0)
            if response.status_code != 200:
                raise SystemExit(f"the page was answered {response.status_code}")
        spent.sort()
        size = len(response.get_data())
        print(
            f"{game_key} at ply {ply}: page GET {1000 * spent[0]:.2f} ms CPU lowest, "
            f"{1000 * spent[len(spent) // 2]:.2f} ms median over {gets} GETs ({size} bytes)"
        )
        if profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(50):
                client.get(url, base_url=BASE)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default=web.DEFAULT_GAME, help="the game played (default: call-to-glory)")
    parser.add_argument("--moves", type=int, default=200, help="moves per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (fresh databases); the lowest is reported")
    parser.add_argument("--late-page", type=int, default=0, metavar="PLY", help="time one page of a game at PLY")
    parser.add_argument("--gets", type=int, default=200, help="GETs of the late page")
    parser.add_argument("--profile", action="store_true", help="the profile's top entries (of the first round)")
    args = parser.parse_args()
    if args.late_page:
        late_page(args.game, args.late_page, args.gets, args.profile)
        return
    results = []
    floors = []
    for n in range(args.rounds):
        per_move, per_get, per_post, gets = one_round(args.moves, args.game, profile=args.profile and n == 0)
        results.append((per_move, per_get, per_post))
        floors.append(floor_round(args.moves, gets))
        print(
            f"round {n + 1}: {per_move:.2f} ms CPU per move (page GET {per_get:.2f} ms, move POST {per_post:.2f} ms); "
            f"floor {floors[-1]:.2f} ms at {gets:.2f} GETs per move"
        )
    best, floor = min(results), min(floors)
    print(
        f"lowest: {best[0]:.2f} ms CPU per move (page GET {best[1]:.2f} ms, move POST {best[2]:.2f} ms); "
        f"floor {floor:.2f} ms; {best[0] / floor:.1f}x the floor in-process"
    )


if __name__ == "__main__":
    main()
