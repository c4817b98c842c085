"""Web benchmark: 16 simulated players against gunicorn (2 workers) on SQLite, then on PostgreSQL.

The game is Call to Glory unless ``--game`` (or $PBEM_BENCH_GAME, for ``make bench-web``) names another of
``engine.GAMES`` (``--game call-to-adventure``); everything below goes through the game protocol, so any game
with a ``heuristic`` bot can be measured.

For each database: a fresh database migrated with ``pbem.db.upgrade``; 10,000 finished games seeded in
bulk (a few games played by the engine's bots, copied by doubling ``INSERT … SELECT``); active games of
people seats; gunicorn on 127.0.0.1; then

1. the load: every simulated player plays its own games through the pages (GET the page of the seat that
   must act, parse the CSRF token and a legal move form, POST it, follow nothing else) for a fixed time;
   a *move* is one confirmed POST, timed from send to the 303; the players are threads spread over a few
   processes, each request a new connection (gunicorn's sync workers close them);
2. the cost of a move against the length of the game's log: one client, no concurrency, POSTs on games
   at ply ~5 and on games pre-advanced by bots to ply ~500 (a Call to Adventure game is shorter: ply ~90).

Everything listens on 127.0.0.1 only; gunicorn is stopped, the temporary folder removed and the
PostgreSQL schema dropped at the end, also on errors or Ctrl-C. Run with ``make bench-web``.
"""

from __future__ import annotations

import argparse
import html
import json
import multiprocessing
import os
import random
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from common import postgres_schema
from flask import Flask
from sqlalchemy import Connection, Engine, func, insert, select, text, update

import engine
from pbem import create_app, db, flows, timing
from pbem.core import games, links
from pbem.core import seats as seat_rows
from pbem.models import Game, MoveRecord, Seat

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
NAMES = ("ann", "bob", "cy")
DEFAULT_GAME = "call-to-glory"
LATE_PLY = {"call-to-glory": 500, "call-to-adventure": 90}
"""The default ply of the late games of the log-length test, per game (a game must still be going on there)."""
FORM = re.compile(r'<form method="post" action="([^"]+)">(.*?)</form>', re.S)
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')
WAITING = re.compile(r"Waiting for <strong><bdi>([^<]+)</bdi>")  # the first of several deciding at once
PAGE_LINK = re.compile(r'<a [^>]*href="(/play/[^"/?#]+)"')
TIMEOUT = 30


# ---------------------------------------------------------------------------------------------- seeding


@dataclass
class Played:
    """A game played by the engine's bots: the game's key, its seed, seats, final state and log (move, events)."""

    game: str
    seed: int
    names: list[str]
    state: Any
    log: list[tuple[dict[str, Any], list[dict[str, Any]]]]

    @property
    def finished(self) -> bool:
        return engine.GAMES[self.game].result(self.state) is not None


def play_bots(game: str, names: list[str], seed: int, plies: int | None = None) -> Played:
    """Let heuristic bots play a new game of ``game`` (default options) from ``seed`` to the end, or for ``plies``
    decisions (of several players deciding at once, the first decides first)."""
    rules = engine.GAMES[game]
    state = rules.new_game(names, rules.parse_options({}, names), seed)
    bot = rules.bots["heuristic"](seed)
    log: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    while rules.result(state) is None and (plies is None or len(log) < plies):
        events: list[dict[str, Any]] = []
        move = bot.choose(state, next(iter(rules.waiting_for(state))))
        rules.apply(state, move, events)
        log.append((move.to_json(), events))
    return Played(game, seed, names, state, log)


