"""Configuration: defaults from config/default.toml, then PBEM_CONFIG, then PBEM_* variables."""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from flask import Flask

from .timing import PolicyError, QuietHours

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT / "config" / "default.toml"
DEFAULT_SECRET = "dev-insecure-change-me"


class ConfigError(RuntimeError):
    """The configuration cannot be used; the message says which setting and why."""


def load(app: Flask, test_config: dict[str, Any] | None = None) -> None:
    """Load the configuration in order: defaults, PBEM_CONFIG file, PBEM_* env, test mapping."""
    app.config.from_file(str(DEFAULT_FILE), load=tomllib.load, text=False)
    extra = os.environ.get("PBEM_CONFIG")
    if extra:
        if not Path(extra).is_file():
            raise ConfigError(f"PBEM_CONFIG names {extra!r}, which is not a file")
        app.config.from_file(str(Path(extra).resolve()), load=tomllib.load, text=False)
    app.config.from_prefixed_env("PBEM")
    if os.environ.get("DATABASE_URL") and not os.environ.get("PBEM_DATABASE_URL"):
        app.config["DATABASE_URL"] = os.environ["DATABASE_URL"]
    if test_config:
        app.config.update(test_config)
    validate(app)


def validate(app: Flask) -> None:
    """Refuse settings that would be unsafe or cannot work."""
    cfg = app.config
    production = cfg["ENV"] != "development"
    if production and cfg["SECRET_KEY"] in ("", DEFAULT_SECRET):
        raise ConfigError("SECRET_KEY is the development default: set PBEM_SECRET_KEY to a long random value")
    if not isinstance(cfg["SECRET_KEY_FALLBACKS"], list):
        raise ConfigError("SECRET_KEY_FALLBACKS must be a list of old keys")
    if production and not cfg.get("TESTING"):
        if cfg["PREFERRED_URL_SCHEME"] != "https":
            raise ConfigError(
                "PREFERRED_URL_SCHEME must be https in production: emailed links and List-Unsubscribe (RFC 8058) "
                "need it; set PBEM_PREFERRED_URL_SCHEME=https"
            )
        if str(cfg["RATELIMIT_STORAGE_URI"]).startswith("memory://"):
            raise ConfigError(
                "RATELIMIT_STORAGE_URI is memory://, which each worker keeps apart (the login limit would be as many "
                "times looser as there are workers): set PBEM_RATELIMIT_STORAGE_URI=redis://127.0.0.1:6379"
            )
    if not cfg.get("SERVER_NAME"):
        raise ConfigError("SERVER_NAME must be set: links are built from it")
    for key in ("PERSONAL_LINK_DAYS", "MOVE_LINK_DAYS"):
        if not isinstance(cfg[key], int) or cfg[key] < 1:
            raise ConfigError(f"{key} must be a whole number of days")
    if not isinstance(cfg.get("GAME_FILES", ""), str):
        raise ConfigError("GAME_FILES must be a folder's path (empty: the instance folder's game-files)")
    _validate_database(cfg)
    _validate_metrics(cfg)
    _validate_admin(cfg)
    _validate_mail(cfg, production)
    _validate_scheduler(cfg, production)
    cfg["SESSION_COOKIE_HTTPONLY"] = True
    cfg["SESSION_COOKIE_SAMESITE"] = "Lax"
    cfg["SESSION_COOKIE_SECURE"] = production
    cfg["WTF_CSRF_TIME_LIMIT"] = None  # a page may stay open on a phone for days
    cfg["WTF_CSRF_SSL_STRICT"] = False  # the form token is checked; the Referer is never sent
    cfg["DEVELOPMENT"] = not production


