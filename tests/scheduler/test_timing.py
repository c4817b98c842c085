"""The pure time rules (pbem.timing): the policy, quiet hours across daylight-saving changes, reminders,
deadlines and absences."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem import timing
from pbem.timing import Absence, Policy, PolicyError, QuietHours, SeatClock

AMS = ZoneInfo("Europe/Amsterdam")
NY = ZoneInfo("America/New_York")
UTCZ = ZoneInfo("UTC")
NIGHT = QuietHours.parse("22:00-08:00")
H = timedelta(hours=1)


def at(tz: ZoneInfo, y: int, mo: int, d: int, h: int, mi: int = 0, fold: int = 0) -> datetime:
    """A local wall-clock time as an aware UTC instant."""
    return datetime(y, mo, d, h, mi, tzinfo=tz, fold=fold).astimezone(UTC)


def utc(y: int, mo: int, d: int, h: int, mi: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi, tzinfo=UTC)


# ---------------------------------------------------------------------------------------------- policy


def test_policy_defaults_and_json_round_trip() -> None:
    policy = Policy()
    assert (policy.first_reminder_hours, policy.reminder_every_hours, policy.max_reminders) == (24, 24, 3)
    assert (policy.deadline_hours, policy.timeout, policy.absence_cap_days) == (72, "bot", 14)
    assert Policy.from_json(policy.to_json()) == policy
    assert Policy.from_json(None) == policy
    other = Policy(
        first_reminder_hours=12, reminder_every_hours=6, max_reminders=0, deadline_hours=None, timeout="pause"
    )
    assert Policy.from_json(other.to_json()) == other
    assert Policy.from_json({"timeout": "pause"}) == Policy(timeout="pause")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"first_reminder_hours": 0}, "the hours before the first reminder must be a whole number from 1 to 720"),
        ({"reminder_every_hours": 1.5}, "the hours between reminders must be a whole number"),
        ({"max_reminders": -1}, "the number of reminders must be a whole number from 0 to 10"),
        ({"max_reminders": True}, "the number of reminders must be a whole number"),
        ({"deadline_hours": "72"}, "the hours before the deadline must be a whole number"),
        ({"deadline_hours": 0}, "the hours before the deadline must be a whole number from 1"),
        ({"timeout": "kick"}, "the timeout policy must be one of bot, pause, not 'kick'"),
        ({"absence_cap_days": 91}, "the days of absence allowed must be a whole number from 0 to 90"),
        ({"reminders": 3}, "unknown policy setting 'reminders'"),
        ([1, 2], "a policy must be a JSON object"),
    ],
)
def test_a_bad_policy_is_refused_with_a_message_naming_the_setting(data: object, message: str) -> None:
    with pytest.raises(PolicyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Policy.from_json(data)


@pytest.mark.parametrize("text", ["22-08", "22:00", "24:00-08:00", "22:00-8:00", "22:60-08:00", "ab:cd-08:00", 2200])
def test_bad_quiet_hours_are_refused(text: object) -> None:
    with pytest.raises(PolicyError, match=r"quiet hours|time like 08:00"):
        QuietHours.parse(text)


def test_quiet_hours_wrap_midnight_and_equal_times_mean_none() -> None:
    assert NIGHT.contains(time(22)) and NIGHT.contains(time(3)) and NIGHT.contains(time(7, 59))
    assert not NIGHT.contains(time(8)) and not NIGHT.contains(time(21, 59))
    lunch = QuietHours.parse("12:00-14:00")
    assert lunch.contains(time(13)) and not lunch.contains(time(14)) and not lunch.contains(time(11))
    none = QuietHours.parse("00:00-00:00")
    assert none.empty and not none.contains(time(0))
    assert str(NIGHT) == "22:00-08:00"


# ---------------------------------------------------------------------------------------------- local time


def test_instants_at_an_ordinary_time_a_repeated_time_and_a_skipped_time() -> None:
    assert timing.instants_at(date(2026, 6, 1), time(8), AMS) == [utc(2026, 6, 1, 6)]
    # 2026-10-25 02:30 happens twice in Amsterdam (CEST, then CET).
    assert timing.instants_at(date(2026, 10, 25), time(2, 30), AMS) == [
        utc(2026, 10, 25, 0, 30),
        utc(2026, 10, 25, 1, 30),
    ]
    # 2026-03-29 02:30 never happens: the clock jumps from 02:00 to 03:00 at 01:00 UTC.
    assert timing.instants_at(date(2026, 3, 29), time(2, 30), AMS) == [utc(2026, 3, 29, 1)]
    # New York: 2026-03-08 02:00 -> 03:00 (07:00 UTC); 2026-11-01 01:00-02:00 twice.
    assert timing.instants_at(date(2026, 3, 8), time(2, 15), NY) == [utc(2026, 3, 8, 7)]
    assert timing.instants_at(date(2026, 11, 1), time(1, 30), NY) == [utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 6, 30)]


@pytest.mark.parametrize(
    ("tz", "moment", "expected", "why"),
    [
        (AMS, at(AMS, 2026, 6, 1, 23), at(AMS, 2026, 6, 2, 8), "an ordinary night"),
        (AMS, at(AMS, 2026, 6, 1, 12), at(AMS, 2026, 6, 1, 12), "not in quiet hours: unchanged"),
        (AMS, at(AMS, 2026, 6, 2, 7, 59), at(AMS, 2026, 6, 2, 8), "a minute before the end"),
        (AMS, at(AMS, 2026, 3, 28, 23, 30), utc(2026, 3, 29, 6), "spring forward night: 08:00 CEST is 06:00 UTC"),
        (AMS, at(AMS, 2026, 10, 24, 23, 30), utc(2026, 10, 25, 7), "fall back night: 08:00 CET is 07:00 UTC"),
        (AMS, utc(2026, 10, 25, 1, 15), utc(2026, 10, 25, 7), "in the repeated hour"),
        (NY, at(NY, 2026, 3, 7, 22, 30), utc(2026, 3, 8, 12), "spring forward night: 08:00 EDT is 12:00 UTC"),
        (NY, at(NY, 2026, 10, 31, 23, 30), utc(2026, 11, 1, 13), "fall back night: 08:00 EST is 13:00 UTC"),
        (NY, utc(2026, 11, 1, 6, 30), utc(2026, 11, 1, 13), "01:30 EST, the second 01:30"),
    ],
)
def test_end_of_quiet_hours(tz: ZoneInfo, moment: datetime, expected: datetime, why: str) -> None:
    assert timing.end_of_quiet(moment, NIGHT, tz) == expected, why


def test_quiet_hours_that_end_in_the_skipped_hour_end_when_the_clock_jumps() -> None:
    quiet = QuietHours.parse("23:00-02:30")
    assert timing.end_of_quiet(at(AMS, 2026, 3, 29, 1, 30), quiet, AMS) == utc(2026, 3, 29, 1)  # 03:00 CEST
    assert timing.end_of_quiet(at(NY, 2026, 3, 8, 1, 45), quiet, NY) == utc(2026, 3, 8, 7)  # 03:00 EDT


def test_quiet_hours_that_end_in_the_repeated_hour() -> None:
    quiet = QuietHours.parse("22:00-01:30")
    first, second = utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 6, 30)  # New York's two 01:30
    assert timing.end_of_quiet(utc(2026, 11, 1, 5, 10), quiet, NY) == first
    assert timing.end_of_quiet(utc(2026, 11, 1, 6, 10), quiet, NY) == second  # back in quiet hours after 01:00 EST


def test_the_clock_falling_back_out_of_quiet_hours_ends_them_at_the_change() -> None:
    quiet = QuietHours.parse("01:30-08:00")  # 01:45 EDT is quiet; an hour later the clock reads 01:00 EST
    assert timing.end_of_quiet(utc(2026, 11, 1, 5, 45), quiet, NY) == utc(2026, 11, 1, 6)


ZONES = [AMS, NY, UTCZ, ZoneInfo("Australia/Lord_Howe"), ZoneInfo("Asia/Kolkata"), ZoneInfo("America/Santiago")]
DST_DAYS = [
    utc(2026, 3, 8, 0),
    utc(2026, 3, 28, 12),
    utc(2026, 4, 4, 12),
    utc(2026, 9, 5, 12),
    utc(2026, 10, 3, 12),
    utc(2026, 10, 24, 12),
    utc(2026, 10, 31, 12),
]


@st.composite
def instants(draw: st.DrawFn) -> datetime:
    """Instants near daylight-saving changes (and some anywhere in 2026)."""
    base = draw(st.sampled_from([*DST_DAYS, utc(2026, 1, 1, 0)]))
    return base + timedelta(seconds=draw(st.integers(0, 3 * 86400 if base.month != 1 else 364 * 86400)))


clock_times = st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 45, 59]))


@settings(max_examples=150, deadline=None)
@given(moment=instants(), tz=st.sampled_from(ZONES), start=clock_times, end=clock_times)
@example(
    moment=datetime(2026, 9, 5, 12, 0, tzinfo=UTC), tz=ZoneInfo("America/Santiago"), start=time(0, 15), end=time(0, 0)
)
def test_end_of_quiet_is_the_first_instant_out_of_quiet_hours(
    moment: datetime, tz: ZoneInfo, start: time, end: time
) -> None:
    quiet = QuietHours(start, end)
    result = timing.end_of_quiet(moment, quiet, tz)
    assert result >= moment
    assert not timing.in_quiet(result, quiet, tz)
    # A free stretch shorter than a clock change can be jumped over (America/Santiago skips 00:00-01:00), so
    # the way out may be a day later: never more than two days and the change.
    assert result - moment <= timedelta(hours=50)
    # Every minute from `moment` up to `result` is quiet (so the result is the first way out).
    step = moment
    while step < result:
        assert timing.in_quiet(step, quiet, tz), (step, result)
        step = (step + timedelta(minutes=1)).replace(second=0, microsecond=0)
    if result > moment:
        assert timing.in_quiet(result - timedelta(seconds=1), quiet, tz)


@settings(max_examples=150, deadline=None)
@given(day=st.dates(date(2026, 1, 1), date(2026, 12, 31)), wall=clock_times, tz=st.sampled_from(ZONES))
def test_instants_at_show_that_wall_time_or_are_the_jump_over_it(day: date, wall: time, tz: ZoneInfo) -> None:
    found = timing.instants_at(day, wall, tz)
    assert 1 <= len(found) <= 2 and found == sorted(found)
    shown = [f.astimezone(tz) for f in found]
    if all(s.date() == day and s.time().replace(fold=0) == wall for s in shown):
        return
    (jump,) = found  # a skipped time: just before the jump the clock is earlier, at it later
    assert (jump - timedelta(seconds=1)).astimezone(tz).replace(tzinfo=None) < datetime.combine(day, wall)
    assert jump.astimezone(tz).replace(tzinfo=None) > datetime.combine(day, wall)


# ---------------------------------------------------------------------------------------------- reminders


def clock_of(tz: ZoneInfo = UTCZ, quiet: QuietHours = NIGHT, away: Absence | None = None) -> SeatClock:
    return SeatClock(tz, quiet, away)


def test_first_and_next_reminders_follow_the_policy() -> None:
    policy = Policy()
    since = utc(2026, 6, 1, 10)
    deadline = timing.deadline_for(policy, since, None)
    assert deadline == since + 72 * H
    assert timing.first_reminder(policy, since, clock_of(), deadline) == since + 24 * H
    assert timing.next_reminder(policy, since + 24 * H, 1, clock_of(), deadline) == since + 48 * H
    # The third slot would fall on the deadline itself: no reminder then, the deadline follows.
    assert timing.next_reminder(policy, since + 48 * H, 2, clock_of(), deadline) is None
    # Without a deadline, three reminders and no more.
    free = Policy(deadline_hours=None)
    assert timing.next_reminder(free, since + 48 * H, 2, clock_of(), None) == since + 72 * H
    assert timing.next_reminder(free, since + 72 * H, 3, clock_of(), None) is None
    assert timing.first_reminder(Policy(max_reminders=0), since, clock_of(), None) is None


def test_a_reminder_in_quiet_hours_waits_for_their_end_in_the_players_zone() -> None:
    since = at(AMS, 2026, 3, 27, 23, 30)  # the wait begins late at night before the change
    assert timing.first_reminder(Policy(), since, clock_of(AMS), None) == utc(2026, 3, 29, 6)  # 08:00 CEST


def test_reminder_step_sends_once_and_counts_the_next_from_now() -> None:
    policy = Policy(deadline_hours=None)
    now = utc(2026, 6, 4, 12)  # three days late
    step = timing.reminder_step(policy, now=now, sent=0, clock=clock_of(), deadline=None)
    assert step == timing.ReminderStep(True, 1, now + 24 * H, last=False)
    step = timing.reminder_step(policy, now=now + 24 * H, sent=2, clock=clock_of(), deadline=None)
    assert step.send and step.number == 3 and step.next_at is None and step.last


def test_reminder_step_waits_out_quiet_hours_and_absences_and_stops_at_the_deadline() -> None:
    policy = Policy()
    night = utc(2026, 6, 1, 23)
    step = timing.reminder_step(policy, now=night, sent=0, clock=clock_of(), deadline=None)
    assert not step.send and step.next_at == utc(2026, 6, 2, 8)
    away = Absence(utc(2026, 6, 1, 0), utc(2026, 6, 3, 0))
    step = timing.reminder_step(policy, now=utc(2026, 6, 2, 12), sent=0, clock=clock_of(away=away), deadline=None)
    assert not step.send and step.next_at == utc(2026, 6, 3, 8)  # the absence ends at midnight: quiet until 08:00
    step = timing.reminder_step(policy, now=utc(2026, 6, 2, 12), sent=0, clock=clock_of(), deadline=utc(2026, 6, 2, 12))
    assert not step.send and step.next_at is None
    late = timing.reminder_step(policy, now=night, sent=0, clock=clock_of(), deadline=utc(2026, 6, 2, 7))
    assert not late.send and late.next_at is None  # quiet hours last past the deadline: no reminder at all
    step = timing.reminder_step(policy, now=utc(2026, 6, 2, 12), sent=1, clock=clock_of(), deadline=utc(2026, 6, 3, 1))
    assert step.send and step.number == 2 and step.last  # the next slot would be past the deadline


# ---------------------------------------------------------------------------------------------- deadlines, absences


def test_the_deadline_moves_by_the_time_away_during_the_wait() -> None:
    since = utc(2026, 6, 1, 10)
    away = Absence(utc(2026, 6, 1, 12), utc(2026, 6, 4, 0))  # from 12:00 until the end of 3 June
    assert timing.deadline_for(Policy(), since, away) == since + 72 * H + (away.end - away.start)
    earlier = Absence(utc(2026, 5, 30, 0), utc(2026, 6, 2, 0))  # began before the wait: only the part after counts
    assert timing.deadline_for(Policy(), since, earlier) == since + 72 * H + (earlier.end - since)
    over = Absence(utc(2026, 5, 1, 0), utc(2026, 5, 3, 0))
    assert timing.deadline_for(Policy(), since, over) == since + 72 * H
    assert timing.deadline_for(Policy(deadline_hours=None), since, away) is None


def test_changing_an_absence_keeps_the_time_already_away() -> None:
    since = utc(2026, 6, 1, 10)
    old = Absence(utc(2026, 6, 1, 12), utc(2026, 6, 6, 0))
    deadline = timing.deadline_for(Policy(), since, old)
    assert deadline is not None
    back = utc(2026, 6, 2, 12)  # back a day after leaving: a day away counts, the rest does not
    moved = timing.moved_deadline(deadline, since=since, now=back, old=old, new=None)
    assert moved == since + 72 * H + (back - old.start)
    longer = Absence(old.start, utc(2026, 6, 8, 0))
    assert timing.moved_deadline(deadline, since=since, now=back, old=old, new=longer) == deadline + 48 * H


def test_absence_days_and_the_cap() -> None:
    today = date(2026, 6, 1)
    assert timing.plan_absence(today=today, until=today, used=0, current_until=None, cap=14) == 1
    assert timing.plan_absence(today=today, until=date(2026, 6, 14), used=0, current_until=None, cap=14) == 14
    with pytest.raises(timing.AbsenceError, match="you have 14 left, so the latest date is 14 June 2026"):
        timing.plan_absence(today=today, until=date(2026, 6, 15), used=0, current_until=None, cap=14)
    with pytest.raises(timing.AbsenceError, match="31 May 2026 is in the past"):
        timing.plan_absence(today=today, until=date(2026, 5, 31), used=0, current_until=None, cap=14)
    with pytest.raises(timing.AbsenceError, match="does not allow time away"):
        timing.plan_absence(today=today, until=today, used=0, current_until=None, cap=0)
    with pytest.raises(timing.AbsenceError, match="used all 3 days"):
        timing.plan_absence(today=today, until=today, used=3, current_until=None, cap=3)
    # Replacing a current absence (until 5 June, 5 days reserved) gives its days from today back first.
    assert timing.plan_absence(today=today, until=date(2026, 6, 3), used=5, current_until=date(2026, 6, 5), cap=5) == 3
    # Back today: the days after today are given back, today stays used.
    assert timing.end_absence_days(today=today, used=5, current_until=date(2026, 6, 5)) == 1


@settings(max_examples=200, deadline=None)
@given(
    used=st.integers(0, 20),
    cap=st.integers(0, 20),
    ahead=st.one_of(st.none(), st.integers(0, 10)),
    wanted=st.integers(-2, 25),
)
def test_the_cap_is_never_exceeded(used: int, cap: int, ahead: int | None, wanted: int) -> None:
    today = date(2026, 6, 1)
    current = None if ahead is None else today + timedelta(days=ahead)
    if current is not None:
        used = max(used, ahead + 1 if ahead is not None else 0)
    until = today + timedelta(days=wanted)
    try:
        total = timing.plan_absence(today=today, until=until, used=used, current_until=current, cap=cap)
    except timing.AbsenceError:
        return
    assert total <= cap
    assert total == used - (0 if current is None else (current - today).days + 1) + wanted + 1


def test_absence_of_ends_at_the_first_instant_after_the_last_day_away() -> None:
    away = timing.absence_of(utc(2026, 3, 27, 9), date(2026, 3, 28), AMS)
    assert away == Absence(utc(2026, 3, 27, 9), utc(2026, 3, 28, 23))  # midnight CET ending 28 March
    assert timing.absence_of(None, date(2026, 3, 28), AMS) is None
