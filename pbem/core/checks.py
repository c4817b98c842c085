"""Checks of what people type: one-line texts, names, email addresses, time zones and languages.

Each returns the value as it is stored, or raises ``ServiceError`` with a message naming the field (``what``: a
phrase already in the reader's words, such as "Ann's email").
"""

from __future__ import annotations

import unicodedata
from typing import Any
from zoneinfo import available_timezones

from email_validator import EmailNotValidError, validate_email

from .. import i18n
from ..i18n import N_
from .errors import ServiceError

MAX_GAME_NAME = 80
MAX_PLAYER_NAME = 40
MAX_EMAIL = 254
MAX_LOCAL_PART = 64
"""RFC 5321: at most 64 characters before the @."""

_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): characters a page draws as nothing."""

_ZONES: frozenset[str] = frozenset()


def invisible(char: str) -> bool:
    """True for a character that shows as nothing or turns the text around: a default-ignorable code point (a
    zero-width space, a variation selector, a Hangul filler …) or any format character (category Cf)."""
    code = ord(char)
    return unicodedata.category(char) == "Cf" or any(low <= code <= high for low, high in _IGNORABLE)


def check_text(value: Any, what: str, longest: int) -> str:
    """A single line of 1..longest printable characters (no CR, LF, NUL or other control characters)."""
    if not isinstance(value, str) or not value.strip():
        raise ServiceError(N_("%(what)s must not be empty"), what=what)
    if len(value) > longest:
        raise ServiceError(N_("%(what)s must be at most %(num)d characters"), what=what, num=longest)
    if any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in value):
        raise ServiceError(N_("%(what)s may not contain line breaks or control characters"), what=what)
    return value.strip()


def check_name(value: Any, what: str, longest: int) -> str:
    """A name: ``check_text``, and nothing invisible or direction-changing (``invisible``), so that "Ann" and an
    invisible copy of it cannot both sit at a game and no name can reverse the text of a page."""
    name = check_text(value, what, longest)
    if any(invisible(c) for c in name):
        raise ServiceError(N_("%(what)s may not contain invisible or text-direction characters"), what=what)
    return name


def same_name(name: str) -> str:
    """The form two names are compared in: "Ann", "ANN" and "Ａｎｎ" are the same name (NFKC, case-folded)."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_email(value: Any, what: str) -> str:
    """One email address, checked by email-validator (syntax only: no DNS), in the form that is stored.

    No display name, no quotes, no domain literal (``[127.0.0.1]``), no comma or second address, a local part of
    at most 64 characters, a domain that can receive mail (not ``localhost`` or ``.test``); an internationalised
    domain is kept in its ASCII form (``xn--…``), which every mail server accepts.
    """
    email = check_text(value, what, MAX_EMAIL)
    try:
        checked = validate_email(email, check_deliverability=False, allow_smtputf8=False)
    except EmailNotValidError as exc:
        raise ServiceError(
            N_("%(what)s %(email)r is not an email address: %(why)s"), what=what, email=email, why=str(exc)
        ) from None
    address: str = checked.ascii_email or checked.normalized
    if len(address) > MAX_EMAIL:
        raise ServiceError(N_("%(what)s must be at most %(num)d characters"), what=what, num=MAX_EMAIL)
    if len(address.rpartition("@")[0]) > MAX_LOCAL_PART:
        raise ServiceError(
            N_("%(what)s may have at most %(num)d characters before the @"), what=what, num=MAX_LOCAL_PART
        )
    return address


def require_email(value: Any, who: str) -> str:
    """A person's email address: it is how they play, so it may not be missing."""
    if not isinstance(value, str) or not value.strip():
        raise ServiceError(N_("%(name)s needs an email address: it is how they play"), name=who)
    return check_email(value.strip(), i18n.text(N_("%(name)s's email"), name=who))


def zones() -> frozenset[str]:
    """The time zones a seat may have: the tz database's names of places and UTC (not ``localtime``, ``Factory``,
    nor the ``posix/`` and ``right/`` copies)."""
    global _ZONES
    if not _ZONES:
        _ZONES = frozenset(
            z
            for z in available_timezones()
            if not z.startswith(("posix/", "right/")) and z not in ("localtime", "Factory", "posixrules")
        ) | {"UTC"}
    return _ZONES


def check_timezone(value: Any, who: str) -> str:
    """A time zone name of the tz database (Europe/Amsterdam, UTC …)."""
    name = value.strip() if isinstance(value, str) else ""
    if not name or len(name) > 64:
        raise ServiceError(N_("%(name)s's time zone must be a name such as Europe/Amsterdam or UTC"), name=who)
    if name not in zones():
        raise ServiceError(N_("%(name)s's time zone %(zone)r is not known"), name=who, zone=name)
    return name


def check_language(value: Any) -> str:
    """One of the supported languages (i18n.SUPPORTED), any case: 'NL' is 'nl'."""
    code = value.strip().lower() if isinstance(value, str) else ""
    if code not in i18n.SUPPORTED:
        choices = ", ".join(f"{c} ({i18n.NAMES[c]})" for c in i18n.SUPPORTED)
        raise ServiceError(N_("The language must be one of %(choices)s."), choices=choices)
    return code


def checked(errors: dict[str, str], key: str, check: Any, *args: Any) -> Any:
    """``check(*args)``, or None with its message put in ``errors`` under ``key``."""
    try:
        return check(*args)
    except ServiceError as exc:
        errors[key] = exc.message
        return None