def _validate_database(cfg: Any) -> None:
    """The database's waiting limits, in milliseconds (SQLite's busy timeout; PostgreSQL's lock and statement
    timeouts, where 0 means none)."""
    for key, low in (("SQLITE_BUSY_TIMEOUT_MS", 1), ("DB_LOCK_TIMEOUT_MS", 0), ("DB_STATEMENT_TIMEOUT_MS", 0)):
        if type(cfg[key]) is not int or not low <= cfg[key] <= 600_000:
            raise ConfigError(f"{key} must be a whole number of milliseconds from {low} to 600000")


def _validate_metrics(cfg: Any) -> None:
    """Who may read /metrics: a list of addresses or networks, and a bearer token (empty, or long enough)."""
    allowed = cfg["METRICS_ALLOWED"]
    if not isinstance(allowed, list):
        raise ConfigError('METRICS_ALLOWED must be a list of addresses or networks, like ["127.0.0.1/32"]')
    for network in allowed:
        try:
            ipaddress.ip_network(str(network), strict=False)
        except ValueError:
            raise ConfigError(f"METRICS_ALLOWED: {network!r} is not an address or network") from None
    token = cfg["METRICS_TOKEN"]
    if not isinstance(token, str) or (token and (len(token) < 16 or any(c.isspace() for c in token))):
        raise ConfigError("METRICS_TOKEN must be empty or at least 16 characters without spaces")


def _validate_admin(cfg: Any) -> None:
    """The admin page's login limits, rate-limit storage and key prefix, proxies, session length and page size."""
    from limits import parse

    for key in ("ADMIN_LOGIN_LIMIT", "ADMIN_LOGIN_ACCOUNT_LIMIT", "LOST_LINKS_LIMIT"):
        try:
            parse(str(cfg[key]))
        except ValueError:
            raise ConfigError(f"{key} {cfg[key]!r} is not a limit like '5 per 15 minutes'") from None
    prefix = cfg["RATELIMIT_KEY_PREFIX"]
    if not isinstance(prefix, str) or len(prefix) > 64 or any(c.isspace() for c in prefix):
        raise ConfigError("RATELIMIT_KEY_PREFIX must be a short word without spaces (or empty)")
    if type(cfg["PROXY_FIX"]) is not int or not 0 <= cfg["PROXY_FIX"] <= 5:
        raise ConfigError("PROXY_FIX must be the number of trusted reverse proxies in front of the app, from 0 to 5")
    uri = cfg["RATELIMIT_STORAGE_URI"]
    if not isinstance(uri, str) or "://" not in uri:
        raise ConfigError("RATELIMIT_STORAGE_URI must be a storage URI: 'memory://' or 'redis://host:6379'")
    for key, top in (("ADMIN_SESSION_HOURS", 24 * 30), ("ADMIN_GAMES_PER_PAGE", 500)):
        if type(cfg[key]) is not int or not 1 <= cfg[key] <= top:
            raise ConfigError(f"{key} must be a whole number from 1 to {top}")


REPLY_LOCAL = re.compile(r"[a-z0-9][a-z0-9._-]{0,19}")
REPLY_DOMAIN = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+")


