"""The pbem command: create-game, list-games and links, with bad input refused in one line and no traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import Result
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import admin, db, timing
from pbem.core import seats
from pbem.models import AdminUser, Game

from .forge import TRACE

PBEM = Path(sys.executable).with_name("pbem")
URL = re.compile(r"https?://\S+")


def _cli(app: Flask, *args: str) -> Result:
    """Run a command as `pbem` would: FlaskGroup pushes an app context, app.cli alone does not."""
    with app.app_context():
        return app.test_cli_runner().invoke(args=list(args))


def _unstamped(output: str) -> list[str]:
    """The links without their signing time and signature (they differ from one second to the next)."""
    return [url.rsplit(".", 2)[0] for url in URL.findall(output)]


def _game_id(output: str) -> int:
    match = re.search(r"^game (\d+):", output, re.M)
    assert match, output
    return int(match.group(1))


def _assert_refused(result: Result, *words: str) -> None:
    assert result.exit_code not in (0, None), result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert not TRACE.search(result.output), result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error")]
    assert len(errors) == 1, result.output
    for word in words:
        assert word in errors[0], errors[0]


def test_create_list_and_links(app: Flask, client: FlaskClient) -> None:
    players = ["--player", "Ann <ann@example.com>", "--player", "Bob", "--player", "bot:heuristic"]
    result = _cli(app, "create-game", "--name", "Friday game", *players)
    assert result.exit_code == 0, result.output
    game_id = _game_id(result.output)
    urls = URL.findall(result.output)
    assert len(urls) == 2, "one link per person, none for the bot"
    assert "bot: heuristic" in result.output
    listing = _cli(app, "list-games")
    assert listing.exit_code == 0
    assert re.search(rf"^\s*{game_id}\s+call-to-glory\s+playing\b.*Friday game$", listing.output, re.M), listing.output
    assert _cli(app, "list-games", "--status", "finished").output.strip() == ""
    again = _cli(app, "links", str(game_id))
    assert again.exit_code == 0
    assert _unstamped(again.output) == _unstamped(result.output), "the same links while the nonce is unchanged"
    for url in urls:
        assert url.startswith(f"{app.config['PREFERRED_URL_SCHEME']}://{app.config['SERVER_NAME']}/play/")
        assert client.get(url.split(app.config["SERVER_NAME"], 1)[1]).status_code == 200


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--player", "Ann\nEvil", "--player", "Bob"], ["line breaks"]),
        (["--player", "An\rn", "--player", "Bob"], ["line breaks"]),
        (["--player", "Ann <ann@example.com\r\nBcc: x@evil.example>", "--player", "Bob"], []),
        (["--player", "Ann", "--player", "bot:alien"], ["alien"]),
        (["--player", "Ann", "--player", "bot:"], []),
        (["--player", "Ann"], ["2 to 4", "1"]),
        ([f"--player=P{i}" for i in range(5)], ["2 to 4", "5"]),
        (["--player", "Ann", "--player", "Ann"], ["different"]),
        (["--player", "", "--player", "Bob"], ["empty"]),
        (["--player", "A" * 200, "--player", "Bob"], ["at most"]),
        (["--player", "Ann <not-an-address>", "--player", "Bob"], ["email"]),
        (["--player", "Ann", "--player", "Bob", "--option", "rounds=0"], ["rounds"]),
        (["--player", "Ann", "--player", "Bob", "--option", "rounds=x"], ["rounds"]),
        (["--player", "Ann", "--player", "Bob", "--game", "chess"], ["chess"]),
        (["--player", "Ann", "--player", "Bob", "--option", "first_player=Zed"], ["Zed"]),
    ],
    ids=lambda v: repr(v)[:40],
)
def test_create_game_bad_input(app: Flask, args: list[str], words: list[str]) -> None:
    _assert_refused(_cli(app, "create-game", "--name", "G", *args), *words)
    assert _cli(app, "list-games").output.strip() == "", "no game was created"


@pytest.mark.parametrize("name", ["Game\nTwo", "", "x" * 500, "tab\there"])
def test_create_game_bad_name(app: Flask, name: str) -> None:
    _assert_refused(_cli(app, "create-game", "--name", name, "--player", "Ann", "--player", "Bob"))


def test_usage_errors_exit_non_zero(app: Flask) -> None:
    for args in (["create-game", "--name", "G"], ["create-game", "--name", "G", "--player", "A", "--option", "rounds"]):
        result = _cli(app, *args)
        assert result.exit_code == 2, result.output
        assert not TRACE.search(result.output)
    for args in (["links"], ["links", "abc"], ["links", "1", "2"]):
        result = _cli(app, *args)
        assert result.exit_code == 2, result.output


@pytest.mark.parametrize("game_id", ["999999", "0", "-1"])
def test_links_of_a_missing_game(app: Flask, game_id: str) -> None:
    _assert_refused(_cli(app, "links", "--", game_id), "no game")


# The installed command, as an organiser runs it -------------------------------------------------


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PBEM), *args], env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def pbem_env(database_url: str, tmp_path: Path) -> dict[str, str]:
    """The environment of a `pbem` process on a fresh, migrated database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_") and k != "DATABASE_URL"}
    env |= {"PBEM_DATABASE_URL": database_url, "PBEM_SECRET_KEY": "cli-key-" + "c" * 32, "HOME": str(tmp_path)}
    done = _run(env, "db-upgrade")
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout
    return env


