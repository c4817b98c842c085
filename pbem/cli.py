"""Command line: ``pbem db-upgrade``, ``create-game``, ``list-games``, ``links``, ``demo``."""

from __future__ import annotations

import click
from flask import Flask
from flask.cli import FlaskGroup, with_appcontext
from sqlmodel import col, select

import engine

from . import db, games, links
from .models import Game


def register(app: Flask) -> None:
    """Add the pbem commands to the app's CLI."""
    for command in (db_upgrade, create_game, list_games, print_links, demo):
        app.cli.add_command(command)


def _personal_url(game_id: int, seat: int, nonce: str) -> str:
    return links.external_url("play.page", token=links.personal_token(game_id, seat, nonce))


@click.command("db-upgrade")
@with_appcontext
def db_upgrade() -> None:
    """Create or update the database schema (Alembic migrations)."""
    db.upgrade(db.get_engine())
    click.echo(f"database is up to date: {db.get_engine().url.render_as_string(hide_password=True)}")


def _parse_player(text: str) -> games.SeatSpec:
    """'Ann <ann@example.com>', 'Ann', or 'bot:heuristic' / 'bot:random' (named Bot 1 …)."""
    if text.startswith("bot:"):
        kind = text[4:]
        return games.SeatSpec(name="", kind=kind)
    name, _, rest = text.partition("<")
    email = rest.rstrip(">").strip() or None
    return games.SeatSpec(name=name.strip(), email=email)


@click.command("create-game")
@click.option("--name", required=True, help="the game's name")
@click.option("--player", "players", multiple=True, required=True, help="'Ann <ann@example.com>' or 'bot:heuristic'")
@click.option("--rounds", type=int, default=None)
@click.option("--imperial-tasks", is_flag=True)
@click.option("--ninja-power", is_flag=True)
@click.option("--random-order", is_flag=True, help="shuffle the seats")
@click.option("--first-player", default=None, help="name of the round-1 start player (default: the first seat)")
@with_appcontext
def create_game(
    name: str,
    players: tuple[str, ...],
    rounds: int | None,
    imperial_tasks: bool,
    ninja_power: bool,
    random_order: bool,
    first_player: str | None,
) -> None:
    """Create a game and print each seat's personal link."""
    specs = [_parse_player(p) for p in players]
    bots = 0
    for spec in specs:
        if spec.kind != "human":
            bots += 1
            spec.name = f"Bot {bots}"
    options = engine.Options(rounds=rounds, imperial_tasks=imperial_tasks, ninja_power=ninja_power)
    try:
        with db.write_session() as session:
            game = games.create_game(
                session=session,
                name=name,
                seats=specs,
                options=options,
                random_order=random_order,
                first_player=first_player,
            )
            game_id = game.id or 0
    except games.ServiceError as exc:
        raise click.ClickException(exc.message) from None
    _echo_links(game_id)


def _echo_links(game_id: int) -> None:
    session = db.get_session()
    game = games.get_game(session=session, game_id=game_id)
    click.echo(f"game {game_id}: {game.name} ({game.status})")
    for seat in games.seats_of(session=session, game_id=game_id):
        who = f"{seat.name} <{seat.email}>" if seat.email else seat.name
        if seat.is_bot:
            click.echo(f"  seat {seat.position + 1}: {who} (bot: {seat.kind})")
        else:
            click.echo(f"  seat {seat.position + 1}: {who}\n    {_personal_url(game_id, seat.position, seat.nonce)}")


@click.command("list-games")
@click.option("--status", default=None, help="playing, revealing or finished")
@with_appcontext
def list_games(status: str | None) -> None:
    """List the games, newest first."""
    query = select(Game).order_by(col(Game.id).desc())
    if status:
        query = query.where(Game.status == status)
    for game in db.get_session().exec(query):
        state = games.load_state(game)
        turn = state.current_player or "-"
        click.echo(f"{game.id:>6}  {game.status:<9}  round {state.round}  to act: {turn:<12}  {game.name}")


@click.command("links")
@click.argument("game_id", type=int)
@with_appcontext
def print_links(game_id: int) -> None:
    """Print each seat's personal link."""
    try:
        _echo_links(game_id)
    except games.ServiceError as exc:
        raise click.ClickException(exc.message) from None


@click.command("demo")
@click.option("--name", default="Demo: you against two bots")
@with_appcontext
def demo(name: str) -> None:
    """Create a 3-player demo game (you against two bots) and print your link."""
    specs = [
        games.SeatSpec(name="You"),
        games.SeatSpec(name="Bot 1", kind="heuristic"),
        games.SeatSpec(name="Bot 2", kind="heuristic"),
    ]
    with db.write_session() as session:
        game = games.create_game(session=session, name=name, seats=specs)
        game_id = game.id or 0
    seat = games.seats_of(session=db.get_session(), game_id=game_id)[0]
    click.echo(f"\nDemo game {game_id} created. Open your page:\n\n  {_personal_url(game_id, 0, seat.nonce)}\n")


def main() -> None:
    """Entry point of the ``pbem`` command."""
    from . import create_app

    FlaskGroup(create_app=create_app)()
