"""The deployment recipe, run here as far as this machine allows: the exact commands of deploy/*.service (parsed
from the unit files, with the example environment file) start against PostgreSQL and a player's move goes through
them; ``pbem doctor`` passes on that configuration and names what breaks; ``systemd-analyze verify`` accepts the
units. (systemd itself, TLS and the proxies cannot run in a test: docs/deployment.md says so.)"""

from __future__ import annotations

import json
import random
import shlex
import shutil
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from aiosmtpd.controller import Controller
from flask import Flask
from sqlmodel import select

from engine import call_to_glory as glory
from pbem import db
from pbem.core import games
from pbem.models import OutboxEmail
from tests.apps import ROOT, form_fields, free_port, new_table
from tests.mail.conftest import SMTPServer

DEPLOY = ROOT / "deploy"
UNITS = ("pbem-web.service", "pbem-scheduler.service", "pbem-mail-in.service", "pbem-backup.service")


def unit(name: str) -> dict[str, list[str]]:
    """A unit file's settings (every value of each key, in order)."""
    found: dict[str, list[str]] = {}
    for line in (DEPLOY / name).read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def env_file(path: Path) -> dict[str, str]:
    """An EnvironmentFile's variables, read by the shell as the docs do (``set -a; . FILE``): the same values
    systemd reads (KEY=value lines, quotes removed)."""
    done = subprocess.run(
        ["sh", "-c", 'set -a; . "$0"; env -0', str(path)], env={}, capture_output=True, text=True, check=True
    )
    pairs = (item.split("=", 1) for item in done.stdout.split("\0") if item.startswith("PBEM_"))
    return dict(pairs)


def command(name: str, port: int) -> list[str]:
    """The unit's ExecStart, with the install folder /opt/pbem replaced by this checkout and the port by ``port``."""
    [exec_start] = unit(name)["ExecStart"]
    return [part.replace("/opt/pbem", str(ROOT)).replace(":8000", f":{port}") for part in shlex.split(exec_start)]


@pytest.fixture
def site(database_url: str, tmp_path: Path) -> Iterator[tuple[dict[str, str], SMTPServer, int]]:
    """The example environment file with this test's database, SMTP server, address and folders."""
    server = SMTPServer("127.0.0.1", free_port())
    controller = Controller(server, hostname=server.host, port=server.port)
    controller.start()
    port = free_port()
    env = env_file(DEPLOY / "pbem.env.example")
    assert env["PBEM_ENV"] == "production" and env["PBEM_MAIL_BACKEND"] == "smtp"
    env |= {
        "PATH": "/usr/bin:/bin",
        "PBEM_SECRET_KEY": "s" * 48,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_SERVER_NAME": f"127.0.0.1:{port}",
        "PBEM_TRUSTED_HOSTS": json.dumps(["127.0.0.1"]),
        "PBEM_GAME_FILES": str(tmp_path / "game-files"),
        "PBEM_MAIL_SERVER": server.host,
        "PBEM_MAIL_PORT": str(server.port),
        "PBEM_MAIL_USE_TLS": "false",
        "PBEM_MAIL_USERNAME": "",
        "PBEM_MAIL_PASSWORD": "",
        "PBEM_SCHEDULER_SEND_SECONDS": "1",
    }
    for name in ("pbem-web.service",):
        for setting in unit(name).get("Environment", []):
            key, value = setting.split("=", 1)
            env[key] = value.replace("/run/pbem-web", str(tmp_path / "run"))
    yield env, server, port
    controller.stop()


def unsent(app: Flask) -> int:
    """Emails the scheduler has not yet delivered."""
    with app.app_context():
        rows = db.get_session().exec(select(OutboxEmail.status)).all()
        db.drop_session()
    return sum(1 for status in rows if status in ("queued", "sending"))