def test_pbem_command(pbem_env: dict[str, str]) -> None:
    created = _run(pbem_env, "create-game", "--name", "By mail", "--player", "Ann <ann@example.com>", "--player", "Bob")
    assert created.returncode == 0, created.stderr
    game_id = _game_id(created.stdout)
    assert len(URL.findall(created.stdout)) == 2
    listing = _run(pbem_env, "list-games")
    assert listing.returncode == 0 and "By mail" in listing.stdout
    links = _run(pbem_env, "links", str(game_id))
    assert links.returncode == 0
    assert _unstamped(links.stdout) == _unstamped(created.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ["create-game", "--name", "G", "--player", "Ann\nEvil", "--player", "Bob"],
        ["create-game", "--name", "G", "--player", "Ann", "--player", "bot:alien"],
        ["create-game", "--name", "G", "--player", "Ann"],
        ["links", "4242"],
    ],
    ids=["newline", "bot-kind", "one-player", "no-game"],
)
def test_pbem_command_bad_input(pbem_env: dict[str, str], args: list[str]) -> None:
    done = _run(pbem_env, *args)
    assert done.returncode != 0
    assert not TRACE.search(done.stderr + done.stdout), done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr


@pytest.mark.parametrize("key", ["call-to-glory", "call-to-adventure"])
def test_the_demo_of_each_game_gives_a_playable_page(app: Flask, client: FlaskClient, key: str) -> None:
    result = _cli(app, "demo", "--game", key)
    assert result.exit_code == 0, result.output
    (url, *_mailbox) = URL.findall(result.output)
    page = client.get(urlsplit(url).path)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert ("Call to Adventure" if key == "call-to-adventure" else "Call to Glory") in text
    assert "you are <strong><bdi>Sam</bdi></strong>" in text, "the demo's player has a name, not 'You'"


def test_the_demo_refuses_an_unknown_game(app: Flask) -> None:
    _assert_refused(_cli(app, "demo", "--game", "chess"), "chess")


def test_create_game_sets_the_policy_and_each_seats_language_and_time_zone(app: Flask) -> None:
    result = _cli(
        app,
        "create-game",
        "--name",
        "Club night",
        "--player",
        "Ann Smith <ann@example.com> language=nl timezone=Europe/Amsterdam",
        "--player",
        "Bob <bob@example.com> timezone=America/New_York",
        "--player",
        "bot:heuristic",
        "--first-reminder-hours",
        "12",
        "--reminder-every-hours",
        "6",
        "--max-reminders",
        "2",
        "--deadline-hours",
        "none",
        "--at-deadline",
        "pause",
        "--absence-cap-days",
        "3",
    )
    assert result.exit_code == 0, result.output
    game_id = _game_id(result.output)
    with app.app_context():
        session = db.get_session()
        game = session.get(Game, game_id)
        assert game is not None
        assert timing.Policy.from_json(game.policy) == timing.Policy(12, 6, 2, None, "pause", 3)
        ann, bob, bot = seats.seats_of(session=session, game_id=game_id)
    assert (ann.name, ann.email) == ("Ann Smith", "ann@example.com")
    assert (ann.language, ann.timezone) == ("nl", "Europe/Amsterdam")
    assert (bob.language, bob.timezone) == ("en", "America/New_York") and bot.is_bot


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--player", "Ann language=xx", "--player", "Bob"], ["language"]),
        (["--player", "Ann timezone=Mars/Base", "--player", "Bob"], ["Mars/Base"]),
        (["--player", "Ann colour=red", "--player", "Bob"], ["language=CODE"]),
        (["--player", "Ann", "--player", "Bob", "--deadline-hours", "soon"], ["soon"]),
        (["--player", "Ann", "--player", "Bob", "--max-reminders", "99"], ["reminders"]),
        (["--player", "Ann", "--player", "Bob", "--first-reminder-hours", "0"], ["first reminder"]),
    ],
    ids=lambda v: repr(v)[:40],
)
def test_create_game_refuses_a_bad_seat_setting_or_policy(app: Flask, args: list[str], words: list[str]) -> None:
    _assert_refused(_cli(app, "create-game", "--name", "G", *args), *words)
    assert _cli(app, "list-games").output.strip() == "", "no game was created"


def test_list_games_shows_an_aborted_game_as_aborted(app: Flask) -> None:
    made = _cli(app, "create-game", "--name", "Stopped", "--player", "Ann", "--player", "Bob")
    game_id = _game_id(made.output)
    with app.app_context():
        runner = app.test_cli_runner()
        made_admin = runner.invoke(args=["create-admin", "org", "--password-stdin"], input="a secret 123\n")
        assert made_admin.exit_code == 0, made_admin.output
        with db.write_session() as session:
            org = session.exec(select(AdminUser)).one()
            admin.abort_game(session=session, game_id=game_id, actor=admin.Actor(id=org.id or 0, name=org.username))
    listing = _cli(app, "list-games").output
    assert re.search(rf"^\s*{game_id}\s+call-to-glory\s+aborted\s+waiting for: -\s+Stopped$", listing, re.M), listing
    assert _cli(app, "list-games", "--status", "playing").output.strip() == ""
    assert str(game_id) in _cli(app, "list-games", "--status", "aborted").output
