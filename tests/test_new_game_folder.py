"""A third game is two new folders and nothing else: a copy of the project gains ``engine/tiny_game/`` (the test
game of ``tests/games/pick_a_number.py`` under another key) and ``templates/games/tiny-game/``; without a change to
any other file the engine registers it, the server plays it, and the import contracts cover it: a game that
imports another game, or a server module that imports the game, breaks them."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("engine", "pbem", "templates", "config", "pyproject.toml", "babel.cfg")

SERVER_PLAYS = textwrap.dedent(
    """
    import sys
    import engine
    from pbem import create_app, db, flows
    from pbem.core import games, seats

    assert "tiny-game" in engine.GAMES, sorted(engine.GAMES)
    app = create_app({"TESTING": True, "DATABASE_URL": sys.argv[1], "SECRET_KEY": "k" * 40})
    with app.app_context():
        db.upgrade(db.get_engine())
        with db.write_session() as session:
            specs = [games.SeatSpec("ann", kind="random"), games.SeatSpec("bob", kind="heuristic")]
            game = flows.games.create(session=session, name="Third", seats=specs, game="tiny-game", seed=1)
            game_id = game.id
        with db.write_session() as session:
            stored = seats.get_game(session=session, game_id=game_id)
            assert stored.status == "finished", stored.status
            assert games.verify_game(session=session, game_id=game_id)
    page = app.test_client().get("/how-to-play/tiny-game")
    assert page.status_code == 200 and "Tiny game" in page.text, page.status_code
    print("played")
    """
)


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project with a third game in its two folders."""
    root = tmp_path_factory.mktemp("project")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, root / name)
    package = root / "engine" / "tiny_game"
    package.mkdir()
    game = (ROOT / "tests" / "games" / "pick_a_number.py").read_text()
    game = game.replace('key = "pick-a-number"', 'key = "tiny-game"').replace('"pick-a-number/', '"tiny-game/')
    game = game.replace('title = "Pick a Number"', 'title = "Tiny game"')
    (package / "__init__.py").write_text(game)
    folder = root / "templates" / "games" / "tiny-game"
    folder.mkdir()
    (folder / "how_to_play.html").write_text("<p>Tiny game: pick a number nobody else picks.</p>\n")
    return root


def _run(copy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(copy), "PATH": str(Path(sys.executable).parent), "HOME": str(copy)}
    return subprocess.run(args, cwd=copy, env=env, capture_output=True, text=True, timeout=300)


def test_the_engine_registers_it_and_the_server_plays_it(copy: Path, tmp_path: Path) -> None:
    result = _run(copy, sys.executable, "-c", SERVER_PLAYS, f"sqlite:///{tmp_path / 'third.sqlite3'}")
    assert result.returncode == 0 and "played" in result.stdout, result.stderr[-3000:]


def test_the_import_contracts_cover_it_without_naming_it(copy: Path) -> None:
    linter = str(Path(sys.executable).with_name("lint-imports"))
    kept = _run(copy, linter, "--no-cache")
    assert kept.returncode == 0, kept.stdout[-3000:]
    game = copy / "engine" / "tiny_game" / "__init__.py"
    server = copy / "pbem" / "timing.py"
    original_game, original_server = game.read_text(), server.read_text()
    try:
        game.write_text(original_game + "\nfrom engine.call_to_glory import cards  # a game that imports another\n")
        broken = _run(copy, linter, "--no-cache")
        assert broken.returncode != 0 and "Each game is a library of its own" in broken.stdout
        assert "engine.tiny_game" in broken.stdout, broken.stdout[-3000:]
        game.write_text(original_game)
        server.write_text(original_server + "\nfrom engine.tiny_game import Pick  # the server names a game\n")
        broken = _run(copy, linter, "--no-cache")
        assert broken.returncode != 0 and "The server knows games only through" in broken.stdout, broken.stdout[-3000:]
    finally:
        game.write_text(original_game)
        server.write_text(original_server)
