"""Time rules of a game, as pure functions: the policy, quiet hours, reminders, deadlines and absences.

Nothing here touches the database, and but for ``now`` nothing reads the clock: ``now`` is a parameter of every
rule, and every datetime given or returned is aware and in UTC. Local times are worked out with ``zoneinfo``,
including the hours that do not exist (spring forward) or happen twice (fall back).

``now()`` is the server's one source of the current time: the web, the scheduler, the sender, the signed links
and the tests all ask it, and a test or a simulation sets another clock with ``use_clock`` (or ``frozen``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, fields
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Clock = Callable[[], datetime]
"""A clock: a function that returns now, aware and in UTC."""


def _wall() -> datetime:
    return datetime.now(UTC)


_source: Clock = _wall


def now() -> datetime:
    """Now, aware and in UTC, by the clock in use (the wall clock unless ``use_clock`` set another)."""
    return _source()


@contextmanager
def use_clock(clock: Clock) -> Iterator[Clock]:
    """Make ``clock`` the source of ``now()`` for the whole process until the block ends (tests, the simulator)."""
    global _source
    before, _source = _source, clock
    try:
        yield clock
    finally:
        _source = before


def frozen(at: datetime) -> AbstractContextManager[Clock]:
    """``use_clock`` with a clock that always says ``at`` (aware; naive means UTC)."""
    fixed = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    return use_clock(lambda: fixed)


def N_(text: str) -> str:
    """Mark ``text`` as a message key for the catalogs (the server words it when it shows it)."""
    return text


def Np_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message key that counts (``%(num)d``): its singular and plural forms, for the catalogs."""
    return singular, plural


TIMEOUTS = ("bot", "pause")
"""What happens at a deadline: the game's default bot decides for the seat until its wait is over, or the game
pauses."""

MAX_HOURS = 720
MAX_DEADLINE_HOURS = 2160
MAX_REMINDERS = 10
MAX_ABSENCE_DAYS = 90
DEFAULT_QUIET = "22:00-08:00"
_CLOCK = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")


class TimingError(ValueError):
    """A setting or request about time that cannot be used: ``key`` (a message key, English; a (singular, plural)
    pair for a message that counts ``num``) with ``params``. The server puts it into the reader's words; ``str()``
    is the English."""

    def __init__(self, key: str | tuple[str, str], **params: Any) -> None:
        self.key, self.params = key, params
        chosen = key if isinstance(key, str) else key[0] if params.get("num") == 1 else key[1]
        shown = {k: f"{v.day} {v:%B %Y}" if isinstance(v, date) else v for k, v in params.items()}
        super().__init__(chosen % shown if params else chosen)


class PolicyError(TimingError):
    """A policy or quiet-hours setting that cannot be used; the message names it and says why."""


class AbsenceError(TimingError):
    """An absence that is not allowed (in the past, or beyond the game's cap); the message says why."""


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise PolicyError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


@dataclass(frozen=True)
class Policy:
    """A game's reminder, deadline and absence settings, chosen when the game is created."""

    first_reminder_hours: int = 24
    reminder_every_hours: int = 24
    max_reminders: int = 3
    deadline_hours: int | None = 72
    timeout: str = "bot"
    absence_cap_days: int = 14

    def __post_init__(self) -> None:
        _whole(self.first_reminder_hours, "the hours before the first reminder", 1, MAX_HOURS)
        _whole(self.reminder_every_hours, "the hours between reminders", 1, MAX_HOURS)
        _whole(self.max_reminders, "the number of reminders", 0, MAX_REMINDERS)
        if self.deadline_hours is not None:
            _whole(self.deadline_hours, "the hours before the deadline", 1, MAX_DEADLINE_HOURS)
        if self.timeout not in TIMEOUTS:
            raise PolicyError(f"the timeout policy must be one of {', '.join(TIMEOUTS)}, not {self.timeout!r}")
        _whole(self.absence_cap_days, "the days of absence allowed", 0, MAX_ABSENCE_DAYS)

    def to_json(self) -> dict[str, Any]:
        """The policy as a JSON object (stored on the game)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Policy:
        """A policy from a JSON object (missing keys take the defaults); PolicyError if anything is wrong."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise PolicyError("a policy must be a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise PolicyError(f"unknown policy setting {unknown[0]!r}")
        return cls(**data)


