"""Command line: ``pbem db-upgrade``, ``create-game``, ``list-games``, ``links``, ``demo``, ``send-mail``,
``mail-in``, ``mail-check``, ``backup``, ``restore``, ``verify``, ``doctor`` and the rest (``pbem --help``)."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import with_appcontext
from flask_babel import gettext as _
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import col, select

import engine

from . import admin, config, db, i18n, mail_in, timing
from .admin import doctor, maintenance
from .core import checks, games, links, seats
from .core.errors import ServiceError
from .flows import games as game_flows
from .mail import dns, sender
from .mail.sender import send_due
from .mail_in import imap, lmtp
from .models import Game
from .scheduler import jobs


def register(app: Flask) -> None:
    """Add the pbem commands to the app's CLI."""
    for command in (
        db_upgrade,
        create_game,
        list_games,
        print_links,
        demo,
        send_mail,
        create_admin,
        mail_in_command,
        mail_check,
    ):
        app.cli.add_command(command)
    for command in (backup_command, restore_command, verify_command, doctor_command):
        app.cli.add_command(command)
    for command in (jobs.scheduler_command, jobs.serve_command):
        app.cli.add_command(command)
    app.cli.add_command(i18n_group)


def _personal_url(game_id: int, seat: int, nonce: str) -> str:
    return links.external_url("play.page", token=links.personal_token(game_id, seat, nonce))


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@with_appcontext
def backup_command(file: Path) -> None:
    """Write a backup of the database to FILE (SQLite: a copy made while the server runs; PostgreSQL: pg_dump)."""
    try:
        maintenance.backup(db.get_engine(), file)
    except maintenance.BackupError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(_("backup written to %(file)s", file=str(file)))


@click.command("restore")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@with_appcontext
def restore_command(file: Path) -> None:
    """Restore the backup FILE into the configured database, which must be empty."""
    try:
        restored = maintenance.restore(db.get_engine(), file)
    except maintenance.BackupError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(_("restored from %(file)s", file=str(file)))
    click.echo(
        _(
            "%(unsent)s emails had not been sent when the backup was taken (%(in_flight)s of them were being sent): "
            "the scheduler sends them now, so any that went out after the backup arrive twice.",
            unsent=restored.unsent,
            in_flight=restored.in_flight,
        )
    )
    click.echo(_("Next: pbem db-upgrade, then pbem verify --all, then start the server and the scheduler."))


@click.command("verify")
@click.option("--all", "every", is_flag=True, help="every game")
@click.option("--game", "game_ids", type=int, multiple=True, help="this game (may be given more than once)")
@with_appcontext
def verify_command(every: bool, game_ids: tuple[int, ...]) -> None:
    """Replay games' logs against their stored state, and check their waits and the outbox; exit 1 on a problem."""
    if not every and not game_ids:
        raise click.UsageError(_("say which games: --all or --game ID"))
    report = maintenance.verify(session=db.get_session(), game_ids=None if every else list(game_ids))
    for problem in report.problems:
        click.echo(problem, err=True)
    click.echo(
        _(
            "%(games)s games checked, %(problems)s problems; %(unsent)s emails waiting to be sent, %(dead)s dead",
            games=report.games,
            problems=len(report.problems),
            unsent=report.unsent,
            dead=report.dead,
        )
    )
    if report.problems:
        raise SystemExit(1)


@click.command("doctor")
@with_appcontext
def doctor_command() -> None:
    """Check this site's configuration end to end (database, secret, links, SMTP login, Redis, game files,
    scheduler) without sending any email; exit 1 if something must be fixed."""
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    findings = doctor.run(app, timing.now())
    for finding in findings:
        click.echo(f"{_('OK') if finding.ok else _('FIX'):4} {finding.what}")
    if not all(f.ok for f in findings):
        raise SystemExit(1)


@click.command("db-upgrade")
@with_appcontext
def db_upgrade() -> None:
    """Create or update the database schema (Alembic migrations)."""
    db.upgrade(db.get_engine())
    click.echo(_("database is up to date: %(url)s", url=db.get_engine().url.render_as_string(hide_password=True)))


