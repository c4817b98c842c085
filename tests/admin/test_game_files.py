"""A card set of the organiser's own: a file in the server's folder for the game (GAME_FILES/<game key>/), offered
by the new-game form and by ``pbem create-game --option card_set=file:NAME``, checked by the game's loader with its
message next to the field, and kept in the game's options so that the game replays from them."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from engine.call_to_adventure.files import packaged_set
from pbem import db
from pbem.core import games
from pbem.models import Game

from .conftest import count
from .test_any_game import POLICY, REFUSED, create, field_error, seats, stored

KEY = "call-to-adventure"
TWO_BOTS = ("--game", KEY, "--player", "bot:random", "--player", "bot:random")
BOTS = POLICY | seats([("heuristic", "", ""), ("random", "", "")], 4)


@pytest.fixture
def folder(app: Flask, tmp_path: Path) -> Path:
    """The server's folder of game files, with a valid card set (``club.toml``, the starter set renamed) and a
    broken one (``broken.toml``) for Call to Adventure."""
    app.config["GAME_FILES"] = str(tmp_path)
    place = tmp_path / KEY
    place.mkdir()
    text = packaged_set("starter").text.replace('id = "starter"', 'id = "club"', 1)
    assert 'id = "club"' in text
    (place / "club.toml").write_text(text, encoding="utf-8")
    (place / "broken.toml").write_text(text.replace('abilities = ["constitution"]', 'abilities = ["luck"]', 1))
    (place / "notes.txt").write_text("not a card set")
    (tmp_path / "secret.toml").write_text(text)
    return tmp_path


def test_the_form_offers_the_files_of_the_games_folder(folder: Path, admin_client: FlaskClient) -> None:
    page = admin_client.get(f"/admin/games/new?game={KEY}").get_data(as_text=True)
    assert 'value="file:club.toml"' in page and "club.toml (file)" in page
    assert 'value="file:broken.toml"' in page
    assert "notes.txt" not in page, "only files with the option's ending"
    assert "secret.toml" not in page, "only the game's own folder"


def test_a_game_with_a_card_set_file(app: Flask, folder: Path, admin_client: FlaskClient) -> None:
    status, path = create(admin_client, KEY, BOTS | {"options-card_set": "file:club.toml"})
    assert status == 303, path
    game, _seated = stored(app, path)
    assert game.options["card_set"]["source"] == "club.toml"
    assert 'id = "club"' in game.options["card_set"]["text"], "the text is kept: the game replays from its options"
    assert game.state["card_set"]["source"] == "club.toml"
    page = admin_client.get(path).get_data(as_text=True)
    assert "the file club.toml" in page, "the options in words name the file"
    (folder / KEY / "club.toml").unlink()
    with app.app_context():
        assert games.verify_game(session=db.get_session(), game_id=game.id or 0), "replays without the file"


def test_a_broken_card_set_file_is_refused_next_to_its_field(
    app: Flask, folder: Path, admin_client: FlaskClient
) -> None:
    status, page = create(admin_client, KEY, BOTS | {"options-card_set": "file:broken.toml"})
    assert status == REFUSED and count(app, Game) == 0
    message = field_error(page, "options-card_set")
    assert message.startswith("broken.toml: card ") and "unknown icon 'luck'" in message, message


@pytest.mark.parametrize("value", ["file:../secret.toml", "file:notes.txt", "file:gone.toml", "file:"])
def test_no_other_file_can_be_named(app: Flask, folder: Path, admin_client: FlaskClient, value: str) -> None:
    status, page = create(admin_client, KEY, BOTS | {"options-card_set": value})
    assert status == REFUSED and count(app, Game) == 0
    assert field_error(page, "options-card_set"), page[:2000]
    result = app.test_cli_runner().invoke(
        args=["create-game", "--name", "x", *TWO_BOTS, "--option", f"card_set={value}"]
    )
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "Card set: there is no file" in result.output, result.output
    assert count(app, Game) == 0


def test_the_command_line_takes_a_card_set_file(app: Flask, folder: Path) -> None:
    runner = app.test_cli_runner()
    kinds = runner.invoke(args=["list-games", "--kinds"])
    assert f"or file:NAME.toml from {folder / KEY}" in kinds.output, kinds.output
    result = runner.invoke(
        args=["create-game", "--name", "Club night", *TWO_BOTS, "--option", "card_set=file:club.toml"]
    )
    assert result.exit_code == 0, result.output
    broken = runner.invoke(args=["create-game", "--name", "x", *TWO_BOTS, "--option", "card_set=file:broken.toml"])
    assert broken.exit_code != 0 and "broken.toml: card " in broken.output and "Traceback" not in broken.output
    with app.app_context():
        (game,) = db.get_session().exec(select(Game)).all()
        assert game.name == "Club night" and game.options["card_set"]["source"] == "club.toml"


def test_symbolic_links_in_the_folder_are_not_followed(app: Flask, folder: Path, admin_client: FlaskClient) -> None:
    """A link in the game's folder (to a file anywhere the server may read, or the game's folder itself a link) is
    neither offered nor read."""
    (folder / KEY / "linked.toml").symlink_to(folder / "secret.toml")
    page = admin_client.get(f"/admin/games/new?game={KEY}").get_data(as_text=True)
    assert "linked.toml" not in page and "club.toml" in page
    status, _body = create(admin_client, KEY, BOTS | {"options-card_set": "file:linked.toml"})
    assert status == 200, "the form again, with the field's error"
    elsewhere = folder.parent / f"{folder.name}-elsewhere"
    (folder / KEY).rename(elsewhere)
    (folder / KEY).symlink_to(elsewhere, target_is_directory=True)
    page = admin_client.get(f"/admin/games/new?game={KEY}").get_data(as_text=True)
    assert "club.toml" not in page
