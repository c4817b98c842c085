"""The admin page: organisers log in, create games, watch them and repair them (thin views over ``pbem.admin``).

``base`` holds the blueprint and what every view shares; ``login``, ``games``, ``new_game`` and ``actions`` add
their views to it on import.
"""

from . import actions, games, login, new_game, personal
from .base import bp

__all__ = ["actions", "bp", "games", "login", "new_game", "personal"]
