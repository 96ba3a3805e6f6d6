"""Durations written the way Argo and Kubernetes users write them: ``30s``, ``15m``, ``1h30m``.

Stored as :class:`datetime.timedelta` so arithmetic is exact, serialised back to the short
form so YAML and Python definitions of the same flow compare equal and print the same.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

_PART = re.compile(r"(\d{1,15})(ms|s|m|h|d)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_DAYS = 366
"""Longer than any approval, soak or gate timeout a team means: a bigger number is a typo,
and refusing it here keeps every later conversion (timedelta, Go's int64 nanoseconds) exact."""
MAX_SECONDS = MAX_DAYS * 86400


def _shown(value: Any) -> str:
    """The value as the user wrote it, cut short: an error line stays one readable line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _bounded(seconds: float, value: Any) -> timedelta:
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        raise ValueError(
            f"{_shown(value)} is not a duration: it must be a finite number of seconds"
        )
    if seconds < 0:
        raise ValueError("a duration cannot be negative")
    if seconds > MAX_SECONDS:
        raise ValueError(f"{_shown(value)} is longer than the maximum of {MAX_DAYS} days")
    return timedelta(seconds=seconds)


def parse_duration(value: Any) -> timedelta:
    """Parse ``"1h30m"``-style text, a number of seconds, or a timedelta."""
    if isinstance(value, timedelta):
        return value
    if isinstance(value, bool):
        raise ValueError("expected a duration such as '30s', '15m' or '1h30m'")
    if isinstance(value, int) and value > MAX_SECONDS:  # float() of a huge int overflows
        raise ValueError(f"{_shown(value)} is longer than the maximum of {MAX_DAYS} days")
    if isinstance(value, int | float):
        return _bounded(float(value), value)
    if not isinstance(value, str):
        raise ValueError("expected a duration such as '30s', '15m' or '1h30m'")
    text = value.strip()
    pos, total = 0, 0.0
    for match in _PART.finditer(text):
        if match.start() != pos:
            break
        total += int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        pos = match.end()
    if not text or pos != len(text):
        raise ValueError(
            f"{_shown(value)} is not a duration: use numbers with units ms, s, m, h, d, e.g. '15m'"
        )
    return _bounded(total, value)


def format_duration(value: timedelta) -> str:
    """Shortest exact text form: 5400s -> ``1h30m``; 0 -> ``0s``."""
    millis = round(value.total_seconds() * 1000)
    if millis == 0:
        return "0s"
    parts = []
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        count, millis = divmod(millis, size)
        if count:
            parts.append(f"{count}{unit}")
    if millis:
        parts.append(f"{millis}ms")
    return "".join(parts)


DURATION_PATTERN = r"^(\d{1,15}(ms|s|m|h|d))+$"

Duration = Annotated[
    timedelta,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str, when_used="json-unless-none"),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "pattern": DURATION_PATTERN, "examples": ["30s", "15m"]},
                {"type": "number", "minimum": 0, "description": "seconds"},
            ]
        }
    ),
]
