"""The core: decisions over the database, each a keyword-only service that takes a session and returns what it
changed. It imports neither mail nor web nor the request: ``errors`` (the one root), ``checks``, ``links``,
``seats`` (the one way from a link to a seat, and a seat's settings), ``games`` (create, move, leave, bots,
replay), ``waits``, ``talk``, ``audit`` and ``records``."""

from . import audit, checks, errors, games, links, records, seats, talk, waits

__all__ = ["audit", "checks", "errors", "games", "links", "records", "seats", "talk", "waits"]