def seed_finished(eng: Engine, total: int, game: str, templates: int = 16) -> tuple[int, float]:
    """Insert ``total`` finished games with their seats and full logs; return (move rows, seconds)."""
    started = time.perf_counter()
    g, s, m = Game.__table__, Seat.__table__, MoveRecord.__table__  # type: ignore[attr-defined]
    now = timing.now()
    with eng.begin() as conn:
        _fast_bulk(conn)
        for gid in range(1, templates + 1):
            played = play_bots(game, list(NAMES[: 2 + gid % 2]), seed=gid)
            conn.execute(insert(g), [_game_row(played, gid, now, name=f"Finished game {gid}")])
            conn.execute(insert(s), [_seat_row(gid, pos, name) for pos, name in enumerate(played.names)])
            conn.execute(insert(m), _move_rows(gid, played, now))
        # Doubling: copy games 1..k to n+1..n+k until there are `total`.
        n = templates
        while n < total:
            k = min(n, total - n)
            _copy(conn, g, "id", n, k)
            _copy(conn, s, "game_id", n, k)
            _copy(conn, m, "game_id", n, k)
            n += k
        if eng.dialect.name == "postgresql":
            conn.execute(text("SELECT setval(pg_get_serial_sequence('game', 'id'), (SELECT max(id) FROM game))"))
        rows = int(conn.execute(select(func.count()).select_from(m)).scalar_one())
    seconds = time.perf_counter() - started
    settle(eng)
    return rows, seconds


def settle(eng: Engine) -> None:
    """Flush the seeding's writes now, so that the kernel's and the database's write-back does not land in the
    measurements: checkpoint (SQLite: and truncate the WAL), ANALYZE on PostgreSQL as autovacuum would, sync."""
    with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if eng.dialect.name == "postgresql":
            conn.execute(text("ANALYZE"))
            conn.execute(text("CHECKPOINT"))
        else:
            conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    os.sync()


def _fast_bulk(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SET LOCAL synchronous_commit = off"))
        conn.execute(text("SET LOCAL statement_timeout = 0"))  # the copies take long on a loaded machine


def _copy(conn: Connection, table: Any, key: str, offset: int, k: int) -> None:
    """INSERT … SELECT the rows of games 1..k with game ids shifted by ``offset`` (new row ids)."""
    columns = [c for c in table.c if not (c.name == "id" and key != "id")]
    values = [c + offset if c.name == key else c for c in columns]
    query = select(*values).where(table.c[key] <= k)
    conn.execute(insert(table).from_select([c.name for c in columns], query))


def _game_row(played: Played, gid: int | None, now: Any, name: str) -> dict[str, Any]:
    rules = engine.GAMES[played.game]
    waiting = rules.waiting_for(played.state)
    row = {
        "game": played.game,
        "name": name,
        "status": "finished" if played.finished else "playing",
        "options": rules.parse_options({}, played.names),
        "seed": played.seed,
        "state": rules.to_json(played.state),
        "version": 1 + len(played.log),
        "current_seat": next((i for i, n in enumerate(played.names) if n in waiting), None),
        "created_at": now,
        "updated_at": now,
    }
    if gid is not None:
        row["id"] = gid
    return row


def _seat_row(gid: int, position: int, name: str) -> dict[str, Any]:
    return {
        "game_id": gid,
        "position": position,
        "name": name,
        "email": f"{name}@example.com",
        "language": "en",
        "timezone": "UTC",
        "nonce": secrets.token_urlsafe(24),
        "kind": "human",
    }


def _move_rows(gid: int, played: Played, now: Any, source: str = "bot") -> list[dict[str, Any]]:
    index = {name: i for i, name in enumerate(played.names)}
    return [
        {
            "game_id": gid,
            "seq": 1 + i,
            "seat": index[move["player"]],
            "move": move,
            "events": events,
            "source": source,
            "created_at": now,
        }
        for i, (move, events) in enumerate(played.log)
    ]


def create_active(app: Flask, name: str, seed: int, key: str, plies: int = 0) -> int:
    """A game of ``key`` with three people created by the service, then advanced ``plies`` decisions by bots."""
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in NAMES]
    with app.app_context(), db.write_session() as session:
        game = flows.games.create(session=session, name=name, seats=specs, seed=seed, game=key)
        gid = game.id or 0
        version = game.version
    if plies:
        played = play_bots(key, list(NAMES), seed, plies)
        eng = app.extensions["pbem_engine"]
        with eng.begin() as conn:
            # The seats are people's: their earlier moves are logged as made on their pages, so that a turn
            # email tells what happened since the player's own last move, as it would in a real game.
            rows = _move_rows(gid, played, timing.now(), source="page")
            conn.execute(insert(MoveRecord.__table__), rows)  # type: ignore[attr-defined]
            row = _game_row(played, None, timing.now(), name)
            row["version"] = version + len(played.log)
            conn.execute(update(Game.__table__).where(Game.__table__.c.id == gid).values(**row))  # type: ignore[attr-defined]
    return gid


