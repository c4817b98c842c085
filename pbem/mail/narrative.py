"""What happened, in plain words as one seat may read it: the moves since its last own move, with the server's
notes (who left, the organiser's actions, table talk) in their place by time. Turn emails and digests tell it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import bindparam
from sqlmodel import Session, col

from engine.protocol import LogEntry, Note

from .. import i18n
from ..core import audit, games, talk
from ..i18n import N_
from ..models import Game, MoveRecord, Seat
from . import outbox

STORY_MOVES = 200
"""The narrative of a turn email reads at most this many of the latest moves."""
STORY_FIRST_LOOK = 24
OWN_SOURCES = ("link", "page", "email")
_RECENT = (
    sa.select(
        col(MoveRecord.seq),
        col(MoveRecord.seat),
        col(MoveRecord.source),
        col(MoveRecord.move),
        col(MoveRecord.created_at),
    )
    .where(col(MoveRecord.game_id) == bindparam("game_id"))
    .order_by(col(MoveRecord.seq).desc())
    .limit(bindparam("limit"))
)
_SINCE = (
    sa.select(
        col(MoveRecord.seq),
        col(MoveRecord.seat),
        col(MoveRecord.source),
        col(MoveRecord.events),
        col(MoveRecord.created_at),
    )
    .where(col(MoveRecord.game_id) == bindparam("game_id"), col(MoveRecord.seq) > bindparam("after"))
    .order_by(col(MoveRecord.seq))
)


def story(*, session: Session, game: Game, seats: Sequence[Seat], seat: Seat) -> list[str]:
    """What happened since ``seat``'s last own move (not a standing one), in plain words as that seat may read it,
    with the server's notes (who left, the organiser's actions, table talk) in their place by time."""
    after, since, truncated = last_own_move(session, game, seat)
    _last, entries, notes = happened(session, game, seats, seat, after, since)
    lines = games.rules_of(game).narrate(entries, seat.name, notes)
    if truncated:
        lines.insert(0, i18n.text(N_("Earlier moves are in the log on your page.")))
    return lines


@dataclass(frozen=True)
class Line:
    """One sentence of what happened, and whether it tells the reader's own move."""

    text: str
    mine: bool = False


def recent(
    *,
    session: Session,
    game: Any,
    seats: Sequence[Any],
    seat: Any,
    latest: games.Latest | None = None,
    said: Sequence[talk.Said] | None = None,
) -> list[Line]:
    """What a seat's page tells first, oldest first, as that seat may read it: the seat's latest turn (its own
    moves, marked ``mine``) and what the others did since; while nobody has moved since, what the others did
    between the seat's turn before and that latest turn instead, so that a move just made is told with the
    others' moves that led to it. The same narrative as the turn email's ``story``. What the page already read
    (its ``latest`` moves, the table talk it shows) is used instead of reading it again where it is enough."""
    after, since, truncated = _turn_before(session, game, seat, latest)
    _last, entries, notes = happened(session, game, seats, seat, after, since, latest=latest, said=said)
    rules = games.rules_of(game)
    runs: list[tuple[bool, list[LogEntry]]] = []
    for entry in entries:
        mine = entry.player == seat.name
        if runs and runs[-1][0] == mine:
            runs[-1][1].append(entry)
        else:
            runs.append((mine, [entry]))
    lines = [Line(i18n.text(N_("Earlier moves are in the log on your page.")))] if truncated else []
    waiting = sorted(notes, key=lambda note: note[0])
    for n, (mine, run) in enumerate(runs):
        # the notes made before the next run are told with this one, or just before it when it is the seat's own
        until = runs[n + 1][1][0].at if n + 1 < len(runs) else None
        here = [w for w in waiting if until is None or w[0] < until]
        waiting = waiting[len(here) :]
        if mine:
            early = [w for w in here if w[0] <= run[0].at]
            lines += [Line(text) for _, text in early]
            lines += [Line(text, mine=True) for text in rules.narrate(run, seat.name)]
            lines += [Line(text) for _, text in here[len(early) :]]
        else:
            lines += [Line(text) for text in rules.narrate(run, seat.name, here)]
    lines += [Line(text) for _, text in waiting]
    return lines


