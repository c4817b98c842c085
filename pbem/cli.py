"""Command line: ``pbem db-upgrade``, ``create-game``, ``list-games``, ``links``, ``demo``."""

from __future__ import annotations

import click
from flask import Flask, current_app
from flask.cli import with_appcontext
from flask_babel import gettext as _
from sqlmodel import col, select

import engine

from . import admin, config, db, i18n
from .core import games, links, seats
from .core.errors import ServiceError
from .flows import games as game_flows
from .mail.sender import send_due
from .models import Game
from .scheduler import jobs


def register(app: Flask) -> None:
    """Add the pbem commands to the app's CLI."""
    for command in (db_upgrade, create_game, list_games, print_links, demo, send_mail, create_admin):
        app.cli.add_command(command)
    for command in (jobs.scheduler_command, jobs.serve_command):
        app.cli.add_command(command)
    app.cli.add_command(i18n_group)


def _personal_url(game_id: int, seat: int, nonce: str) -> str:
    return links.external_url("play.page", token=links.personal_token(game_id, seat, nonce))


@click.command("db-upgrade")
@with_appcontext
def db_upgrade() -> None:
    """Create or update the database schema (Alembic migrations)."""
    db.upgrade(db.get_engine())
    click.echo(_("database is up to date: %(url)s", url=db.get_engine().url.render_as_string(hide_password=True)))


def _parse_player(text: str) -> games.SeatSpec:
    """'Ann <ann@example.com>', 'Ann', or 'bot:heuristic' / 'bot:random' (named Bot 1 …)."""
    if text.startswith("bot:"):
        kind = text[4:]
        return games.SeatSpec(name="", kind=kind)
    name, _, rest = text.partition("<")
    email = rest.rstrip(">").strip() or None
    return games.SeatSpec(name=name.strip(), email=email)


