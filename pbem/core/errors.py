"""One root for every refusal of the server: ``ServiceError``.

An error carries the HTTP status a page answers with, the rule it cites (a game's rule, such as R5.2), a message
key (the English text, marked with ``N_`` for the catalogs) and its parameters. It is put into words when it is
shown, in the reader's language (``message``): one registered handler renders every error as a page
(``pbem.web.errors``), the mail-in answers say it by email, the command line prints it. Views never catch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .. import i18n
from ..i18n import N_


class ServiceError(Exception):
    """A request the server refuses, with the status its page answers and the words to say why."""

    status: ClassVar[int] = 400
    title_key = ""
    """The error page's heading (a message key); empty: the heading for the status."""
    default_key: ClassVar[str] = N_("This request cannot be done.")

    def __init__(
        self, key: str | tuple[str, str] = "", /, *, rule: str | None = None, title: str = "", **params: Any
    ) -> None:
        self.key = key or self.default_key
        self.params: dict[str, Any] = params
        self.rule = rule
        if title:
            self.title_key = title
        super().__init__(self.key if isinstance(self.key, str) else self.key[0])

    @property
    def message(self) -> str:
        """The message in the language spoken now (English outside a request or an app)."""
        return i18n.text(self.key, **self.params)

    @property
    def headers(self) -> list[tuple[str, str]]:
        """Headers the answer carries (``Retry-After`` for a limit)."""
        return []

    def __str__(self) -> str:
        return self.message


class NotFound(ServiceError):
    """No such game (or seat, or email)."""

    status = 404
    default_key = N_("There is no such game here.")


class LinkInvalid(ServiceError):
    """A token that was tampered with, truncated, made for something else, or names no seat."""

    default_key = N_("This link is not valid. Check that it was copied whole, or use the one in your latest email.")


class LinkExpired(ServiceError):
    """A genuine token that is too old; ``game_id`` and ``seat`` say whose it was (a fresh link can be mailed)."""

    status = 410
    default_key = N_("This link has expired.")

    def __init__(self, game_id: int | None = None, seat: int | None = None) -> None:
        super().__init__()
        self.game_id = game_id
        self.seat = seat


class Gone(ServiceError):
    """Something that was there is no longer usable (an old link)."""

    status = 410


class LinkRevoked(Gone):
    """The seat's links were replaced (its nonce was rotated), or its player left."""

    title_key = N_("This link is no longer valid")
    default_key = N_("This link was replaced by a newer one. Use the link in your latest email.")


class NotNow(ServiceError):
    """What was asked does not fit the game as it is now (finished, paused, not paused, no deadline …)."""

    status = 409


class Paused(NotNow):
    """The game is paused (or stopped): no moves until it is resumed."""


class GameOver(NotNow):
    """The game has ended: nothing about it can change any more."""


class AlreadyPlayed(NotNow):
    """The decision a move was made for is no longer open: someone (or a bot) already made it."""

    default_key = N_("This choice was already made.")


class TooMany(ServiceError):
    """Too many requests of one kind in a short time; ``retry_after`` says when to try again (seconds)."""

    status = 429
    title_key = N_("Not so fast")

    def __init__(
        self, key: str | tuple[str, str] = "", /, *, retry_after: int = 60, rule: str | None = None, **params: Any
    ) -> None:
        super().__init__(key, rule=rule, **params)
        self.retry_after = retry_after

    @property
    def headers(self) -> list[tuple[str, str]]:
        return [("Retry-After", str(self.retry_after))]


class InputErrors(ServiceError):
    """Fields of a form (or options of a game) that are not acceptable: ``errors`` maps each field to its message
    (already in words: a game's option messages come in the language it was asked to speak)."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("%(errors)s", errors="; ".join(f"{k}: {v}" if k else v for k, v in errors.items()))
        self.errors = dict(errors)


class MoveRefused(ServiceError):
    """A move the game refuses or cannot read: ``rule`` names the game's rule, ``words`` say why in the reader's
    language (the game's own words: ``Game.explain``)."""

    title_key = N_("That move is not allowed")

    def __init__(self, words: str, rule: str | None = None) -> None:
        super().__init__("%(words)s", rule=rule, words=words)


class BadMessage(ServiceError):
    """A message to the table that cannot be said: empty, too long, more than one line, invisible characters."""