def long_seeds(count: int, at_least: int, game: str) -> list[int]:
    """Seeds whose bot game lasts at least ``at_least`` decisions (so the late ply is still mid-game)."""
    out: list[int] = []
    seed = 1000
    while len(out) < count:
        if len(play_bots(game, list(NAMES), seed).log) >= at_least:
            out.append(seed)
        seed += 1
    return out


# ---------------------------------------------------------------------------------------------- clients


@dataclass
class Stats:
    """Latencies (seconds) and failures seen by clients."""

    post: list[float] = field(default_factory=list)
    get: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def merge(self, other: Stats) -> None:
        """Add another client's figures."""
        self.post += other.post
        self.get += other.get
        self.errors += other.errors


@dataclass
class Seating:
    """One game as a client sees it: the personal token of each seat."""

    game_id: int
    tokens: dict[str, str]


class Browser:
    """A minimal HTTP/1.1 client with one cookie jar, on plain sockets.

    The load shares the machine's two cores with the server, so its cost matters: http.client parses
    every response's headers with the email package, and requests costs more still. gunicorn's sync
    workers close every connection, so a request is: connect, send, read to the end, split the head.
    Cookie attributes are ignored (the production cookie is Secure, the server here is plain HTTP on
    127.0.0.1).
    """

    def __init__(self, base: str) -> None:
        host, _, port = base.removeprefix("http://").partition(":")
        self.address = (host, int(port))
        self.host = f"Host: {host}:{port}\r\nConnection: close\r\n"
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, str]:
        """Send one request; (status, body) with the cookies it set kept."""
        head = f"{method} {path} HTTP/1.1\r\n{self.host}"
        if self.cookies:
            head += "Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()) + "\r\n"
        body = b""
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            head += f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n"
        with socket.create_connection(self.address, timeout=TIMEOUT) as sock:
            sock.sendall(head.encode() + b"\r\n" + body)
            chunks = []
            while data := sock.recv(1 << 16):
                chunks.append(data)
        raw = b"".join(chunks)
        top, _, payload = raw.partition(b"\r\n\r\n")
        lines = top.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise OSError(f"not an HTTP response: {lines[0][:80]!r}")
        length = None
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.lower()
            if name == "set-cookie":
                cookie, _, _ = value.strip().partition(";")
                key, _, val = cookie.partition("=")
                self.cookies[key] = val
            elif name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                raise OSError("chunked responses are not expected from these pages")
        if length is not None and len(payload) != length:
            raise OSError(f"short response: {len(payload)} of {length} bytes")
        return int(parts[1]), payload.decode()


