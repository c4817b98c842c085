"""SQLModel tables: games, seats, the append-only move log and the email outbox."""

from __future__ import annotations

from datetime import date, datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from . import timing


def _ts(**kw: Any) -> Any:
    return Field(default_factory=timing.now, sa_column=Column(DateTime(timezone=True), nullable=False, **kw))


def _when(**kw: Any) -> Any:
    return Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True, **kw))


def is_bot_kind(kind: str) -> bool:
    """True for a seat kind that is a bot ("human" is the one that is not)."""
    return kind != "human"


class Record(SimpleNamespace):
    """A row read only to be shown (a page): its columns as attributes, without the ORM's work per row. Changing
    it changes nothing stored."""


class SeatRecord(Record):
    """A ``Seat`` row read only to be shown."""

    @property
    def is_bot(self) -> bool:
        """True if a bot plays this seat."""
        return is_bot_kind(self.kind)


class Game(SQLModel, table=True):
    """One game: its options, the engine state snapshot and a version that rises with every move."""

    id: int | None = Field(default=None, primary_key=True)
    game: str = Field(
        default="call-to-glory",
        sa_column=Column(String(40), nullable=False, server_default="call-to-glory"),
    )
    """The key of the game in ``engine.GAMES``."""
    name: str = Field(max_length=80)
    status: str = Field(default="playing", max_length=16, index=True)
    options: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    version: int = 0
    current_seat: int | None = Field(default=None)
    organiser_email: str | None = Field(default=None, max_length=254)
    created_at: datetime = _ts()
    updated_at: datetime = _ts()
    # Scheduling (pbem.timing, pbem.sweeps): the policy and a pause. The waits are rows of ``Wait``; these three
    # sum them up for the admin pages (the earliest of the game's waits), kept by ``pbem.waits`` with the rows.
    policy: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    waiting_since: datetime | None = _when()
    next_reminder_at: datetime | None = _when(index=True)
    deadline_at: datetime | None = _when(index=True)
    paused_at: datetime | None = _when()
    paused_reason: str | None = Field(default=None, max_length=200)
    """Why the game is paused or was stopped, as stored before texts were codes (an English sentence)."""
    paused_why: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    """Why the game is paused or was stopped, as a code (``i18n.stored``); None for a reason stored as a sentence
    (``paused_reason``). ``core.games.pause_words`` says either."""
    # Admin (pbem.admin): when an organiser stopped the game for good; ``status`` keeps mirroring the engine.
    aborted_at: datetime | None = _when()
    # A club (pbem.flows.invites): a game created with ``status`` "invited" starts when every person has accepted,
    # or at ``start_at``, with bots in the seats nobody accepted (``unanswered`` "bot") or without them ("drop").
    start_at: datetime | None = _when(index=True)
    unanswered: str | None = Field(default=None, max_length=8)
    rematch_of: int | None = Field(default=None)
    """The finished game this one is a rematch of."""


class Seat(SQLModel, table=True):
    """A place at a game: a person (name, email, language, time zone) or a bot."""

    __table_args__ = (UniqueConstraint("game_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    position: int
    name: str = Field(max_length=40)
    email: str | None = Field(default=None, max_length=254)
    language: str = Field(default="en", max_length=8)
    timezone: str = Field(default="UTC", max_length=64)
    nonce: str = Field(max_length=64)
    kind: str = Field(default="human", max_length=16)
    reminders: bool = True
    left_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    # Time away (until a local date, inclusive; days counted against the game's cap) and quiet hours ("HH:MM").
    away_from: datetime | None = _when()
    away_until: date | None = Field(default=None)
    away_days_used: int = 0
    quiet_start: str | None = Field(default=None, max_length=5)
    quiet_end: str | None = Field(default=None, max_length=5)
    # Email choices (pbem.mail.notify, pbem.sweeps): score sheets on their own or folded into the next turn email
    # (``pending_sheets``: the milestones waiting for it), and a daily digest while it is not this seat's turn
    # (``next_digest_at``: when the next one is due; ``digest_seq``/``digest_at``: the last move and time covered).
    score_sheets: str = Field(
        default="separate", sa_column=Column(String(8), nullable=False, server_default="separate")
    )
    pending_sheets: list[dict[str, Any]] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    digest: str = Field(default="none", sa_column=Column(String(8), nullable=False, server_default="none"))
    next_digest_at: datetime | None = _when(index=True)
    digest_seq: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    digest_at: datetime | None = _when()
    # Address health (pbem.flows.replies): when mail to the seat's address last bounced, and why (a DSN's status
    # and diagnostic, shown to the organiser and the player); None while it is healthy.
    bounced_at: datetime | None = _when()
    bounce_detail: str | None = Field(default=None, max_length=300)
    erased_at: datetime | None = _when()
    """When the organiser erased this person's data from the game (pbem.core.personal): name replaced, no address."""
    # An invitation's answer while the game waits for them ("accepted" or "declined"; None: none yet), and when a
    # player asked the organiser to play this game again (from its game-over page).
    answer: str | None = Field(default=None, max_length=8)
    answered_at: datetime | None = _when()
    again_at: datetime | None = _when()

    @property
    def is_bot(self) -> bool:
        """True if a bot plays this seat."""
        return is_bot_kind(self.kind)


class Wait(SQLModel, table=True):
    """A seat a running game waits on: since when, for which decision, its reminders and its deadline.

    ``decision`` is the id of the decision the wait began with and ``wait`` the decision's ``wait`` (a wait
    lasts while it is unchanged); the sweeps read the indexed ``next_reminder_at`` and ``deadline_at``.
    """

    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    seat: int
    decision: str = Field(max_length=64)
    wait: str = Field(max_length=64)
    waiting_since: datetime = _ts()
    reminders_sent: int = 0
    last_reminder_at: datetime | None = _when()
    next_reminder_at: datetime | None = _when(index=True)
    deadline_at: datetime | None = _when(index=True)


class MoveRecord(SQLModel, table=True):
    """One entry of a game's append-only move log, with the events the move caused."""

    __tablename__ = "move"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seq: int
    seat: int
    move: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    events: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))
    source: str = Field(max_length=8)
    """Where the move came from: link, page, email, admin, bot or timeout."""
    created_at: datetime = _ts()


