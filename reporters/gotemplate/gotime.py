"""Go's ``time.Time`` as templates see it: :mod:`orchestrator.golang.gotime` with the methods a
template may call (``.Format``, ``.Unix``, ``.Sub``, ``.Year``) and ``time.Parse``'s
failures as the errors a template function returns.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orchestrator.golang import gotime as go
from orchestrator.golang.durations import MILLI
from orchestrator.golang.gotime import UTC, ZERO_UNIX, Month, Weekday, Zone
from orchestrator.golang.timelayout import TimeParseError
from orchestrator.golang.timelayout import parse_time as go_parse_time
from reporters.gotemplate.godurations import Duration
from reporters.gotemplate.values import GoError, GoFunc, GoInt

__all__ = ["UTC", "ZERO_UNIX", "GoTime", "Month", "Weekday", "Zone", "load_location", "parse_time"]
_T = "time.Time"


def load_location(name: str) -> Zone:
    """time.LoadLocation ("Local" is UTC here: the reporter and the vectors run with TZ=UTC)."""
    if name in ("", "UTC", "Local"):
        return UTC
    try:
        return Zone(name, 0, ZoneInfo(name))
    except (ZoneInfoNotFoundError, ValueError):
        raise GoError(f"unknown time zone {name}") from None


class GoTime(go.Time):
    """A Go ``time.Time`` with the methods templates call on it."""

    go_type = _T
    go_kind = "struct"

    @property
    def unix(self) -> int:
        return self.seconds

    @property
    def nsec(self) -> int:
        return self.nanos

    def __repr__(self) -> str:
        return f"GoTime({self.go_string()!r})"

    def go_json(self) -> str:
        return '"' + self.format("2006-01-02T15:04:05.999999999Z07:00") + '"'

    def sub(self, other: go.Time) -> Duration:
        return Duration(super().sub(other))

    def go_methods(self) -> dict[str, GoFunc]:
        t = self
        when = t.local()
        nanos = t.unix_nano()
        methods: dict[str, tuple[Any, tuple[str, ...], str]] = {
            "Format": (t.format, ("string",), "string"),
            "String": (t.go_string, (), "string"),
            "Unix": (lambda: t.seconds, (), "int64"),
            "UnixNano": (lambda: nanos, (), "int64"),
            "UnixMilli": (lambda: nanos // MILLI, (), "int64"),
            "UTC": (lambda: t.in_zone(UTC), (), _T),
            "Local": (lambda: t.in_zone(UTC), (), _T),
            "Year": (lambda: GoInt(when.year), (), "int"),
            "Month": (lambda: Month(when.month), (), "time.Month"),
            "Day": (lambda: GoInt(when.day), (), "int"),
            "Hour": (lambda: GoInt(when.hour), (), "int"),
            "Minute": (lambda: GoInt(when.minute), (), "int"),
            "Second": (lambda: GoInt(when.second), (), "int"),
            "Nanosecond": (lambda: GoInt(t.nanos), (), "int"),
            "YearDay": (lambda: GoInt(when.yday), (), "int"),
            "Weekday": (lambda: Weekday(when.weekday), (), "time.Weekday"),
            "IsZero": (t.is_zero, (), "bool"),
            "Add": (t.add, ("time.Duration",), _T),
            "Sub": (t.sub, (_T,), "time.Duration"),
            "AddDate": (t.add_date, ("int", "int", "int"), _T),
            "Before": (t.before, (_T,), "bool"),
            "After": (t.after, (_T,), "bool"),
            "Equal": (t.equal, (_T,), "bool"),
        }
        return {name: GoFunc(f, params, returns=r) for name, (f, params, r) in methods.items()}


def parse_time(layout: str, value: str, loc: Zone = UTC) -> GoTime:
    """``time.ParseInLocation``; Go's message as the function's error."""
    try:
        parsed = go_parse_time(layout, value, loc)
    except TimeParseError as exc:
        raise GoError(str(exc)) from None
    return GoTime(parsed.seconds, parsed.nanos, parsed.zone)