class Player:
    """A simulated player (one browser session) that plays every seat of its games in turn."""

    def __init__(self, base: str, seatings: list[Seating], seed: int) -> None:
        self.base = base
        self.todo = list(seatings)
        self.rng = random.Random(seed)
        self.http = Browser(base)
        self.seat = NAMES[0]
        self.stats = Stats()
        self.applied = 0  # every POST answered 303, warm-up included

    def _get(self, token: str) -> str | None:
        t0 = time.perf_counter()
        status, text = self.http.request("GET", f"/play/{token}")
        self.stats.get.append(time.perf_counter() - t0)
        if status != 200:
            self.stats.errors.append(f"GET {status}")
            return None
        return text

    def step(self) -> float | None:
        """Make one move in the current game (GETs as needed, one POST); the POST latency, or None.

        A connection error is counted as an error, not raised: the player goes on with its next step.
        """
        try:
            return self._step()
        except OSError as exc:
            self.stats.errors.append(f"{type(exc).__name__}: {exc}")
            return None

    def _step(self) -> float | None:
        for _ in range(4):
            if not self.todo:
                return None
            seating = self.todo[0]
            page = self._get(seating.tokens[self.seat])
            if page is None:
                continue
            forms = [(action, dict(HIDDEN.findall(body))) for action, body in FORM.findall(page)]
            moves = [(a, f) for a, f in forms if f.get("decision") and "do" in f]
            if not moves and not WAITING.search(page):
                moves = self._confirm_forms(page, seating.tokens[self.seat])
            if moves:
                action, fields = self.rng.choice(moves)
                data = {k: html.unescape(v) for k, v in fields.items()}
                t0 = time.perf_counter()
                status, _ = self.http.request("POST", html.unescape(action), data)
                took = time.perf_counter() - t0
                if status != 303:
                    self.stats.errors.append(f"POST {status}")
                    return None
                self.stats.post.append(took)
                self.applied += 1
                return took
            waiting = WAITING.search(page)
            if waiting:
                self.seat = html.unescape(waiting.group(1))
            else:  # game over
                self.todo.pop(0)
                self.seat = NAMES[0]
        return None

    def _confirm_forms(self, page: str, token: str) -> list[tuple[str, dict[str, str]]]:
        """The forms of the confirm page of one of the page's move links (a move the page offers as a link, to be
        confirmed, not as a button); the personal page's own links (signed afresh) are not followed."""
        own = token.split(".")[0]
        found = [h for h in PAGE_LINK.findall(page) if h.removeprefix("/play/").split(".")[0] != own]
        if not found:
            return []
        link = html.unescape(self.rng.choice(found))
        confirm = self._get(link.removeprefix("/play/"))
        if confirm is None:
            return []
        forms = [(html.unescape(a), dict(HIDDEN.findall(body))) for a, body in FORM.findall(confirm)]
        # the link's own confirm button, or its variants (moves posted to the page); not talk, time away …
        return [(a, f) for a, f in forms if a == link or (f.get("decision") and "do" in f)]


def run_load(base: str, players: list[Player], seconds: float, processes: int) -> tuple[Stats, float, float]:
    """All players at once for ``seconds`` (after a short unmeasured warm-up): merged stats, elapsed, client CPU.

    The players run as threads in ``processes`` forked processes, so that one interpreter lock does not
    queue sixteen players' page parsing behind each other (which would show as server latency).
    Each player's ``applied`` count comes back from its process.
    """
    ctx = multiprocessing.get_context("fork")
    groups = [players[i::processes] for i in range(processes) if players[i::processes]]
    barrier = ctx.Barrier(len(groups) + 1)
    stop = ctx.Event()
    results = ctx.SimpleQueue()
    procs = [ctx.Process(target=_load_process, args=(i, g, barrier, stop, results)) for i, g in enumerate(groups)]
    for proc in procs:
        proc.start()
    try:
        barrier.wait(TIMEOUT)
        t0 = time.perf_counter()
        time.sleep(seconds)
        stop.set()
        total, cpu = Stats(), 0.0
        for _ in groups:
            index, stats, applied, used = results.get()
            total.merge(stats)
            cpu += used
            for player, count in zip(groups[index], applied, strict=True):
                player.applied = count
        elapsed = time.perf_counter() - t0
    finally:
        for proc in procs:
            proc.join(TIMEOUT)
            if proc.is_alive():
                proc.kill()
    return total, elapsed, cpu


def _load_process(index: int, players: list[Player], barrier: Any, stop: Any, results: Any) -> None:
    """One load process: its players as threads; sends back (index, stats, applied counts, CPU seconds)."""
    local = threading.Barrier(len(players) + 1)

    def loop(player: Player) -> None:
        for _ in range(2):
            player.step()
        player.stats = Stats()
        local.wait()
        while not stop.is_set() and player.todo:
            player.step()

    threads = [threading.Thread(target=loop, args=(p,), daemon=True) for p in players]
    for t in threads:
        t.start()
    local.wait()
    barrier.wait(TIMEOUT)
    cpu0 = time.process_time()
    for t in threads:
        t.join()
    total = Stats()
    for p in players:
        total.merge(p.stats)
    results.put((index, total, [p.applied for p in players], time.process_time() - cpu0))


