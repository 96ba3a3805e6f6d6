"""expr's time builtins: ``duration`` (time.ParseDuration), ``date`` (time.Parse with the
layouts expr tries), ``now`` and ``timezone``."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from orchestrator.golang.durations import Duration, parse_duration
from orchestrator.golang.gotime import Time
from orchestrator.golang.timelayout import TimeParseError, parse_time
from orchestrator.golang.timelayout import parse_rfc3339 as _rfc3339
from reporters.expr.builtin_base import Unsupported
from reporters.expr.operators import (
    GoPanic,
    as_string,
)


def b_duration(text: Any) -> Duration:
    try:
        return parse_duration(as_string(text))
    except ValueError as exc:
        raise GoPanic(str(exc)) from None


_DATE_FORMS = ("2006-01-02", "15:04:05", "2006-01-02 15:04:05")
"""The plain layouts expr's ``date()`` tries before RFC 3339."""
_WORDY = re.compile(
    r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
)


def _date_in(layout: str, text: str) -> Time | None:
    """``time.Parse(layout, text)`` in UTC for the plain layouts, or None where Go fails."""
    try:
        return parse_time(layout, text)
    except TimeParseError:
        return None


def _date_default(text: str) -> Time:
    for layout in _DATE_FORMS:
        parsed = _date_in(layout, text)
        if parsed is not None:
            return parsed
    try:
        return _rfc3339(text)
    except TimeParseError:
        pass
    if _WORDY.search(text):
        raise Unsupported(
            f"date({text!r}) in an RFC 822, 850 or 1123 layout",
            "write the date as 2024-03-05T10:00:00Z",
        )
    raise GoPanic(f"invalid date {text}")


def b_date(*args: Any) -> Time:
    if len(args) == 1:
        return _date_default(as_string(args[0]))
    text, layout = as_string(args[0]), as_string(args[1])
    if len(args) == 3 and as_string(args[2]) != "UTC":
        raise Unsupported("date() in a time zone other than UTC", "convert to UTC first")
    if layout in _DATE_FORMS:
        parsed = _date_in(layout, text)
        if parsed is not None:
            return parsed
    elif layout == "2006-01-02T15:04:05Z07:00":
        try:
            return _rfc3339(text)
        except TimeParseError as exc:
            raise GoPanic(str(exc)) from None
    raise Unsupported(f"date() with the layout {layout!r}", "use RFC 3339 text and no layout")


def b_now(*args: Any, clock: Callable[[], Time]) -> Time:
    if args:
        raise Unsupported("now() with a time zone", "use now()")
    return clock()


def b_timezone(name: Any) -> Any:
    raise Unsupported("timezone()", "work in UTC")


def system_clock() -> Time:
    """``time.Now()``: the machine's clock, in UTC."""
    now = datetime.now(UTC)
    return Time(int(now.timestamp()), now.microsecond * 1000)