@dataclass(frozen=True)
class QuietHours:
    """Local wall-clock hours without reminders, from ``start`` up to ``end`` (may wrap midnight)."""

    start: time
    end: time

    @classmethod
    def parse(cls, text: Any) -> QuietHours:
        """From ``"22:00-08:00"``; equal times mean no quiet hours."""
        if not isinstance(text, str) or "-" not in text:
            raise PolicyError(f"quiet hours are written like 22:00-08:00, not {text!r}")
        start, _, end = text.partition("-")
        return cls.of(start.strip(), end.strip())

    @classmethod
    def of(cls, start: Any, end: Any) -> QuietHours:
        """From two ``HH:MM`` times (24-hour clock)."""
        return cls(_clock(start, "the start of the quiet hours"), _clock(end, "the end of the quiet hours"))

    @property
    def empty(self) -> bool:
        """True when there are no quiet hours (start equals end)."""
        return self.start == self.end

    def contains(self, wall: time) -> bool:
        """True if a local wall-clock time falls in the quiet hours."""
        wall = wall.replace(tzinfo=None, fold=0)
        if self.empty:
            return False
        if self.start < self.end:
            return self.start <= wall < self.end
        return wall >= self.start or wall < self.end

    def __str__(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M}"


def _clock(value: Any, what: str) -> time:
    match = _CLOCK.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise PolicyError(f"{what} must be a time like 08:00 (24-hour clock), not {value!r}")
    return time(int(match.group(1)), int(match.group(2)))


@dataclass(frozen=True)
class Absence:
    """A stretch of time a player is away: from ``start`` up to (not including) ``end``."""

    start: datetime
    end: datetime


@dataclass(frozen=True)
class SeatClock:
    """What the time rules need to know of a seat: its time zone, quiet hours and absence."""

    tz: tzinfo
    quiet: QuietHours
    away: Absence | None = None