# ---------------------------------------------------------------------------------------------- server


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def gunicorn(
    url: str, key: str, port: int, workdir: Path, args: argparse.Namespace
) -> Iterator[subprocess.Popen[bytes]]:
    """gunicorn on 127.0.0.1:port with ``args.workers`` workers; stopped (and waited for) on exit."""
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_SECRET_KEY": key,
        "PBEM_ENV": "production",
        "PBEM_SERVER_NAME": f"127.0.0.1:{port}",
        "PBEM_TRUSTED_HOSTS": json.dumps(["127.0.0.1"]),
        # Moves queue their emails in the outbox as in production; no sender runs during the benchmark.
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_PREFERRED_URL_SCHEME": "https",  # links say https; the load posts to the relative form actions
        "PBEM_RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",  # production refuses per-worker memory (unused here)
    }
    log = open(workdir / f"gunicorn-{port}.log", "wb")  # noqa: SIM115 (closed below)
    command = [
        str(GUNICORN),
        *("-c", str(ROOT / "config" / "gunicorn.conf.py"), "-w", str(args.workers), "-b", f"127.0.0.1:{port}"),
        "--no-control-socket",
        *shlex.split(args.gunicorn_args),
        args.app,
    ]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


def wait_ready(base: str, token: str, proc: subprocess.Popen[bytes]) -> None:
    """Until the server answers a page (or fail if gunicorn died)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode}")
        try:
            if requests.get(f"{base}/play/{token}", timeout=2).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):  # not listening yet, or its workers still booting
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer within 30 s")


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (all processes), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process and its direct children, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


# ---------------------------------------------------------------------------------------------- one run


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) in milliseconds; NaN if empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


@dataclass
class Report:
    """What one database's run measured."""

    label: str
    seed_rows: int = 0
    seed_seconds: float = 0.0
    load: Stats = field(default_factory=Stats)
    elapsed: float = 0.0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    machine_cpu: float = 0.0
    by_length: dict[str, tuple[int, Stats]] = field(default_factory=dict)
    consistent: bool = False
    posted: int = 0
    applied: int = 0
    server_errors: list[str] = field(default_factory=list)