def _validate_mail(cfg: Any, production: bool) -> None:
    """The mail backend (no mailbox in production), the SMTP server, the sender, and the timing settings."""
    from email.message import EmailMessage

    backend = cfg["MAIL_BACKEND"]
    if backend not in ("mailbox", "smtp"):
        raise ConfigError(f'MAIL_BACKEND {backend!r} must be "mailbox" (development only) or "smtp"')
    if backend == "mailbox" and production and not cfg.get("TESTING"):
        raise ConfigError(
            'MAIL_BACKEND is "mailbox", which only shows emails in development and sends nothing: '
            "set PBEM_MAIL_BACKEND=smtp and the MAIL_SERVER settings"
        )
    server = cfg["MAIL_SERVER"]
    if not isinstance(server, str) or (backend == "smtp" and not server.strip()):
        raise ConfigError("MAIL_SERVER must be the SMTP server's host name")
    if type(cfg["MAIL_PORT"]) is not int or not 1 <= cfg["MAIL_PORT"] <= 65535:
        raise ConfigError("MAIL_PORT must be a port number from 1 to 65535")
    for key in ("MAIL_USE_TLS", "MAIL_USE_SSL"):
        if not isinstance(cfg[key], bool):
            raise ConfigError(f"{key} must be true or false")
    if cfg["MAIL_USE_TLS"] and cfg["MAIL_USE_SSL"]:
        raise ConfigError("MAIL_USE_TLS (STARTTLS) and MAIL_USE_SSL (TLS from the start) exclude each other")
    for key in ("MAIL_USERNAME", "MAIL_PASSWORD"):
        if cfg[key] is not None and not isinstance(cfg[key], str):
            raise ConfigError(f"{key} must be text")
    if cfg["MAIL_PASSWORD"] and not cfg["MAIL_USERNAME"]:
        raise ConfigError("MAIL_PASSWORD is set but MAIL_USERNAME is not")
    sender = cfg["MAIL_DEFAULT_SENDER"]
    try:
        message = EmailMessage()
        message["From"] = sender
        header: Any = message["From"]
        addresses = header.addresses
    except (TypeError, ValueError, AttributeError):
        addresses, header = (), None
    if len(addresses) != 1 or header.defects or not addresses[0].username or not addresses[0].domain:
        raise ConfigError(f"MAIL_DEFAULT_SENDER {sender!r} must be one address, like 'Games club <games@example.org>'")
    if "MAIL_MAX_ATTEMPTS" in cfg:
        raise ConfigError(
            "MAIL_MAX_ATTEMPTS is no longer used: failed emails are retried for MAIL_RETRY_FOR_HOURS "
            "(only a 5xx reply gives up at once); remove it"
        )
    timeout = cfg["MAIL_TIMEOUT"]
    if type(timeout) not in (int, float) or not 0 < timeout <= 600:
        raise ConfigError("MAIL_TIMEOUT must be a number of seconds, more than 0 and at most 600")
    for key, low, top in (
        ("MAIL_BATCH", 1, 1000),
        ("MAIL_RETRY_BASE_SECONDS", 1, 86400),
        ("MAIL_RETRY_MAX_SECONDS", cfg["MAIL_RETRY_BASE_SECONDS"], 86400),
        ("MAIL_RETRY_FOR_HOURS", 1, 90 * 24),
        ("MAIL_STUCK_NOTICE_MINUTES", 1, 7 * 24 * 60),
        ("MAIL_STALE_CLAIM_SECONDS", 20, 86400),
    ):
        if type(cfg[key]) is not int or not low <= cfg[key] <= top:
            raise ConfigError(f"{key} must be a whole number from {low} to {top}")
    for key in ("MAIL_REPLY_ADDRESS", "MAIL_BOUNCE_ADDRESS"):
        reply = cfg[key]
        local, at, domain = reply.rpartition("@") if isinstance(reply, str) else ("", "", "")
        if not isinstance(reply, str) or (
            reply and (not at or not REPLY_LOCAL.fullmatch(local) or not REPLY_DOMAIN.fullmatch(domain))
        ):
            raise ConfigError(
                f"{key} {reply!r} must be empty or one plain address like 'play@club.example', "
                "at most 20 characters before the @ and no '+'"
            )
    if not isinstance(cfg["SITE_NAME"], str) or len(cfg["SITE_NAME"]) > 60 or not cfg["SITE_NAME"].isprintable():
        raise ConfigError("SITE_NAME must be a short name on one line (or empty)")
    if cfg["MAIL_DKIM_KEY"]:
        if not REPLY_DOMAIN.fullmatch(str(cfg["MAIL_DKIM_DOMAIN"])):
            raise ConfigError(
                "MAIL_DKIM_KEY is set: MAIL_DKIM_DOMAIN must be the domain it signs for, like club.example"
            )
        if not REPLY_LOCAL.fullmatch(str(cfg["MAIL_DKIM_SELECTOR"])):
            raise ConfigError("MAIL_DKIM_SELECTOR must be a short word, like pbem")
        key = str(cfg["MAIL_DKIM_KEY"])
        if "-----BEGIN" not in key and not os.path.isfile(key):
            raise ConfigError("MAIL_DKIM_KEY must be a PEM private key, or the path of a file that holds one")
    if cfg["MAIL_IN_IMAP_TLS"] not in ("ssl", "starttls", "none"):
        raise ConfigError('MAIL_IN_IMAP_TLS must be "ssl", "starttls" or "none"')
    for key in ("MAIL_IN_IMAP_HOST", "MAIL_IN_IMAP_USER", "MAIL_IN_IMAP_PASSWORD", "MAIL_IN_IMAP_FOLDER"):
        if not isinstance(cfg[key], str):
            raise ConfigError(f"{key} must be text")
    if not isinstance(cfg["MAIL_IN_IMAP_DONE_FOLDER"], str):
        raise ConfigError("MAIL_IN_IMAP_DONE_FOLDER must be text (empty: messages read stay where they are)")
    if cfg["MAIL_IN_IMAP_HOST"] and not cfg["MAIL_IN_IMAP_USER"]:
        raise ConfigError("MAIL_IN_IMAP_HOST is set but MAIL_IN_IMAP_USER is not")
    if type(cfg["MAIL_IN_IMAP_PORT"]) is not int or not 1 <= cfg["MAIL_IN_IMAP_PORT"] <= 65535:
        raise ConfigError("MAIL_IN_IMAP_PORT must be a port number from 1 to 65535")
    if type(cfg["MAIL_IN_POLL_SECONDS"]) is not int or not 5 <= cfg["MAIL_IN_POLL_SECONDS"] <= 3600:
        raise ConfigError("MAIL_IN_POLL_SECONDS must be a whole number of seconds from 5 to 3600")
    if type(cfg["MAIL_IN_MAX_BYTES"]) is not int or not 10_000 <= cfg["MAIL_IN_MAX_BYTES"] <= 100_000_000:
        raise ConfigError("MAIL_IN_MAX_BYTES must be a whole number of bytes from 10000 to 100000000")
    if cfg["MAIL_STALE_CLAIM_SECONDS"] < 4 * timeout:
        raise ConfigError(
            "MAIL_STALE_CLAIM_SECONDS must be at least 4 times MAIL_TIMEOUT: a sender that is still working "
            "must never look stopped"
        )
    rate = cfg["MAIL_RATE_PER_SECOND"]
    if type(rate) not in (int, float) or not 0 <= rate <= 10_000:
        raise ConfigError("MAIL_RATE_PER_SECOND must be a number of emails a second from 0 (no limit) to 10000")


def _validate_scheduler(cfg: Any, production: bool) -> None:
    """The scheduler's intervals, whether `pbem serve` runs it in the web process, and the default quiet hours."""
    cfg.setdefault("SCHEDULER_IN_WEB", not production)
    if not isinstance(cfg["SCHEDULER_IN_WEB"], bool):
        raise ConfigError("SCHEDULER_IN_WEB must be true or false")
    for key, top in (("SCHEDULER_SEND_SECONDS", 3600), ("SCHEDULER_SWEEP_SECONDS", 3600)):
        if type(cfg[key]) is not int or not 1 <= cfg[key] <= top:
            raise ConfigError(f"{key} must be a whole number of seconds from 1 to {top}")
    try:
        QuietHours.parse(cfg["QUIET_HOURS"])
    except PolicyError as exc:
        raise ConfigError(f"QUIET_HOURS: {exc}") from None


def game_files(app: Flask) -> Path:
    """The folder of the files an organiser may choose as a game option (a card set …): one folder per game
    key inside it (``<GAME_FILES>/call-to-adventure/mine.toml``); GAME_FILES, else ``instance/game-files``."""
    configured = app.config.get("GAME_FILES") or ""
    return Path(configured) if configured else Path(app.instance_path) / "game-files"