SEAT_SETTINGS = ("language", "timezone")
"""The settings a --player may end with, as NAME=VALUE: ``language=nl timezone=Europe/Amsterdam``."""


def _parse_player(text: str) -> games.SeatSpec:
    """'Ann <ann@example.com>', 'Ann', 'Ann <ann@example.com> language=nl timezone=Europe/Amsterdam', or
    'bot:heuristic' / 'bot:random' (named Bot 1 …)."""
    if text.startswith("bot:"):
        kind = text[4:]
        return games.SeatSpec(name="", kind=kind)
    words = text.split(" ")
    settings: dict[str, str] = {}
    while words and "=" in words[-1]:
        key, _sep, value = words.pop().partition("=")
        if key not in SEAT_SETTINGS or key in settings:
            raise click.BadParameter(
                _("%(text)r: a player ends with language=CODE or timezone=ZONE", text=text), param_hint="--player"
            )
        settings[key] = value
    name, _sep, rest = " ".join(words).partition("<")
    email = rest.rstrip().rstrip(">").strip() or None
    spec = games.SeatSpec(name=name.strip(), email=email)
    try:
        if "language" in settings:
            spec.language = checks.check_language(settings["language"])
        if "timezone" in settings:
            spec.timezone = checks.check_timezone(settings["timezone"], spec.name)
    except ServiceError as exc:
        raise click.BadParameter(exc.message, param_hint="--player") from None
    return spec


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
@click.option("--first-reminder-hours", type=int, default=24, show_default=True, help="hours before the first reminder")
@click.option("--reminder-every-hours", type=int, default=24, show_default=True, help="then a reminder every … hours")
@click.option("--max-reminders", type=int, default=3, show_default=True, help="reminders at most (0: none)")
@click.option("--deadline-hours", default="72", show_default=True, help="hours before the deadline, or 'none'")
@click.option(
    "--at-deadline",
    type=click.Choice(timing.TIMEOUTS),
    default="bot",
    show_default=True,
    help="bot: a bot plays the late player's turn; pause: the game pauses",
)
@click.option("--absence-cap-days", type=int, default=14, show_default=True, help="days of time away per player")
@with_appcontext
def create_game(
    name: str,
    game_key: str,
    players: tuple[str, ...],
    options: tuple[str, ...],
    random_order: bool,
    organiser: str | None,
    first_reminder_hours: int,
    reminder_every_hours: int,
    max_reminders: int,
    deadline_hours: str,
    at_deadline: str,
    absence_cap_days: int,
) -> None:
    """Create a game and print each seat's personal link. A player may end with language=CODE (en, nl, fr) and
    timezone=ZONE (Europe/Amsterdam); the reminder and deadline options are the new-game form's."""
    specs = [_parse_player(p) for p in players]
    policy = _policy(
        first_reminder_hours, reminder_every_hours, max_reminders, deadline_hours, at_deadline, absence_cap_days
    )
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
                policy=policy,
            )
            game_id = game.id or 0
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    _echo_links(game_id)


def _policy(first: int, every: int, most: int, deadline: str, at_deadline: str, absence: int) -> timing.Policy:
    """The reminder and deadline policy of ``create-game``'s options; one line naming what is wrong."""
    if deadline.strip().lower() in ("none", ""):
        hours = None
    elif deadline.strip().isdigit():
        hours = int(deadline)
    else:
        why = _("%(text)r: a number of hours or 'none'", text=deadline)
        raise click.BadParameter(why, param_hint="--deadline-hours")
    try:
        return timing.Policy(
            first_reminder_hours=first,
            reminder_every_hours=every,
            max_reminders=most,
            deadline_hours=hours,
            timeout=at_deadline,
            absence_cap_days=absence,
        )
    except timing.PolicyError as exc:
        raise click.ClickException(str(exc)) from None


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
@click.option("--status", type=click.Choice(admin.STATUSES), default=None, help="playing, finished or aborted")
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
    if status == "aborted":
        query = query.where(col(Game.aborted_at).is_not(None))
    elif status:
        stored = admin.RUNNING if status == "playing" else (status,)
        query = query.where(col(Game.status).in_(stored), col(Game.aborted_at).is_(None))
    for game in db.get_session().exec(query):
        rules = games.rules_of(game)
        shown = "aborted" if game.aborted_at is not None else game.status
        waiting = "-" if game.aborted_at is not None else ", ".join(rules.waiting_for(rules.from_json(game.state)))
        click.echo(f"{game.id:>6}  {game.game:<18} {shown:<9}  waiting for: {waiting or '-':<20}  {game.name}")


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
        games.SeatSpec(name=DEMO_PLAYER, email=seats.DEMO_EMAIL),
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


