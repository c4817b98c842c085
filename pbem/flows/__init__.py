"""Use cases: every change of state that queues mail, each in the caller's one transaction (a core service, then
``mail.notify`` with its outcome): ``games`` (create, pause, resume, abort), ``play`` (moves, leaving, talk,
bots), ``seats`` (a new player or address, a turn email again), ``timers`` (reminders, deadlines, digests) and
``links`` (a fresh link, lost links)."""

from . import games, links, play, seats, timers

__all__ = ["games", "links", "play", "seats", "timers"]