def utc(moment: datetime | None) -> datetime | None:
    """``moment`` as an aware UTC datetime (SQLite gives stored times back naive, in UTC), or None."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def zone(name: str) -> tzinfo:
    """The time zone of that name (UTC for "" or "UTC"), or UTC if it is not known: the one place a stored zone name
    becomes a zone."""
    if name in ("", "UTC"):
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


# ---------------------------------------------------------------------------------------------- local time


def instants_at(day: date, wall: time, tz: tzinfo) -> list[datetime]:
    """The UTC instants at which the clock in ``tz`` shows ``wall`` on ``day``, in order.

    Usually one; two in an hour that is repeated (fall back); for a time the clock jumps over
    (spring forward), the instant of the jump, which is the first one with a later wall time.
    """
    naive = datetime.combine(day, wall.replace(tzinfo=None, fold=0))
    found: list[datetime] = []
    for fold in (0, 1):
        instant = naive.replace(tzinfo=tz, fold=fold).astimezone(UTC)
        if instant.astimezone(tz).replace(tzinfo=None, fold=0) == naive and instant not in found:
            found.append(instant)
    if found:
        return sorted(found)
    low, high = sorted(naive.replace(tzinfo=tz, fold=f).astimezone(UTC) for f in (0, 1))
    return [_first_offset_change(low, high, tz)]


def _first_offset_change(low: datetime, high: datetime, tz: tzinfo) -> datetime:
    """The instant in (low, high] where the UTC offset of ``tz`` becomes that of ``high`` (one change)."""
    target = high.astimezone(tz).utcoffset()
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        middle = middle.replace(microsecond=0)
        if middle <= low:
            middle = low + timedelta(seconds=1)
        if middle.astimezone(tz).utcoffset() == target:
            high = middle
        else:
            low = middle
    return high


def _offset_changes(start: datetime, stop: datetime, tz: tzinfo) -> list[datetime]:
    """The instants in (start, stop] where the UTC offset changes, found hour by hour."""
    out = []
    step = timedelta(hours=1)
    here = start
    while here < stop:
        there = min(here + step, stop)
        if here.astimezone(tz).utcoffset() != there.astimezone(tz).utcoffset():
            out.append(_first_offset_change(here, there, tz))
        here = there
    return out


def in_quiet(instant: datetime, quiet: QuietHours, tz: tzinfo) -> bool:
    """True if ``instant`` falls in the quiet hours of the local clock in ``tz``."""
    return quiet.contains(instant.astimezone(tz).time())


def end_of_quiet(instant: datetime, quiet: QuietHours, tz: tzinfo) -> datetime:
    """``instant`` itself, or, if it falls in the quiet hours, the first instant after them."""
    if not in_quiet(instant, quiet, tz):
        return instant
    today = instant.astimezone(tz).date()
    candidates = [
        at
        for day in (today, today + timedelta(days=1), today + timedelta(days=2))
        for at in instants_at(day, quiet.end, tz)
        if at > instant
    ]
    horizon = min(candidates)
    # The clock may also leave the quiet hours by jumping (a daylight-saving change), before `end`.
    candidates += _offset_changes(instant, horizon, tz)
    return min(at for at in candidates if at > instant and not in_quiet(at, quiet, tz))


def local_day_start(day: date, tz: tzinfo) -> datetime:
    """The first instant of ``day`` in ``tz``."""
    return instants_at(day, time(0), tz)[0]


def local_date(instant: datetime, tz: tzinfo) -> date:
    """The date in ``tz`` at ``instant``."""
    return instant.astimezone(tz).date()


# ---------------------------------------------------------------------------------------------- waits


def absence_credit(away: Absence | None, since: datetime) -> timedelta:
    """How much of the absence lies after ``since``: the time a deadline moves by."""
    if away is None:
        return timedelta(0)
    return max(timedelta(0), away.end - max(away.start, since))


def deadline_for(policy: Policy, since: datetime, away: Absence | None) -> datetime | None:
    """The deadline of a wait that began at ``since``, moved by the player's absence; None if the game has none."""
    if policy.deadline_hours is None:
        return None
    return since + timedelta(hours=policy.deadline_hours) + absence_credit(away, since)


def moved_deadline(
    deadline: datetime, *, since: datetime, now: datetime, old: Absence | None, new: Absence | None
) -> datetime:
    """The deadline after the player changed their absence at ``now``: the part still ahead is replaced."""
    ahead = max(since, now)
    return deadline - absence_credit(old, ahead) + absence_credit(new, ahead)


def reminder_time(at: datetime, clock: SeatClock, deadline: datetime | None) -> datetime | None:
    """When a reminder meant for ``at`` may go: after the absence and out of quiet hours; None if that is too late."""
    if clock.away is not None and clock.away.start <= at < clock.away.end:
        at = clock.away.end
    at = end_of_quiet(at, clock.quiet, clock.tz)
    if deadline is not None and at >= deadline:
        return None
    return at


def first_reminder(policy: Policy, since: datetime, clock: SeatClock, deadline: datetime | None) -> datetime | None:
    """When the first reminder of a wait that began at ``since`` is due, or None."""
    if policy.max_reminders < 1:
        return None
    return reminder_time(since + timedelta(hours=policy.first_reminder_hours), clock, deadline)


def next_reminder(
    policy: Policy, last_sent: datetime, sent: int, clock: SeatClock, deadline: datetime | None
) -> datetime | None:
    """When the reminder after the ``sent``-th one (sent at ``last_sent``) is due, or None if there is none."""
    if sent >= policy.max_reminders:
        return None
    return reminder_time(last_sent + timedelta(hours=policy.reminder_every_hours), clock, deadline)