@click.command("mail-in")
@click.argument("source", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--to", "envelope_to", multiple=True, help="an envelope recipient (a pipe transport's ${recipient})")
@click.option("--imap", "use_imap", is_flag=True, help="read the unseen messages of the MAIL_IN_IMAP_* mailbox")
@click.option("--loop", is_flag=True, help="with --imap: keep reading every MAIL_IN_POLL_SECONDS until Ctrl-C")
@click.option("--listen", metavar="HOST:PORT", help="be an LMTP server a mail server delivers to (127.0.0.1:8024)")
@with_appcontext
def mail_in_command(
    source: str | None, envelope_to: tuple[str, ...], use_imap: bool, loop: bool, listen: str | None
) -> None:
    """Handle replies: SOURCE is one message in a file (FILE.eml) or - for standard input (a mail server's pipe
    transport); --imap reads a mailbox; --listen HOST:PORT is an LMTP server.

    With SOURCE it exits 0 when the message was handled (applied, answered or ignored) and 75 (EX_TEMPFAIL) when
    it could not be (the database is unavailable): the mail server keeps it and tries again.
    """
    if sum((source is not None, use_imap, listen is not None)) != 1:
        raise click.UsageError(_("give a file, - (standard input), --imap or --listen HOST:PORT"))
    if loop and not use_imap:
        raise click.UsageError(_("--loop goes with --imap"))
    if use_imap:
        if not imap.configured():
            raise click.ClickException(_("MAIL_IN_IMAP_HOST is not set"))
        interval = current_app.config["MAIL_IN_POLL_SECONDS"]
        try:
            while True:
                report = imap.poll()
                click.echo(f"{time.strftime('%H:%M:%S')} {report}")
                if not loop:
                    sys.exit(mail_in.EX_TEMPFAIL if report.error else mail_in.EX_OK)
                time.sleep(interval)
        except KeyboardInterrupt:
            click.echo(_("stopped"))
        return
    if listen is not None:
        host, _sep, port = listen.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise click.UsageError(_("--listen takes HOST:PORT, such as 127.0.0.1:8024"))
        controller = lmtp.listen(current_app._get_current_object(), host.strip("[]"), int(port))  # type: ignore[attr-defined]
        click.echo(_("LMTP server on %(address)s; Ctrl-C stops", address=listen))
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            click.echo(_("stopped"))
        finally:
            controller.stop()
        return
    try:
        if source == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(str(source), "rb") as handle:
                raw = handle.read()
    except OSError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        handled = mail_in.receive(raw, envelope_to=envelope_to)
    except SQLAlchemyError as exc:
        click.echo(_("the database is unavailable (%(error)s): try again later", error=type(exc).__name__), err=True)
        sys.exit(mail_in.EX_TEMPFAIL)
    except Exception:  # a bug: keep the message at the mail server (it tries again) rather than lose it
        logging.getLogger(__name__).exception("mail-in: the message could not be handled")
        sys.exit(mail_in.EX_TEMPFAIL)
    click.echo(f"{handled.outcome} ({handled.moves} move(s))")


@click.command("mail-check")
@with_appcontext
def mail_check() -> None:
    """Print the SPF, DKIM and DMARC records to publish for the configured domain and key, and what is missing in
    the configuration for mail both ways."""
    signing = sender.signing(current_app.config)
    found, missing = dns.records(current_app.config, signing.key if signing else None)
    for record in found:
        click.echo(f"; {record.why}")
        click.echo(str(record))
    for line in missing:
        click.echo(f"missing: {line}")


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
