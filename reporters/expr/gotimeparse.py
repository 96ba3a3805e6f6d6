"""Go's ``time.Parse(time.RFC3339, text)`` and ``time.ParseDuration``, with their errors in
Go's words: Argo CD's ``time.Parse`` panics with them and expr reports the panic.
"""

from __future__ import annotations

import re

from reporters.expr.gotime import (
    HOUR,
    MICRO,
    MILLI,
    MINUTE,
    NANO,
    RFC3339,
    SECOND,
    UTC_ZONE,
    Duration,
    Time,
    Zone,
    days_from_civil,
    days_in,
)

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})([.,]\d+)?(?:(Z)|([+-])(\d{2}):(\d{2}))"
)


class TimeParseError(ValueError):
    """``time.Parse`` refused the text; the message is Go's."""


def parse_rfc3339(text: str) -> Time:
    """``time.Parse(time.RFC3339, text)`` for well-formed text; anything else raises
    :class:`TimeParseError` (with Go's wording for the common failures)."""
    match = _RFC3339.fullmatch(text)
    if not match:
        raise TimeParseError(_rfc3339_error(text))
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = match.group(7) or ""
    if month < 1 or month > 12:
        raise TimeParseError(f"parsing time {_q(text)}: month out of range")
    if hour > 23:
        raise TimeParseError(f"parsing time {_q(text)}: hour out of range")
    if minute > 59:
        raise TimeParseError(f"parsing time {_q(text)}: minute out of range")
    if second > 59:
        raise TimeParseError(f"parsing time {_q(text)}: second out of range")
    nanos = int((fraction[1:] + "000000000")[:9]) if fraction else 0
    offset = 0
    zone = UTC_ZONE
    if match.group(9):
        offset = (int(match.group(10)) * 60 + int(match.group(11))) * 60
        if match.group(9) == "-":
            offset = -offset
        if offset != 0:
            zone = Zone("", offset)
    if day < 1 or day > days_in(year, month):
        raise TimeParseError(f"parsing time {_q(text)}: day out of range")
    epoch = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
    return Time(epoch, nanos, zone)


def _q(text: str) -> str:
    from reporters.expr.gotext import quote

    return quote(text)


def _rfc3339_error(text: str) -> str:
    """Go's message for the usual failure: the text does not start with the layout's
    elements (it quotes the rest of the text at the element that failed)."""
    layout_parts = ["2006", "-", "01", "-", "02", "T", "15", ":", "04", ":", "05", "Z07:00"]
    sizes = {"2006": 4, "01": 2, "02": 2, "15": 2, "04": 2, "05": 2}
    rest = text
    for part in layout_parts:
        if part in sizes:
            size = sizes[part]
            chunk = rest[:size]
            if len(chunk) < size or not chunk.isdigit() or not chunk.isascii():
                return (
                    f"parsing time {_q(text)} as {_q(RFC3339)}: cannot parse {_q(rest)} "
                    f"as {_q(part)}"
                )
            rest = rest[size:]
            if part == "05" and rest[:1] in (".", ",") and rest[1:2].isdigit():
                frac = 1
                while frac < len(rest) and rest[frac].isdigit():
                    frac += 1
                rest = rest[frac:]
        elif part == "Z07:00":
            if rest[:1] == "Z":
                rest = rest[1:]
            elif re.match(r"[+-]\d{2}:\d{2}", rest):
                rest = rest[6:]
            else:
                return (
                    f"parsing time {_q(text)} as {_q(RFC3339)}: cannot parse {_q(rest)} "
                    f"as {_q(part)}"
                )
        else:
            if not rest.startswith(part):
                return (
                    f"parsing time {_q(text)} as {_q(RFC3339)}: cannot parse {_q(rest)} "
                    f"as {_q(part)}"
                )
            rest = rest[len(part) :]
    if rest:
        return f"parsing time {_q(text)}: extra text: {_q(rest)}"
    return f"parsing time {_q(text)}: invalid syntax"


_UNITS = {"ns": NANO, "us": MICRO, "\u00b5s": MICRO, "\u03bcs": MICRO, "ms": MILLI, "s": SECOND,
          "m": MINUTE, "h": HOUR}  # fmt: skip


def parse_duration(text: str) -> Duration:
    """``time.ParseDuration``, step for step; ValueError with Go's message."""
    original, rest, negative, total = text, text, False, 0
    invalid = ValueError(f"time: invalid duration {_q(original)}")
    if rest[:1] in ("-", "+") and rest:
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return Duration(0)
    if not rest:
        raise invalid
    while rest:
        if not (rest[0] == "." or (rest[0].isascii() and rest[0].isdigit())):
            raise invalid
        digits = re.match(r"[0-9]*", rest).group(0)  # type: ignore[union-attr]
        rest = rest[len(digits) :]
        whole = int(digits) if digits else 0
        if whole > 2**63:
            raise invalid
        fraction, scale, post = 0, 1.0, False
        if rest[:1] == ".":
            rest = rest[1:]
            decimals = re.match(r"[0-9]*", rest).group(0)  # type: ignore[union-attr]
            rest = rest[len(decimals) :]
            post = bool(decimals)
            for digit in decimals:
                if fraction > (2**63 - 1) // 10:
                    continue  # Go stops accumulating once it would overflow
                fraction, scale = fraction * 10 + int(digit), scale * 10
        if not digits and not post:
            raise invalid
        unit_text = re.match(r"[^0-9.]*", rest).group(0)  # type: ignore[union-attr]
        if not unit_text:
            raise ValueError(f"time: missing unit in duration {_q(original)}")
        rest = rest[len(unit_text) :]
        unit = _UNITS.get(unit_text)
        if unit is None:
            raise ValueError(f"time: unknown unit {_q(unit_text)} in duration {_q(original)}")
        if whole > 2**63 // unit:
            raise invalid
        value = whole * unit
        if fraction > 0:
            value += int(float(fraction) * (float(unit) / scale))
            if value > 2**63:
                raise invalid
        total += value
        if total > 2**63:
            raise invalid
    if negative:
        return Duration(-total)
    if total > 2**63 - 1:
        raise invalid
    return Duration(total)