def planned_reminder(
    policy: Policy,
    *,
    since: datetime,
    sent: int,
    last_sent: datetime | None,
    clock: SeatClock,
    deadline: datetime | None,
    now: datetime,
) -> datetime | None:
    """The next reminder worked out again (after the seat's absence or quiet hours changed), never before ``now``."""
    if sent >= policy.max_reminders:
        return None
    if sent == 0 or last_sent is None:
        planned = since + timedelta(hours=policy.first_reminder_hours)
    else:
        planned = last_sent + timedelta(hours=policy.reminder_every_hours)
    return reminder_time(max(planned, now), clock, deadline)


@dataclass(frozen=True)
class ReminderStep:
    """What a due reminder slot does: send reminder ``number`` now (or not yet), and when the next is due."""

    send: bool
    number: int
    next_at: datetime | None
    last: bool = False


def reminder_step(
    policy: Policy, *, now: datetime, sent: int, clock: SeatClock, deadline: datetime | None
) -> ReminderStep:
    """Decide a due reminder at ``now``: send it once (however late), or wait out an absence or quiet hours.

    The next reminder is counted from now, so a scheduler that was down sends one reminder, not one per
    missed interval. No reminder is sent at or after the deadline: the deadline itself follows.
    """
    if deadline is not None and deadline <= now:
        return ReminderStep(False, sent, None)
    if sent >= policy.max_reminders:
        return ReminderStep(False, sent, None)
    allowed = reminder_time(now, clock, deadline)
    if allowed is None or allowed > now:
        return ReminderStep(False, sent, allowed)
    number = sent + 1
    following = next_reminder(policy, now, number, clock, deadline)
    return ReminderStep(True, number, following, last=following is None)


# ---------------------------------------------------------------------------------------------- absences


def absence_days(today: date, until: date) -> int:
    """Days an absence from ``today`` up to and including ``until`` uses of the game's cap."""
    return (until - today).days + 1


def plan_absence(*, today: date, until: date, used: int, current_until: date | None, cap: int) -> int:
    """The days of the cap used once the absence runs until ``until`` (replacing a current one); else AbsenceError.

    Days of a current absence still ahead (today included) are given back first; days already past stay used.
    """
    if cap <= 0:
        raise AbsenceError(N_("This game does not allow time away."))
    if not isinstance(until, date) or isinstance(until, datetime):
        raise AbsenceError(N_("Choose the date you are back."))
    if until < today:
        raise AbsenceError(N_("%(date)s is in the past: choose today or a later date."), date=until)
    kept = used - (absence_days(today, current_until) if current_until is not None and current_until >= today else 0)
    wanted = absence_days(today, until)
    left = cap - kept
    if wanted > left:
        if left <= 0:
            raise AbsenceError(
                Np_(
                    "You have used the %(num)d day of time away this game allows.",
                    "You have used all %(num)d days of time away this game allows.",
                ),
                num=cap,
            )
        last = today + timedelta(days=left - 1)
        raise AbsenceError(
            Np_(
                "This game allows %(cap)d days of time away in all; you have %(num)d left, "
                "so the latest date is %(date)s.",
                "This game allows %(cap)d days of time away in all; you have %(num)d left, "
                "so the latest date is %(date)s.",
            ),
            num=left,
            cap=cap,
            date=last,
        )
    return kept + wanted


def end_absence_days(*, today: date, used: int, current_until: date | None) -> int:
    """The days of the cap used once a player is back today: the days still ahead (after today) are given back."""
    if current_until is None or current_until < today:
        return used
    return used - (current_until - today).days


def absence_of(away_from: datetime | None, away_until: date | None, tz: tzinfo) -> Absence | None:
    """A stored absence (since ``away_from``, up to and including the local date ``away_until``), or None."""
    if away_from is None or away_until is None:
        return None
    return Absence(away_from, local_day_start(away_until + timedelta(days=1), tz))
