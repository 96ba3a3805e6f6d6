"""The methods conditions call on ``time.Time`` and ``time.Duration`` values (``.Sub``,
``.Add``, ``.Before``, ``.Minutes``...), as Go method values with their signatures, so that
expr's reflection rules (zero values for nil, refused argument types) apply to them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from orchestrator.golang.durations import (
    HOUR,
    MICRO,
    MILLI,
    MINUTE,
    SECOND,
    Duration,
    abs_duration,
    go_rem,
    in_units,
    round_duration,
    truncate_duration,
)
from orchestrator.golang.gotime import UTC, ZERO_UNIX, Month, Time, Weekday
from reporters.expr.signatures import METHODS
from reporters.expr.values import GoFunc, Int64


def _time_methods(t: Time) -> dict[str, Callable[..., Any]]:
    wall = t.local()
    return {
        "Add": lambda d: t.add(int(d)),
        "Sub": lambda u: t.sub(u),
        "Before": t.before,
        "After": t.after,
        "Equal": t.equal,
        "Compare": lambda u: (t.unix_nano() > u.unix_nano()) - (t.unix_nano() < u.unix_nano()),
        "IsZero": t.is_zero,
        "Unix": lambda: Int64(t.seconds),
        "UnixMilli": lambda: Int64(t.unix_nano() // MILLI),
        "UnixMicro": lambda: Int64(t.unix_nano() // MICRO),
        "UnixNano": lambda: Int64(t.unix_nano()),
        "Year": lambda: wall.year,
        "Month": lambda: Month(wall.month),
        "Day": lambda: wall.day,
        "Hour": lambda: wall.hour,
        "Minute": lambda: wall.minute,
        "Second": lambda: wall.second,
        "Nanosecond": lambda: t.nanos,
        "YearDay": lambda: wall.yday,
        "Weekday": lambda: Weekday(wall.weekday),
        "UTC": lambda: t.in_zone(UTC),
        "Format": lambda layout: t.format(layout),
        "String": lambda: t.go_string(),
        "Truncate": lambda d: t.add(-((t.unix_nano() - ZERO_NANOS) % int(d))) if d > 0 else t,
    }


ZERO_NANOS = ZERO_UNIX * SECOND
ZERO_TIME = Time(ZERO_UNIX, 0, UTC)
"""Go's zero Time, what a nil ``time.Time`` argument becomes."""


def _duration_methods(d: Duration) -> dict[str, Callable[..., Any]]:
    value = int(d)
    return {
        "Hours": lambda: in_units(value, HOUR),
        "Minutes": lambda: in_units(value, MINUTE),
        "Seconds": lambda: in_units(value, SECOND),
        "Milliseconds": lambda: Int64((value - go_rem(value, MILLI)) // MILLI),
        "Microseconds": lambda: Int64((value - go_rem(value, MICRO)) // MICRO),
        "Nanoseconds": lambda: Int64(value),
        "String": lambda: d.go_string(),
        "Abs": lambda: Duration(abs_duration(value)),
        "Round": lambda m: Duration(round_duration(value, int(m))),
        "Truncate": lambda m: Duration(truncate_duration(value, int(m))),
    }


def method(value: Any, name: str) -> GoFunc | None:
    """The method value ``value.name``, or None when the type has no such method."""
    if isinstance(value, Time):
        receiver, table = "time.Time", _time_methods(value)
    elif isinstance(value, Duration):
        receiver, table = "time.Duration", _duration_methods(value)
    elif isinstance(value, Month):
        receiver, table = "time.Month", {"String": lambda: _month_name(value)}
    elif isinstance(value, Weekday):
        receiver, table = "time.Weekday", {"String": lambda: _weekday_name(value)}
    else:
        return None
    key = f"{receiver}.{name}"
    if key not in METHODS or name not in table:
        return None
    params, result = METHODS[key]
    return GoFunc(name, params, result, table[name])


def _month_name(value: int) -> str:
    from reporters.expr.values import go_format

    return go_format(Month(value))


def _weekday_name(value: int) -> str:
    from reporters.expr.values import go_format

    return go_format(Weekday(value))