def _parse_option(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise click.BadParameter(_("%(text)r: write an option as NAME=VALUE", text=text), param_hint="--option")
    return name.strip(), value


@click.command("create-game")
@click.option("--name", required=True, help="the game's name")
@click.option(
    "--game", "game_key", default=games.DEFAULT_GAME, show_default=True, help="which game (see list-games --kinds)"
)
@click.option("--player", "players", multiple=True, required=True, help="'Ann <ann@example.com>' or 'bot:heuristic'")
@click.option("--option", "options", multiple=True, help="a game option as NAME=VALUE (repeat); see list-games --kinds")
@click.option("--random-order", is_flag=True, help="shuffle the seats")
@click.option("--organiser", default=None, help="the organiser's email address (told when a player leaves …)")
@with_appcontext
def create_game(
    name: str,
    game_key: str,
    players: tuple[str, ...],
    options: tuple[str, ...],
    random_order: bool,
    organiser: str | None,
) -> None:
    """Create a game and print each seat's personal link."""
    specs = [_parse_player(p) for p in players]
    bots = 0
    for spec in specs:
        if spec.kind != games.HUMAN:
            bots += 1
            spec.name = f"Bot {bots}"
    try:
        rules = games.rules_of(game_key)
        values = games.option_values(rules, dict(_parse_option(o) for o in options), config.game_files(current_app))
        with db.write_session() as session:
            game = game_flows.create(
                session=session,
                name=name,
                seats=specs,
                game=rules.key,
                options=values,
                random_order=random_order,
                organiser_email=organiser,
            )
            game_id = game.id or 0
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    _echo_links(game_id)


def _echo_links(game_id: int) -> None:
    session = db.get_session()
    game = seats.get_game(session=session, game_id=game_id)
    click.echo(_("game %(id)d: %(name)s (%(status)s)", id=game_id, name=game.name, status=game.status))
    for seat in seats.seats_of(session=session, game_id=game_id):
        who = f"{seat.name} <{seat.email}>" if seat.email else seat.name
        if seat.is_bot:
            click.echo(
                "  " + _("seat %(number)d: %(who)s (bot: %(kind)s)", number=seat.position + 1, who=who, kind=seat.kind)
            )
        else:
            click.echo("  " + _("seat %(number)d: %(who)s", number=seat.position + 1, who=who))
            click.echo(f"    {_personal_url(game_id, seat.position, seat.nonce)}")


@click.command("list-games")
@click.option("--status", default=None, help="playing or finished")
@click.option("--kinds", is_flag=True, help="list the games this server has, with their options and bots, instead")
@with_appcontext
def list_games(status: str | None, kinds: bool) -> None:
    """List the games, newest first (or, with --kinds, the games this server can host)."""
    if kinds:
        for rules in engine.GAMES.values():
            click.echo(f"{rules.key}: {rules.title}, {rules.min_players}-{rules.max_players} players")
            click.echo(f"  bots: {', '.join(rules.bots)}")
            for option in rules.option_fields:
                values = f" ({', '.join(c for c, _label in option.choices if c)})" if option.choices else ""
                if option.files:
                    values += f" or file:NAME{option.files} from {config.game_files(current_app) / rules.key}"
                click.echo(f"  --option {option.name}=<{option.kind}{values}>  {option.label}")
        return
    query = select(Game).order_by(col(Game.id).desc())
    if status:
        query = query.where(Game.status == status)
    for game in db.get_session().exec(query):
        rules = games.rules_of(game)
        waiting = ", ".join(rules.waiting_for(rules.from_json(game.state))) or "-"
        click.echo(f"{game.id:>6}  {game.game:<18} {game.status:<9}  waiting for: {waiting:<20}  {game.name}")


@click.command("links")
@click.argument("game_id", type=int)
@with_appcontext
def print_links(game_id: int) -> None:
    """Print each seat's personal link."""
    try:
        _echo_links(game_id)
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None


DEMO_PLAYER = "Sam"
"""The demo's player: a name (the emails greet them by it, and "You" would read "Your turn, You")."""


@click.command("demo")
@click.option("--name", default=None, help="the game's name (default: 'Demo: you against two bots', with the game)")
@click.option(
    "--game",
    "game_key",
    type=click.Choice(sorted(engine.GAMES)),
    default=games.DEFAULT_GAME,
    show_default=True,
    help="which game",
)
@with_appcontext
def demo(name: str | None, game_key: str) -> None:
    """Create a 3-player demo game (you against two bots) and print your link and where your emails are."""
    rules = games.rules_of(game_key)
    bot = games.default_bot(rules)
    specs = [
        games.SeatSpec(name=DEMO_PLAYER, email="sam@example.com"),
        games.SeatSpec(name="Bot 1", kind=bot),
        games.SeatSpec(name="Bot 2", kind=bot),
    ][: rules.max_players]
    title = name or (
        "Demo: you against two bots"
        if game_key == games.DEFAULT_GAME
        else f"Demo of {rules.title}: you against two bots"
    )
    try:
        with db.write_session() as session:
            game = game_flows.create(session=session, name=title, seats=specs, game=game_key)
            game_id = game.id or 0
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    seat = seats.seats_of(session=db.get_session(), game_id=game_id)[0]
    click.echo("\n" + _("Demo game %(id)d created. Open your page:", id=game_id))
    click.echo(f"\n  {_personal_url(game_id, 0, seat.nonce)}\n")
    if current_app.config["DEVELOPMENT"] and current_app.config["MAIL_BACKEND"] == "mailbox":
        mailbox = links.external_url("mailbox.index")
        click.echo(_("Your emails (invitation, your turn, scores) arrive in the built-in mailbox:"))
        click.echo(f"\n  {mailbox}\n")


@click.command("send-mail")
@click.option("--loop", is_flag=True, help="keep sending until Ctrl-C")
@click.option("--interval", type=click.FloatRange(min=0.5), default=5.0, show_default=True, help="seconds a pass waits")
@with_appcontext
def send_mail(loop: bool, interval: float) -> None:
    """Send the queued emails that are due, once or (--loop) every INTERVAL seconds."""
    import time

    from sqlalchemy.exc import SQLAlchemyError

    if not loop:
        try:
            click.echo(str(send_due()))
        except SQLAlchemyError as exc:
            error = _("the outbox could not be read (%(error)s): run pbem db-upgrade?", error=type(exc).__name__)
            raise click.ClickException(error) from None
        return
    click.echo(
        _(
            "sending mail every %(seconds)s s (MAIL_BACKEND %(backend)s); Ctrl-C stops",
            seconds=f"{interval:g}",
            backend=current_app.config["MAIL_BACKEND"],
        )
    )
    try:
        while True:
            try:
                report = send_due()
            except SQLAlchemyError as exc:
                click.echo(
                    _("the outbox could not be read (%(error)s); trying again", error=type(exc).__name__), err=True
                )
            else:
                if report.claimed:
                    click.echo(f"{time.strftime('%H:%M:%S')} {report}")
            time.sleep(interval)
    except KeyboardInterrupt:
        click.echo(_("stopped"))


@click.command("create-admin")
@click.argument("username")
@click.option("--email", default=None, help="the organiser's address (offered as the organiser of their new games)")
@click.option("--timezone", default=None, help="the time zone the admin page shows times in (default: UTC)")
@click.option(
    "--language",
    default=None,
    type=click.Choice(i18n.SUPPORTED, case_sensitive=False),
    help="the language the admin page speaks to them (default: en)",
)
@click.option("--password-stdin", is_flag=True, help="read the password from the first line of standard input")
@click.option("--reset", is_flag=True, help="give an existing admin a new password (their sessions end)")
@with_appcontext
def create_admin(
    username: str, email: str | None, timezone: str | None, language: str | None, password_stdin: bool, reset: bool
) -> None:
    """Create an organiser account for the admin page (/admin); the password is asked for, never an argument."""
    import sys

    if password_stdin:
        line: str = sys.stdin.readline()
        password = line.rstrip("\r\n")
    else:
        password = click.prompt(_("Password"), hide_input=True, confirmation_prompt=True)
    try:
        with db.write_session() as session:
            user = admin.create_admin(
                session=session,
                username=username,
                password=password,
                email=email,
                timezone=timezone,
                reset=reset,
                language=language,
            )
            name = user.username
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    login = links.external_url("admin.login")
    if reset:
        click.echo(_("admin %(name)r has a new password: log in at %(url)s", name=name, url=login))
    else:
        click.echo(_("admin %(name)r is created: log in at %(url)s", name=name, url=login))


POT = i18n.TRANSLATIONS / f"{i18n.DOMAIN}.pot"


def _pybabel(*args: str) -> None:
    from babel.messages.frontend import CommandLineInterface

    CommandLineInterface().run(["pybabel", "-q", *args])  # type: ignore[no-untyped-call]


@click.group("i18n")
def i18n_group() -> None:
    """Translation catalogs: extract the texts, update and check the languages, compile them."""


@i18n_group.command("extract")
def i18n_extract() -> None:
    """Collect every text to translate (Python and templates) into pbem/translations/messages.pot."""
    root = i18n.TRANSLATIONS.parent.parent
    _pybabel(
        "extract", "-F", str(root / "babel.cfg"), "-k", "_l", "-k", "N_", "-k", "Np_:1,2",
        "--no-location", "--sort-output",
        "--project", "pbem", "--msgid-bugs-address", "translations@localhost", "-o", str(POT),
        # Babel skips folders starting with "_" by default: templates/games/_default holds texts too.
        "--ignore-dirs", ".*", str(root),
    )  # fmt: skip
    click.echo(f"extracted the texts into {POT}")


@i18n_group.command("update")
def i18n_update() -> None:
    """Bring each language's catalog in line with messages.pot (new texts come in untranslated, never fuzzy)."""
    _pybabel("update", "-i", str(POT), "-d", str(i18n.TRANSLATIONS), "--no-fuzzy-matching", "--ignore-obsolete")
    click.echo(f"updated {', '.join(i18n.translated_languages())}")


@i18n_group.command("init")
@click.argument("language")
def i18n_init(language: str) -> None:
    """Start the catalog of a new language (such as 'de'); add it to i18n.SUPPORTED to offer it."""
    _pybabel("init", "-i", str(POT), "-d", str(i18n.TRANSLATIONS), "-l", language)
    click.echo(f"created {i18n.po_path(language)}: translate it, then `pbem i18n compile`")


@i18n_group.command("compile")
def i18n_compile() -> None:
    """Compile each catalog (.po) to the .mo file the server reads."""
    click.echo(f"compiled {', '.join(i18n.compile_catalogs()) or 'nothing'}")


@i18n_group.command("check")
def i18n_check() -> None:
    """Say what each catalog lacks; fail if a text is untranslated or fuzzy."""
    missing = False
    for lang in i18n.translated_languages():
        report = i18n.check_catalog(lang)
        click.echo(f"{lang}: {report.total} texts, {len(report.untranslated)} untranslated, {len(report.fuzzy)} fuzzy")
        for text in report.untranslated + report.fuzzy:
            click.echo(f"  {text!r}")
        missing = missing or not report.complete
    if missing:
        raise click.ClickException("some texts are not translated")