def run_database(label: str, url: str, args: argparse.Namespace, workdir: Path) -> Report:
    """Seed, serve, load and measure one database."""
    report = Report(label)
    port = free_port()
    key = "bench-" + secrets.token_urlsafe(32)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": key, "SERVER_NAME": f"127.0.0.1:{port}"})
    eng: Engine = app.extensions["pbem_engine"]
    try:
        with app.app_context():
            db.upgrade(db.get_engine())
        print(f"[{label}] seeding {args.finished} finished games …", flush=True)
        report.seed_rows, report.seed_seconds = seed_finished(eng, args.finished, args.game)
        print(
            f"[{label}] {report.seed_rows} move rows in {report.seed_seconds:.1f} s; creating active games", flush=True
        )
        game = args.game
        active = [
            create_active(app, f"Bench {i}", 10_000 + i, game) for i in range(args.players * args.games_per_player)
        ]
        seeds = long_seeds(2 * args.length_games, args.late_ply + min(60, args.late_ply // 4), game)
        early = [
            create_active(app, f"Early {i}", s, game, args.early_ply) for i, s in enumerate(seeds[: args.length_games])
        ]
        late = [
            create_active(app, f"Late {i}", s, game, args.late_ply) for i, s in enumerate(seeds[args.length_games :])
        ]
        with app.app_context():
            before = {gid: seat_rows.get_game(session=db.get_session(), game_id=gid).version for gid in active}
        seatings = _seatings(app, [*active, *early, *late])
        base = f"http://127.0.0.1:{port}"
        with gunicorn(url, key, port, workdir, args) as proc:
            wait_ready(base, seatings[active[0]].tokens[NAMES[0]], proc)
            per = args.games_per_player
            players = [
                Player(base, [seatings[g] for g in active[i * per : (i + 1) * per]], seed=i)
                for i in range(args.players)
            ]
            print(f"[{label}] {args.players} players for {args.seconds:.0f} s on {base}", flush=True)
            cpu0, machine0 = cpu_seconds(proc.pid), machine_busy()
            report.load, report.elapsed, report.client_cpu = run_load(base, players, args.seconds, args.load_processes)
            report.server_cpu = cpu_seconds(proc.pid) - cpu0
            report.machine_cpu = machine_busy() - machine0
            report.posted = sum(p.applied for p in players)
            print(f"[{label}] one client: ply ~{args.early_ply} against ply ~{args.late_ply}", flush=True)
            report.by_length = _by_length(app, base, seatings, early, late, args.length_moves)
        report.server_errors = _server_errors(workdir / f"gunicorn-{port}.log")
        with app.app_context():
            session = db.get_session()
            after = {gid: seat_rows.get_game(session=session, game_id=gid).version for gid in active}
            report.applied = sum(after[g] - before[g] for g in active)
            report.consistent = all(games.verify_game(session=session, game_id=g) for g in [*active, *early, *late])
    finally:
        eng.dispose()
    return report


def _seatings(app: Flask, game_ids: list[int]) -> dict[int, Seating]:
    out = {}
    with app.test_request_context():
        session = db.get_session()
        for gid in game_ids:
            seats = seat_rows.seats_of(session=session, game_id=gid)
            out[gid] = Seating(gid, {s.name: links.personal_token(gid, s.position, s.nonce) for s in seats})
    return out


def _by_length(
    app: Flask, base: str, seatings: dict[int, Seating], early: list[int], late: list[int], moves: int
) -> dict[str, tuple[int, Stats]]:
    """One client, one move at a time, alternating early and late games: POST latencies, mean log length."""
    groups = {"early": early, "late": late}
    clients = {name: [Player(base, [seatings[g]], seed=g) for g in ids] for name, ids in groups.items()}
    for client in [c for group in clients.values() for c in group]:  # warm-up, unmeasured
        client.step()
        client.stats = Stats()
    for i in range(moves):
        for group in clients.values():
            group[i % len(group)].step()
    out: dict[str, tuple[int, Stats]] = {}
    with app.app_context():
        session = db.get_session()
        for name, ids in groups.items():
            stats = Stats()
            for client in clients[name]:
                stats.merge(client.stats)
            rows = [len(games.move_log(session=session, game_id=g)) for g in ids]
            out[name] = (sum(rows) // len(rows), stats)
    return out


def _server_errors(log: Path) -> list[str]:
    lines = log.read_text(errors="replace").splitlines()
    return [line for line in lines if "Traceback" in line or "locked" in line or "ERROR" in line]


# ---------------------------------------------------------------------------------------------- output


def print_reports(reports: list[Report], args: argparse.Namespace) -> None:
    """The tables and the targets."""
    print()
    print(
        f"Load: {args.players} players, each playing its own games of {args.game}; "
        f"gunicorn -c config/gunicorn.conf.py -w {args.workers} "
        f"{args.gunicorn_args + ' ' if args.gunicorn_args else ''}{args.app}; {os.cpu_count()} CPUs"
    )
    print(f"{args.finished} finished games seeded per database; a move = one confirmed POST (303), timed alone")
    head = (
        f"{'database':<11}{'seed':>9}{'moves':>8}{'moves/s':>9}{'POST p50':>10}{'p90':>8}{'p99':>8}"
        f"{'GET p50':>9}{'p99':>8}{'srv ms/mv':>10}{'errors':>8}{'log=snap':>9}"
    )
    print(head)
    print("-" * len(head))
    for r in reports:
        moves = len(r.load.post)
        rate = moves / r.elapsed if r.elapsed else 0.0
        print(
            f"{r.label:<11}{r.seed_seconds:>8.1f}s{moves:>8}{rate:>9.0f}{pct(r.load.post, 50):>8.1f}ms"
            f"{pct(r.load.post, 90):>8.1f}{pct(r.load.post, 99):>8.1f}{pct(r.load.get, 50):>9.1f}"
            f"{pct(r.load.get, 99):>8.1f}{1000 * r.server_cpu / max(moves, 1):>10.1f}"
            f"{len(r.load.errors) + len(r.server_errors):>8}{'yes' if r.consistent else 'NO':>9}"
        )
    print(
        "srv ms/mv: CPU time of the gunicorn workers per move (page GETs included). CPU cores in use during the load:"
    )
    for r in reports:
        others = max(0.0, r.machine_cpu - r.server_cpu - r.client_cpu)
        print(
            f"  {r.label}: gunicorn {r.server_cpu / r.elapsed:.2f}, load client {r.client_cpu / r.elapsed:.2f}, "
            f"everything else (database server, other programs) {others / r.elapsed:.2f} of {os.cpu_count()}"
        )
    print()
    print("Cost of a move against the game's log length (one client, no concurrency)")
    head2 = f"{'database':<11}{'game at':>10}{'log rows':>10}{'POSTs':>7}{'POST p50':>10}{'p90':>8}{'p99':>8}"
    print(head2)
    print("-" * len(head2))
    for r in reports:
        for name, ply in (("early", args.early_ply), ("late", args.late_ply)):
            rows, stats = r.by_length[name]
            print(
                f"{r.label:<11}{'ply ~' + str(ply):>10}{rows:>10}{len(stats.post):>7}{pct(stats.post, 50):>8.1f}ms"
                f"{pct(stats.post, 90):>8.1f}{pct(stats.post, 99):>8.1f}"
            )
    print()
    for r in reports:
        moves = len(r.load.post)
        p99, rate = pct(r.load.post, 99), moves / r.elapsed if r.elapsed else 0.0
        verdict = "met" if p99 <= 50 else "MISSED"
        print(f"target p99 <= 50 ms at {args.players} players, {r.label}: {p99:.1f} ms -> {verdict}")
        if r.label == "sqlite":
            print(f"target >= 300 moves/s, sqlite: {rate:.0f} -> {'met' if rate >= 300 else 'MISSED'}")
        if r.applied != r.posted:
            print(f"!! {r.label}: {r.posted} POSTs answered 303 but the versions rose by {r.applied}")
        for problem in [*r.load.errors[:5], *r.server_errors[:5]]:
            print(f"!! {r.label}: {problem}")


# ---------------------------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (the defaults are the benchmark's)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument(
        "--game",
        default=os.environ.get("PBEM_BENCH_GAME") or DEFAULT_GAME,
        choices=sorted(engine.GAMES),
        help="the game played (default: $PBEM_BENCH_GAME, else call-to-glory)",
    )
    p.add_argument("--players", type=int, default=16)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--load-processes", type=int, default=4, help="processes the players' threads are spread over")
    p.add_argument("--finished", type=int, default=10_000, help="finished games seeded first")
    p.add_argument("--games-per-player", type=int, default=3)
    p.add_argument("--early-ply", type=int, default=5)
    p.add_argument("--late-ply", type=int, default=None, help="default: 500 (Call to Glory), 90 (Call to Adventure)")
    p.add_argument("--length-games", type=int, default=6, help="games at each ply for the log-length test")
    p.add_argument("--length-moves", type=int, default=200, help="POSTs on each side of the log-length test")
    p.add_argument("--skip-postgres", action="store_true")
    p.add_argument("--app", default="pbem:create_app()", help="the WSGI app for gunicorn (for what-if runs)")
    p.add_argument("--gunicorn-args", default="", help="more gunicorn options, e.g. '-k gthread --threads 2'")
    p.add_argument("--postgres-url", default=os.environ.get("PBEM_BENCH_POSTGRES_URL") or DEFAULT_PG)
    args = p.parse_args(argv)
    if args.late_ply is None:
        args.late_ply = LATE_PLY.get(args.game, 500)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark on SQLite, then PostgreSQL; print the tables; clean up."""
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the finally blocks run
    workdir = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    reports: list[Report] = []
    try:
        reports.append(run_database("sqlite", f"sqlite:///{workdir / 'bench.sqlite3'}", args, workdir))
        if not args.skip_postgres:
            with postgres_schema(args.postgres_url) as url:
                reports.append(run_database("postgresql", url, args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print_reports(reports, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
