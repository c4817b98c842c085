"""The floor under "server CPU per move": ``python bench/floor.py [--seconds S] [--players N]``.

What a move costs the server on this stack before any game work: a Flask app with exactly the per-request parts
every pbem request has (the signed session cookie, a CSRF form token, one SQLite statement through SQLAlchemy on
the same pragmas, a small Jinja page, a flash message and a 303 after the POST), served by gunicorn with
``config/gunicorn.conf.py`` (threads and the gate) as ``make bench-web`` serves pbem. The load is bench-web's:
players as threads, each request a new connection; a move is ``--gets`` page GETs and one POST (bench-web's
players average about 1.3 GETs per move). It prints the gunicorn workers' CPU per move, for comparing with
``make bench-web``'s "srv ms/mv" on the same machine: what is left above the floor is the game's and the pages'
own work. Everything listens on 127.0.0.1; the temporary folder is removed at the end.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web import GUNICORN, ROOT, Browser, cpu_seconds, free_port  # bench/web.py

PAGE = """<!doctype html><title>Game {{ game }}</title>
{% for message in get_flashed_messages() %}<p class="flash">{{ message }}</p>{% endfor %}
<p>{{ moves }} moves so far.</p>
<form method="post"><input type="hidden" name="csrf_token" value="{{ csrf_token() }}">
<button name="do" value="draw">Draw</button></form>
"""
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def create_floor_app() -> Any:
    """The floor app (gunicorn: ``floor:create_floor_app()``), on the SQLite file named by $FLOOR_DATABASE."""
    from flask import Flask, flash, redirect, request
    from flask_wtf.csrf import CSRFProtect
    from sqlalchemy import create_engine, event, text

    app = Flask(__name__)
    app.config.update(SECRET_KEY=os.environ.get("FLOOR_SECRET", "floor" * 8), WTF_CSRF_TIME_LIMIT=None)
    CSRFProtect(app)
    engine = create_engine(f"sqlite:///{os.environ['FLOOR_DATABASE']}")

    @event.listens_for(engine, "connect")
    def _pragmas(conn: Any, _record: Any) -> None:  # as pbem.db sets them
        cursor = conn.cursor()
        for pragma in ("journal_mode=WAL", "busy_timeout=5000", "foreign_keys=ON", "synchronous=NORMAL"):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE IF NOT EXISTS moves (id INTEGER PRIMARY KEY, game INT, body TEXT)"))
    template = app.jinja_env.from_string(PAGE)

    @app.get("/g/<int:game>")
    def page(game: int) -> str:
        with engine.connect() as conn:
            moves = conn.execute(text("SELECT count(*) FROM moves WHERE game = :g"), {"g": game}).scalar()
        return template.render(game=game, moves=moves)

    @app.post("/g/<int:game>")
    def move(game: int) -> Any:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO moves (game, body) VALUES (:g, :b)"), {"g": game, "b": request.form["do"]})
        flash("Done: draw.")
        return redirect(f"/g/{game}", code=303)

    return app


def load(base: str, players: int, seconds: float, gets: int) -> int:
    """Moves made by ``players`` threads in ``seconds``: each move is ``gets`` GETs and a POST with the page's token
    (a wrong answer stops the run: a player that quietly stopped would make the moves look dearer)."""
    stop = time.monotonic() + seconds
    made = [0] * players
    errors: list[str] = []

    def play(index: int) -> None:
        browser = Browser(base)
        try:
            while time.monotonic() < stop and not errors:
                page = ""
                for _ in range(gets):
                    status, page = browser.request("GET", f"/g/{index}")
                    if status != 200:
                        raise OSError(f"GET answered {status}")
                token = CSRF.search(page)
                if token is None:
                    raise OSError(f"no CSRF token in the page: {page[:200]!r}")
                status, _ = browser.request("POST", f"/g/{index}", {"csrf_token": token.group(1), "do": "draw"})
                if status != 303:
                    raise OSError(f"POST answered {status}")
                made[index] += 1
        except OSError as exc:
            errors.append(f"player {index}: {exc}")

    threads = [threading.Thread(target=play, args=(i,)) for i in range(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(errors[0])
    return sum(made)


def _wait_ready(base: str, proc: subprocess.Popen[bytes]) -> None:
    """Until the floor app answers (or fail if gunicorn died or never answers)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode}")
        try:
            if Browser(base).request("GET", "/g/0")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer within 30 s")


def run(gets: int, args: argparse.Namespace, workdir: Path) -> float:
    """gunicorn's CPU ms per move with ``gets`` GETs per move, on a fresh database."""
    port = free_port()
    env = {**os.environ, "FLOOR_DATABASE": str(workdir / f"floor-{gets}.sqlite3")}
    command = [
        str(GUNICORN),
        *("-c", str(ROOT / "config" / "gunicorn.conf.py"), "-w", str(args.workers), "-b", f"127.0.0.1:{port}"),
        *("--pythonpath", str(ROOT / "bench"), "--no-control-socket", "floor:create_floor_app()"),
    ]
    with open(workdir / "gunicorn.log", "ab") as log:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_ready(base, proc)
            load(base, args.players, 2.0, gets)  # warm-up: templates and statements compiled, gc frozen
            cpu0 = cpu_seconds(proc.pid)
            moves = load(base, args.players, args.seconds, gets)
            return 1000 * (cpu_seconds(proc.pid) - cpu0) / max(moves, 1)
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def main(argv: list[str] | None = None) -> int:
    """Measure the floor for 1 and 2 GETs per move, ``--rounds`` times each, alternating; print every round."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--players", type=int, default=16)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="pbem-floor-"))
    try:
        results: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(args.rounds):
            for gets in results:
                results[gets].append(run(gets, args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    setting = f"gunicorn -c config/gunicorn.conf.py -w {args.workers}, {args.players} players"
    print(f"The floor: {setting}, {os.cpu_count()} CPUs")
    for gets, values in results.items():
        shown = " / ".join(f"{v:.2f}" for v in values)
        print(f"  {gets} GET{'s' if gets > 1 else ''} + 1 POST per move: {shown} ms server CPU per move")
    return 0


if __name__ == "__main__":
    sys.exit(main())