def _turn_before(
    session: Session, game: Any, seat: Any, latest: games.Latest | None = None
) -> tuple[int, datetime, bool]:
    """Where the page's story starts: after the move before the seat's latest turn (the run of its moves that ends
    with its last own move) when others moved since, else after its last own move before that turn (0 and the
    game's start if none); its sequence number and time, and whether that lies before the moves read. The latest
    moves are read in a short window first (nearly always enough), then in STORY_MOVES."""
    rules = games.rules_of(game)

    def own(row: Any) -> bool:
        mine = row.seat == seat.position and row.source in OWN_SOURCES
        return mine and not rules.is_standing(rules.parse_move(seat.name, row.move))

    def windows() -> Iterator[tuple[Sequence[Any], bool]]:
        """The latest moves in growing windows, and whether moves beyond each may decide."""
        if latest is not None:
            yield latest.rows, not latest.complete
        for limit in (STORY_FIRST_LOOK, STORY_MOVES):
            if latest is None or limit > len(latest.rows):
                found = session.execute(_RECENT, {"game_id": game.id, "limit": limit}).all()
                yield found, len(found) == limit and limit < STORY_MOVES

    rows: Sequence[Any] = []
    for rows, more in windows():
        i = next((i for i, row in enumerate(rows) if own(row)), len(rows))
        others_since = any(row.seat != seat.position for row in rows[:i])
        while i < len(rows) and rows[i].seat == seat.position:  # back over the latest turn
            i += 1
        if others_since and i < len(rows):  # the others moved since: the latest turn and what followed are enough
            return rows[i].seq, outbox.as_utc(rows[i].created_at), False
        before = next((row for row in rows[i:] if own(row)), None)
        if before is not None:
            return before.seq, outbox.as_utc(before.created_at), False
        if not more:
            break
    truncated = len(rows) == STORY_MOVES and rows[-1].seq > 1
    return (rows[-1].seq - 1 if truncated else 0), outbox.as_utc(game.created_at), truncated


def last_own_move(session: Session, game: Game, seat: Seat) -> tuple[int, datetime, bool]:
    """The sequence number and time of ``seat``'s last own move (0 and the game's start if none), and whether it
    lies before the moves read (only the latest STORY_MOVES are)."""
    rules = games.rules_of(game)
    for limit in (min(STORY_FIRST_LOOK, STORY_MOVES), STORY_MOVES):  # its last move is nearly always near
        recent = session.execute(_RECENT, {"game_id": game.id, "limit": limit}).all()
        after, since = (recent[-1].seq - 1 if recent else 0), outbox.as_utc(game.created_at)
        truncated = after > 0  # the seat made no move of its own in the window, which does not reach the start
        for row in recent:
            own = row.seat == seat.position and row.source in OWN_SOURCES
            if own and not rules.is_standing(rules.parse_move(seat.name, row.move)):
                after, since, truncated = row.seq, outbox.as_utc(row.created_at), False
                break
        if not truncated or len(recent) < limit:
            break
    return after, since, truncated


def happened(
    session: Session,
    game: Game,
    seats: Sequence[Seat],
    seat: Seat,
    after: int,
    since: datetime,
    *,
    latest: games.Latest | None = None,
    said: Sequence[talk.Said] | None = None,
) -> tuple[int, list[LogEntry], list[Note]]:
    """The moves logged after move ``after`` and the notes since ``since`` that ``seat`` may read, with the
    sequence number of the last move read (``after`` if none); from ``latest`` (the latest moves, already read)
    and ``said`` (the latest table talk, already read) when they reach back far enough."""
    names = {s.position: s.name for s in seats}
    last, entries = after, []
    if latest is not None and (latest.complete or (latest.rows and latest.rows[-1].seq <= after + 1)):
        rows: Iterable[Any] = [r for r in reversed(latest.rows) if r.seq > after]
    else:
        rows = session.execute(_SINCE, {"game_id": game.id, "after": after})
    for r in rows:
        last = r.seq
        entries.append(LogEntry(names[r.seat], r.source, r.events, outbox.as_utc(r.created_at)))
    notes: list[Note] = [
        (
            outbox.as_utc(s.left_at),
            i18n.text(N_("%(name)s left the game; a bot plays for them from now on."), name=s.name),
        )
        for s in seats
        if s.left_at is not None and s.id != seat.id and outbox.as_utc(s.left_at) > since
    ]
    notices = audit.actions_since(session=session, game_id=game.id or 0, since=since)
    notes += [(outbox.as_utc(n.at), n.text) for n in notices if n.seat in (None, seat.position)]
    if said is not None and len(said) < talk.SHOWN:  # every message not hidden
        talked = [m for m in said if m.at > since]
    else:
        talked = talk.said(session=session, game_id=game.id or 0, names=names, since=since)
    notes += [
        (m.at, i18n.text(N_("%(name)s said: “%(text)s”"), name=m.name, text=m.text))
        for m in talked
        if m.name != seat.name
    ]
    return last, entries, notes
