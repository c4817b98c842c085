"""Admin services: organiser accounts, new games, the games list, a game's whole state, repairs and records.

Split by feature (``accounts``, ``new_game``, ``listing``, ``view``, ``playing``, ``repairs``, ``export``); the
names below are what the views, the command line and the tests use. Every function takes the session as a keyword
and leaves the commit to the caller's transaction (``pbem.db.write_session``). Each repair writes an ``AdminAction``
row (who, what, when) in the same transaction as the change it makes, so the game's log and the game never disagree.
The services know a game only through ``engine.GAMES`` and its protocol.
"""

from __future__ import annotations

from .accounts import (
    MAX_PASSWORD,
    MIN_PASSWORD,
    SESSION_KEEP,
    USERNAME,
    actor_of,
    admin_for_session,
    authenticate,
    check_new_password,
    check_username,
    create_admin,
    end_all_sessions,
    end_session,
    hash_password,
    set_language,
    start_session,
)
from .club import club_view, fill_seat, rematch, start_now
from .common import MAX_REASON, RUNNING, STATUSES, Actor
from .export import Export, export_record, game_record, verify
from .listing import GameList, GameRow, list_games
from .new_game import (
    MAX_OPTION_TEXT,
    POLICY_FIELDS,
    NewGame,
    NewGameChecked,
    SeatInput,
    check_new_game,
    create_game_from_form,
    game_choices,
    players_text,
)
from .personal import erase_person, erasure_requests
from .playing import SHOW_HIDDEN, Playing, hidden_seat, show_hidden
from .repairs import (
    MAX_EXTEND_HOURS,
    abort_game,
    bot_decision,
    change_email,
    extend_deadline,
    hand_seat,
    hide_message,
    pause_game,
    resend_turn_email,
    resume_game,
    retry_dead_emails,
    show_message,
)
from .view import EmailRow, GameView, LogLine, OptionShown, Waited, game_view, move_text

__all__ = [
    "MAX_EXTEND_HOURS",
    "MAX_OPTION_TEXT",
    "MAX_PASSWORD",
    "MAX_REASON",
    "MIN_PASSWORD",
    "POLICY_FIELDS",
    "RUNNING",
    "SESSION_KEEP",
    "SHOW_HIDDEN",
    "STATUSES",
    "USERNAME",
    "Actor",
    "EmailRow",
    "Export",
    "GameList",
    "GameRow",
    "GameView",
    "LogLine",
    "NewGame",
    "NewGameChecked",
    "OptionShown",
    "Playing",
    "SeatInput",
    "Waited",
    "abort_game",
    "actor_of",
    "admin_for_session",
    "authenticate",
    "bot_decision",
    "change_email",
    "check_new_game",
    "check_new_password",
    "check_username",
    "club_view",
    "create_admin",
    "create_game_from_form",
    "end_all_sessions",
    "end_session",
    "erase_person",
    "erasure_requests",
    "export_record",
    "extend_deadline",
    "fill_seat",
    "game_choices",
    "game_record",
    "game_view",
    "hand_seat",
    "hash_password",
    "hidden_seat",
    "hide_message",
    "list_games",
    "move_text",
    "pause_game",
    "players_text",
    "rematch",
    "resend_turn_email",
    "resume_game",
    "retry_dead_emails",
    "set_language",
    "show_hidden",
    "show_message",
    "start_now",
    "start_session",
    "verify",
]
