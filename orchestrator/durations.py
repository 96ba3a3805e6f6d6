"""Durations in the three grammars promoflow reads and writes, one module on purpose.

* **promoflow's own** (:func:`parse_duration`, :func:`format_duration`): what teams write
  in their resources, ``30s``, ``15m``, ``1h30m`` and also ``2d``, bounded to
  :data:`MAX_DAYS` so a typo is refused and every later conversion stays exact.
* **Go's** ``time.ParseDuration`` (:func:`parse_go`, from :mod:`orchestrator.golang.durations`,
  and :func:`format_go`): what Argo CD's
  notification settings and everything promoflow hands to Argo are read with.
* **Argo's** ``ParseStringToDuration`` (:func:`parse_argo`): Argo Workflows reads
  ``suspend.duration``, retry ``backoff.duration``/``maxDuration``/``cap`` and
  ``podGC.deleteDelayDuration`` (``pkg/apis/workflow/v1alpha1/utils.go``) with
  ``strconv.Atoi`` first (a bare integer is seconds), then ``time.ParseDuration``, which
  knows ``ns``, ``us``, ``µs``, ``ms``, ``s``, ``m`` and ``h`` and nothing longer. ``7d``
  therefore errors the node on a real cluster ("unable to parse 7d as a duration").

The grammars differ, and each is where it belongs: promoflow's resources may say ``2d``;
everything the compiler hands to Argo goes through :func:`format_go` and every value the
local engine reads goes through :func:`parse_argo`, so both sides apply the controller's
rule (``tests/vectors/goduration`` holds Go's own answers). Kept side by side so a reader
sees all three and which one a value meets. Pure functions, standard library only: the
configuration models, the compiler, the engine, the reporters and the step programs all
import it.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from orchestrator.golang.durations import MAX_DURATION as INT64_MAX
from orchestrator.golang.durations import MIN_DURATION as INT64_MIN
from orchestrator.golang.durations import DurationError
from orchestrator.golang.durations import parse_duration as parse_go

__all__ = [
    "DURATION_PATTERN",
    "DurationError",
    "argo_seconds",
    "format_duration",
    "format_go",
    "is_argo_duration",
    "parse_argo",
    "parse_duration",
    "parse_go",
]
_MAX = 1 << 63


def _atoi(text: str) -> int | None:
    """``strconv.Atoi`` on 64-bit: optional sign, ASCII digits only, int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not all("0" <= c <= "9" for c in body):
        return None
    value = int(text)
    return value if INT64_MIN <= value <= INT64_MAX else None


def parse_argo(text: str) -> float:
    """Argo's ``ParseStringToDuration``: seconds as a float; errors read as Argo's do."""
    number = _atoi(text)
    if number is not None:
        # time.Duration(val) * time.Second wraps around in int64, exactly as Go computes it
        nanos = (number * 1_000_000_000 + _MAX) % (1 << 64) - _MAX
        return nanos / 1e9
    try:
        return parse_go(text) / 1e9
    except DurationError as exc:
        raise DurationError(f"unable to parse {text} as a duration: {exc}") from None


def is_argo_duration(text: str) -> bool:
    try:
        parse_argo(text)
    except DurationError:
        return False
    return True


_GO_UNITS = (("h", 3_600_000), ("m", 60_000), ("s", 1000))
"""Go's largest unit is the hour: seven days are ``168h``."""
_OWN_UNITS = (("d", 86_400_000), *_GO_UNITS)


def _spelled(millis: int, units: tuple[tuple[str, int], ...]) -> str:
    """``millis`` in the largest of ``units`` first, the rest in milliseconds; ``0s``."""
    if millis == 0:
        return "0s"
    parts = []
    for unit, size in units:
        count, millis = divmod(millis, size)
        if count:
            parts.append(f"{count}{unit}")
    if millis:
        parts.append(f"{millis}ms")
    return "".join(parts)


def format_go(value: timedelta) -> str:
    """The shortest text Go parses back to ``value``: 7 days -> ``168h``, 90 s -> ``1m30s``.

    Hours are the largest unit Go knows, so days become multiples of 24h; sub-second parts
    are written in milliseconds (the finest unit promoflow's own durations carry)."""
    millis = round(value.total_seconds() * 1000)
    if millis < 0:
        raise ValueError("a duration handed to Argo cannot be negative")
    return _spelled(millis, _GO_UNITS)


def argo_seconds(value: object, what: str) -> float:
    """An Argo duration field in seconds, read with Argo's rule: ``"90"``, ``90`` and
    ``"1m30s"`` -> 90.0; ``"7d"`` and the like -> :class:`DurationError` naming ``what``.

    Integers in the YAML (``duration: 90``) reach Argo as the string ``"90"``: the same rule.
    Negative values parse (Argo accepts them and waits not at all), so they count as 0."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise DurationError(f"{what}: {value!r} is not a duration (whole seconds or e.g. '15m')")
    try:
        number = parse_argo(str(value))
    except DurationError as exc:
        raise DurationError(
            f"{what}: {exc} (Argo reads whole seconds or a Go duration such as '168h'; "
            "there is no 'd' unit)"
        ) from None
    return max(number, 0.0)


# promoflow's own grammar

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
    return _spelled(round(value.total_seconds() * 1000), _OWN_UNITS)


DURATION_PATTERN = r"^(\d{1,15}(ms|s|m|h|d))+$"