def pbem(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ROOT / ".venv" / "bin" / "pbem"), *args], env=env, capture_output=True, text=True)


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_the_units_commands_serve_a_move_and_send_its_mail(
    app: Flask, site: tuple[dict[str, str], SMTPServer, int]
) -> None:
    env, server, port = site
    assert pbem(env, "db-upgrade").returncode == 0
    table = new_table(app, [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")], seed=1)
    app.config["SECRET_KEY"] = env["PBEM_SECRET_KEY"]  # links as the site signs them
    processes = [
        subprocess.Popen(command(name, port), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for name in ("pbem-web.service", "pbem-scheduler.service")
    ]
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if requests.get(f"{base}/readyz", timeout=10).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):
                pass
            assert time.monotonic() < deadline, "the site did not become ready"
            time.sleep(0.3)
        token = table.move_token(0, {"do": "draw", "pile": "draw1"})
        proxied = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}  # as Caddy or nginx sends it
        page = requests.get(f"{base}/play/{token}", headers=proxied, timeout=30)
        csrf, _decision = form_fields(page.text)
        cookie = "; ".join(f"{c.name}={c.value}" for c in page.cookies)  # a Secure cookie: the browser, over https
        made = requests.post(
            f"{base}/play/{token}",
            data={"csrf_token": csrf},
            headers=proxied | {"Cookie": cookie},
            allow_redirects=False,
            timeout=30,
        )
        assert made.status_code == 303, made.text
        assert table.moves_logged() == 1 and table.verify()
        while unsent(app) or len(server.messages) < 4:  # the invitations, and the emails the move caused
            assert time.monotonic() < deadline + 120, [m["Subject"] for m in server.messages]
            time.sleep(0.3)
        assert {m["To"] for m in server.messages} == {f"{n} <{n}@example.com>" for n in ("ann", "bob", "cy")}
        doctor = pbem(env, "doctor")
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        assert doctor.stdout.count("OK") == 7
        broken = pbem(env | {"PBEM_MAIL_PORT": str(free_port())}, "doctor")
        assert broken.returncode == 1 and "FIX  the SMTP server 127.0.0.1:" in broken.stdout
    finally:
        for proc in processes:
            proc.send_signal(signal.SIGTERM)
        outputs = [proc.communicate(timeout=60)[0].decode() for proc in processes]
    assert all(proc.returncode == 0 for proc in processes), outputs
    assert all("Traceback" not in out for out in outputs), outputs
    assert token not in "".join(outputs), "no link token in the services' logs"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_accepts_the_units() -> None:
    names = [str(DEPLOY / name) for name in (*UNITS, "pbem-backup.timer")]
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", *names], capture_output=True, text=True)
    problems = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if line.strip() and "/opt/pbem/.venv/bin/" not in line  # not installed on this machine
    ]
    assert problems == []


def test_every_unit_restarts_and_is_hardened() -> None:
    for name in ("pbem-web.service", "pbem-scheduler.service", "pbem-mail-in.service"):
        settings = unit(name)
        assert settings["Restart"] == ["always"] and settings["User"] == ["pbem"]
        assert settings["EnvironmentFile"] == ["/etc/pbem/pbem.env"]
        for key in ("NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp"):
            assert settings[key] in (["yes"], ["strict"]), (name, key)


def _ready(base: str, deadline: float) -> None:
    while True:
        try:
            if requests.get(f"{base}/readyz", timeout=10).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass
        assert time.monotonic() < deadline, f"{base} did not become ready"
        time.sleep(0.3)


def _play(base: str, token: str) -> int:
    """Open a move link and press its button, as a browser behind the proxy does; the POST's status."""
    proxied = {"X-Forwarded-Proto": "https"}
    page = requests.get(f"{base}/play/{token}", headers=proxied, timeout=60)
    csrf, _decision = form_fields(page.text)
    cookie = "; ".join(f"{c.name}={c.value}" for c in page.cookies)
    headers = proxied | {"Cookie": cookie}
    return requests.post(
        f"{base}/play/{token}", data={"csrf_token": csrf}, headers=headers, allow_redirects=False, timeout=60
    ).status_code


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_two_web_servers_and_two_schedulers_on_one_postgresql_double_nothing(
    app: Flask, site: tuple[dict[str, str], SMTPServer, int]
) -> None:
    """docs/scaling.md's layout on one machine: moves through either web server, the same move link pressed on both
    at once, two schedulers sending: every move once, every email once."""
    env, server, port = site
    assert pbem(env, "db-upgrade").returncode == 0
    table = new_table(app, [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")], seed=3)
    app.config["SECRET_KEY"] = env["PBEM_SECRET_KEY"]
    ports = [port, free_port()]
    units = [("pbem-web.service", p) for p in ports] + [("pbem-scheduler.service", port)] * 2
    processes = [
        subprocess.Popen(command(name, p), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for name, p in units
    ]
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    made = 0
    try:
        deadline = time.monotonic() + 120
        for base in bases:
            _ready(base, deadline)
        rng = random.Random(3)
        for turn in range(12):
            state = table.state()
            moves = [{k: v for k, v in m.to_json().items() if k != "player"} for m in glory.legal_moves(state)]
            token = table.move_token(state.current, rng.choice(moves))
            if turn % 3 == 0:  # the same button pressed on both servers at once
                with ThreadPoolExecutor(2) as pool:
                    statuses = list(pool.map(_play, bases, [token, token]))
                assert sorted(statuses) == [303, 303], statuses  # one made it, the other says "already played"
            else:
                assert _play(bases[turn % 2], token) == 303
            made += 1
            assert table.moves_logged() == made, "each move once"
        assert table.verify()
        while unsent(app):
            assert time.monotonic() < deadline + 180, "the schedulers did not deliver everything"
            time.sleep(0.3)
        time.sleep(3)  # a doubled email would arrive now
    finally:
        for proc in processes:
            proc.send_signal(signal.SIGTERM)
        outputs = [proc.communicate(timeout=60)[0].decode() for proc in processes]
    assert all("Traceback" not in out for out in outputs), outputs
    received = Counter(m["Message-ID"] for m in server.messages)
    with app.app_context():
        sent = {r for r in db.get_session().exec(select(OutboxEmail.message_id).where(OutboxEmail.status == "sent"))}
    assert set(received) == sent and max(received.values()) == 1, "every email once"
