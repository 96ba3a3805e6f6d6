"""Go's ``time.Time``, ``time.Month`` and ``time.Weekday``: an instant with nanoseconds,
shown in a zone.

Python's ``datetime`` has neither Go's nanoseconds, nor year 0 and negative years, nor its
fixed-zone naming, so a time is kept as Unix seconds and nanoseconds plus a zone, and the
calendar is computed with the proleptic Gregorian day count Go uses (``time/time.go``).
Layouts are in :mod:`orchestrator.golang.timelayout`, durations in
:mod:`orchestrator.golang.durations`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Self

from orchestrator.golang.durations import MAX_DURATION, MIN_DURATION, SECOND, Duration

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]  # fmt: skip
DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
ZERO_UNIX = -62135596800
"""Go's zero Time, January 1, year 1, 00:00:00 UTC, in Unix seconds."""


class Month(int):
    """``time.Month``: an int that prints as its English name."""

    go_type = "time.Month"
    go_kind = "int"

    def go_string(self) -> str:
        return MONTHS[int(self) - 1] if 1 <= self <= 12 else f"%!Month({int(self)})"


class Weekday(int):
    """``time.Weekday`` (Sunday is 0)."""

    go_type = "time.Weekday"
    go_kind = "int"

    def go_string(self) -> str:
        return DAYS[int(self)] if 0 <= self <= 6 else f"%!Weekday({int(self)})"


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (year 0 included, as in Go)."""
    year -= month <= 2
    era = year // 400  # floor division: no adjustment for negative years
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def days_in(year: int, month: int) -> int:
    if month == 2:
        return 29 if is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


@dataclass(frozen=True)
class Wall:
    """A wall clock reading: what Go's ``Date``, ``Clock``, ``Weekday`` and ``YearDay`` give."""

    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    weekday: int
    """Sunday is 0, as time.Weekday counts."""
    yday: int


def wall_clock(seconds: int) -> Wall:
    """The calendar reading of ``seconds`` since the Unix epoch (already shifted to a zone)."""
    days, rest = divmod(seconds, 86400)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    year = yoe + era * 400 + (month <= 2)
    yday = days - days_from_civil(year, 1, 1) + 1
    return Wall(year, month, day, rest // 3600, rest // 60 % 60, rest % 60, (days + 4) % 7, yday)


def civil_seconds(year: int, month: int, day: int, hour: int, minute: int, second: int) -> int:
    """Seconds since the epoch of a wall clock reading in UTC (Go's ``Date`` normalises)."""
    month0 = month - 1
    year += month0 // 12
    days = days_from_civil(year, month0 % 12 + 1, 1) + day - 1
    return days * 86400 + hour * 3600 + minute * 60 + second


@dataclass(frozen=True)
class Zone:
    """A ``time.Location``: a fixed zone (its name, ``UTC`` or ``""`` for an offset read
    from text, and offset in seconds) or an IANA zone whose offset depends on the instant."""

    name: str
    offset: int = 0
    tz: Any = None

    def at(self, unix: int) -> tuple[str, int]:
        """The zone's name and offset at an instant."""
        if self.tz is None:
            return self.name, self.offset
        moment = dt.datetime.fromtimestamp(unix, dt.UTC).astimezone(self.tz)
        offset = moment.utcoffset()
        assert offset is not None
        return moment.tzname() or "", int(offset.total_seconds())


UTC = Zone("UTC", 0)


@dataclass(frozen=True)
class Time:
    """``time.Time``: an instant in Unix seconds and nanoseconds, and the zone it is shown in."""

    seconds: int
    nanos: int = 0
    zone: Zone = UTC

    def zone_at(self) -> tuple[str, int]:
        """The zone's name and offset at this instant."""
        return self.zone.at(self.seconds)

    def local(self) -> Wall:
        """The wall clock in the time's own zone."""
        return wall_clock(self.seconds + self.zone_at()[1])

    def unix_nano(self) -> int:
        return self.seconds * SECOND + self.nanos

    def is_zero(self) -> bool:
        return self.seconds == ZERO_UNIX and self.nanos == 0

    def add(self, duration: int) -> Self:
        seconds, nanos = divmod(self.unix_nano() + int(duration), SECOND)
        return type(self)(seconds, nanos, self.zone)

    def sub(self, other: Time) -> Duration:
        """``Time.Sub``: clamped to the Duration range, as Go clamps it."""
        diff = self.unix_nano() - other.unix_nano()
        return Duration(max(MIN_DURATION, min(MAX_DURATION, diff)))

    def add_date(self, years: int, months: int, days: int) -> Self:
        """``Time.AddDate``: the wall clock moved, overflowing days normalised as Go does."""
        wall = self.local()
        offset = self.zone_at()[1]
        local = civil_seconds(
            wall.year + years, wall.month + months, wall.day + days,
            wall.hour, wall.minute, wall.second,
        )  # fmt: skip
        return type(self)(local - offset, self.nanos, self.zone)

    def in_zone(self, zone: Zone) -> Self:
        return type(self)(self.seconds, self.nanos, zone)

    def before(self, other: Time) -> bool:
        return self.unix_nano() < other.unix_nano()

    def after(self, other: Time) -> bool:
        return self.unix_nano() > other.unix_nano()

    def equal(self, other: Time) -> bool:
        return self.unix_nano() == other.unix_nano()

    def format(self, layout: str) -> str:
        """``Time.Format``."""
        from orchestrator.golang.timelayout import format_time

        return format_time(self, layout)

    def go_string(self) -> str:
        """``Time.String``: ``2006-01-02 15:04:05.999999999 -0700 MST``."""
        return self.format("2006-01-02 15:04:05.999999999 -0700 MST")