class OutboxEmail(SQLModel, table=True):
    """One email, written in the transaction of the change that causes it and sent later by the sender.

    An email about the game (``render`` set: a turn email, a milestone's sheet, the game over) is stored as what
    must be sent, and the sender renders its subject and parts from the game as it is then; until then
    ``text_body`` and ``html_body`` are empty and ``subject`` is a short placeholder. Other emails are stored
    rendered. ``decision``: the id of the decision a turn email asks for (dropped once it was made).
    """

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)
    seat_id: int | None = Field(default=None, foreign_key="seat.id", index=True)
    kind: str = Field(max_length=24)
    to_addr: str = Field(max_length=254)
    subject: str = Field(max_length=300)
    text_body: str = Field(sa_column=Column(Text, nullable=False))
    html_body: str = Field(sa_column=Column(Text, nullable=False))
    headers: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    attachments: list[dict[str, str]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    message_id: str = Field(max_length=255)
    dedupe_key: str | None = Field(default=None, max_length=120, unique=True)
    status: str = Field(default="queued", max_length=8)
    """queued → sending (claimed by one sender) → sent, or back to queued, or dead; or dropped: a turn email whose
    decision was made before it could be sent, or one the sender renders for a seat that changed."""
    decision: str | None = Field(default=None, max_length=64)
    render: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    attempts: int = 0
    next_attempt_at: datetime = _ts()
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = _ts()
    sent_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class AdminUser(SQLModel, table=True):
    """An organiser who may use the admin page: a login name, a scrypt password hash, an email, a time zone and
    the language the admin area speaks to them."""

    __tablename__ = "admin_user"

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=64, unique=True)
    email: str | None = Field(default=None, max_length=254)
    timezone: str = Field(default="UTC", max_length=64)
    language: str = Field(default="en", max_length=8)
    password_hash: str = Field(max_length=255)
    created_at: datetime = _ts()
    last_login_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class AdminSession(SQLModel, table=True):
    """One login of an organiser, named by the login cookie; revoked by logging out, "log out everywhere" or a
    new password. ``token_hash``: the SHA-256 of the random token the cookie holds (a copied database leaks no
    usable session)."""

    __tablename__ = "admin_session"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True)
    admin_id: int = Field(foreign_key="admin_user.id", index=True)
    created_at: datetime = _ts()
    revoked_at: datetime | None = _when()


class AdminAction(SQLModel, table=True):
    """One organiser action on a game (who, what, when) for the game's log; ``notice``: what players are told.

    ``key`` and ``notice_key`` are the codes of the log's line and of the players' notice, with ``params``: they
    are put into words when shown, in the reader's language. ``detail`` and ``notice`` keep them in English (rows
    written before texts were codes have only those, shown as they are)."""

    __tablename__ = "admin_action"
    __table_args__ = (Index("ix_admin_action_game_time", "game_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    admin_id: int | None = Field(default=None, foreign_key="admin_user.id")
    admin_name: str = Field(max_length=64)
    action: str = Field(max_length=24)
    seat: int | None = Field(default=None)
    detail: str = Field(sa_column=Column(Text, nullable=False))
    notice: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    key: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    notice_key: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    params: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    created_at: datetime = _ts()


class Message(SQLModel, table=True):
    """Table talk: a short message one seat said to the others; an organiser may hide it."""

    __table_args__ = (Index("ix_message_game_time", "game_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    seat: int
    text: str = Field(max_length=280)
    created_at: datetime = _ts()
    hidden_at: datetime | None = _when()


class SchedulerBeat(SQLModel, table=True):
    """The heartbeat of one scheduler job: when it last finished a run, how long that run took, and how many runs
    and items (emails sent, reminders queued, deadlines applied …) all schedulers did in total. One row per job,
    shared by every scheduler process; read by ``/readyz`` and ``/metrics``."""

    __tablename__ = "scheduler_beat"

    job: str = Field(primary_key=True, max_length=32)
    beat_at: datetime = _ts()
    seconds: float = 0.0
    """How long the last run took."""
    runs: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))
    done: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))
    host: str = Field(default="", max_length=64)
    """The scheduler that ran it last (host name and process id)."""


class InboundMail(SQLModel, table=True):
    """One message that reached the server by mail (a reply, a robot's mail, a bounce), kept by its Message-ID so
    that each is handled exactly once: ``outcome`` says what was done with it, as a code (``pbem.flows.replies``)."""

    __tablename__ = "inbound_mail"

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=255, unique=True)
    received_at: datetime = _ts()
    outcome: str = Field(default="received", max_length=16)
    game_id: int | None = Field(default=None)
    seat: int | None = Field(default=None)
    moves: int = 0


class ErasureRequest(SQLModel, table=True):
    """A player's request that the organiser erase their personal data from a finished game: the game and the seat
    only (never the address); ``done_at`` once erased."""

    __tablename__ = "erasure_request"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    requested_at: datetime = _ts()
    done_at: datetime | None = _when()
