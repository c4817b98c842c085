"""Configuration: defaults from config/default.toml, then PBEM_CONFIG, then PBEM_* variables."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from flask import Flask

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
    if not cfg.get("SERVER_NAME"):
        raise ConfigError("SERVER_NAME must be set: links are built from it")
    for key in ("PERSONAL_LINK_DAYS", "MOVE_LINK_DAYS"):
        if not isinstance(cfg[key], int) or cfg[key] < 1:
            raise ConfigError(f"{key} must be a whole number of days")
    cfg["SESSION_COOKIE_HTTPONLY"] = True
    cfg["SESSION_COOKIE_SAMESITE"] = "Lax"
    cfg["SESSION_COOKIE_SECURE"] = production
    cfg["WTF_CSRF_TIME_LIMIT"] = None  # a page may stay open on a phone for days
    cfg["WTF_CSRF_SSL_STRICT"] = False  # the form token is checked; the Referer is never sent
    cfg["DEVELOPMENT"] = not production
