"""Go's ``time.Time`` as templates see it: a moment in a zone, with Go's methods.

Go prints a Time as ``2024-03-04 21:30:33 +0000 UTC`` and templates call its methods
(``.Format``, ``.Unix``, ``.Sub``, ``.Year``). Python's ``datetime`` has no nanoseconds and
none of these, so a time is kept as Unix seconds and nanoseconds plus a zone; layouts are
in :mod:`reporters.gotemplate.timelayout`, durations in :mod:`reporters.gotemplate.godurations`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from reporters.gotemplate.godurations import MS, SECOND, Duration
from reporters.gotemplate.values import GoError, GoFunc, GoInt

_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
_EPOCH = dt.datetime(1970, 1, 1)


class Month(int):
    go_type = "time.Month"
    go_kind = "int"

    def go_string(self) -> str:
        return _MONTHS[int(self) - 1] if 1 <= self <= 12 else f"%!Month({int(self)})"


class Weekday(int):
    go_type = "time.Weekday"
    go_kind = "int"

    def go_string(self) -> str:
        return _DAYS[int(self)] if 0 <= self <= 6 else f"%!Weekday({int(self)})"


@dataclass(frozen=True)
class Zone:
    """A location: a fixed offset with a name, or an IANA zone."""

    name: str
    offset: int = 0
    tz: Any = None

    def at(self, unix: int) -> tuple[str, int]:
        if self.tz is None:
            return self.name, self.offset
        moment = dt.datetime.fromtimestamp(unix, dt.UTC).astimezone(self.tz)
        offset = moment.utcoffset()
        assert offset is not None
        return moment.tzname() or "", int(offset.total_seconds())


UTC = Zone("UTC")


def load_location(name: str) -> Zone:
    """time.LoadLocation ("Local" is UTC here: the reporter and the vectors run with TZ=UTC)."""
    if name in ("", "UTC", "Local"):
        return UTC
    try:
        return Zone(name, 0, ZoneInfo(name))
    except (ZoneInfoNotFoundError, ValueError):
        raise GoError(f"unknown time zone {name}") from None


class GoTime:
    """A Go ``time.Time``: Unix seconds, nanoseconds, and the zone it is shown in."""

    go_type = "time.Time"
    go_kind = "struct"

    def __init__(self, unix: int, nsec: int = 0, zone: Zone = UTC) -> None:
        self.unix = unix
        self.nsec = nsec
        self.zone = zone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoTime) and (self.unix, self.nsec, self.zone) == (
            other.unix,
            other.nsec,
            other.zone,
        )

    def __hash__(self) -> int:
        return hash((self.unix, self.nsec))

    def __repr__(self) -> str:
        return f"GoTime({self.go_string()!r})"

    def fields(self) -> tuple[dt.datetime, str, int]:
        name, offset = self.zone.at(self.unix)
        return _EPOCH + dt.timedelta(seconds=self.unix + offset), name, offset

    def go_string(self) -> str:
        return self.format("2006-01-02 15:04:05.999999999 -0700 MST")

    def go_json(self) -> str:
        return '"' + self.format("2006-01-02T15:04:05.999999999Z07:00") + '"'

    def format(self, layout: str) -> str:
        """Time.Format."""
        from reporters.gotemplate.timelayout import format_time

        return format_time(self, layout)

    def add(self, d: int) -> GoTime:
        total = self.nsec + d
        return GoTime(self.unix + total // SECOND, total % SECOND, self.zone)

    def sub(self, other: GoTime) -> Duration:
        d = (self.unix - other.unix) * SECOND + (self.nsec - other.nsec)
        return Duration(max(min(d, 2**63 - 1), -(2**63)))

    def go_methods(self) -> dict[str, GoFunc]:
        t = self
        T = "time.Time"
        when = t.fields()[0]
        return {
            "Format": GoFunc(t.format, ("string",), returns="string"),
            "String": GoFunc(t.go_string, (), returns="string"),
            "Unix": GoFunc(lambda: t.unix, (), returns="int64"),
            "UnixNano": GoFunc(lambda: t.unix * SECOND + t.nsec, (), returns="int64"),
            "UnixMilli": GoFunc(lambda: (t.unix * SECOND + t.nsec) // MS, (), returns="int64"),
            "UTC": GoFunc(lambda: GoTime(t.unix, t.nsec, UTC), (), returns=T),
            "Local": GoFunc(lambda: GoTime(t.unix, t.nsec, UTC), (), returns=T),
            "Year": GoFunc(lambda: GoInt(when.year), (), returns="int"),
            "Month": GoFunc(lambda: Month(when.month), (), returns="time.Month"),
            "Day": GoFunc(lambda: GoInt(when.day), (), returns="int"),
            "Hour": GoFunc(lambda: GoInt(when.hour), (), returns="int"),
            "Minute": GoFunc(lambda: GoInt(when.minute), (), returns="int"),
            "Second": GoFunc(lambda: GoInt(when.second), (), returns="int"),
            "Nanosecond": GoFunc(lambda: GoInt(t.nsec), (), returns="int"),
            "YearDay": GoFunc(lambda: GoInt(when.timetuple().tm_yday), (), returns="int"),
            "Weekday": GoFunc(
                lambda: Weekday((when.weekday() + 1) % 7), (), returns="time.Weekday"
            ),
            "IsZero": GoFunc(lambda: t.unix == ZERO_UNIX and t.nsec == 0, (), returns="bool"),
            "Add": GoFunc(lambda d: t.add(d), ("time.Duration",), returns=T),
            "Sub": GoFunc(lambda o: t.sub(o), (T,), returns="time.Duration"),
            "AddDate": GoFunc(
                lambda y, m, d: _add_date(t, y, m, d), ("int", "int", "int"), returns=T
            ),
            "Before": GoFunc(lambda o: (t.unix, t.nsec) < (o.unix, o.nsec), (T,), returns="bool"),
            "After": GoFunc(lambda o: (t.unix, t.nsec) > (o.unix, o.nsec), (T,), returns="bool"),
            "Equal": GoFunc(lambda o: (t.unix, t.nsec) == (o.unix, o.nsec), (T,), returns="bool"),
        }


ZERO_UNIX = -62135596800


def _add_date(t: GoTime, years: int, months: int, days: int) -> GoTime:
    when, _, offset = t.fields()
    month0 = when.month - 1 + months
    year = when.year + years + month0 // 12
    month = month0 % 12 + 1
    base = dt.datetime(year, month, 1, when.hour, when.minute, when.second)
    moment = base + dt.timedelta(days=when.day - 1 + days)
    unix = int((moment - _EPOCH).total_seconds()) - offset
    return GoTime(unix, t.nsec, t.zone)


def from_datetime(moment: dt.datetime, nsec: int, zone: Zone, offset: int) -> GoTime:
    unix = int((moment - _EPOCH).total_seconds()) - offset
    return GoTime(unix, nsec, zone)


# -- layouts -------------------------------------------------------------------------------------
