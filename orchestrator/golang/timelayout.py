"""Go's time layouts: formatting and parsing by example (``2006-01-02T15:04:05Z07:00``).

Go names each element of a layout by its value in the reference time (``Jan``, ``_2``,
``.000``, ``Z07:00``); Argo CD's ``time.Parse`` (RFC 3339), a time's ``.Format``/``String``
and sprig's ``date``/``toDate`` all use them. Python's strftime has no such language, so
the chunking (``nextStdChunk``), formatting and parsing, with ``time.Parse``'s messages,
are written out after ``time/format.go``.
"""

from __future__ import annotations

import re

from orchestrator.golang.gotime import (
    DAYS,
    MONTHS,
    UTC,
    Time,
    Zone,
    civil_seconds,
    days_in,
)
from orchestrator.golang.strconv import quote

LAYOUTS = {
    "Layout": "01/02 03:04:05PM '06 -0700",
    "ANSIC": "Mon Jan _2 15:04:05 2006",
    "UnixDate": "Mon Jan _2 15:04:05 MST 2006",
    "RubyDate": "Mon Jan 02 15:04:05 -0700 2006",
    "RFC822": "02 Jan 06 15:04 MST",
    "RFC822Z": "02 Jan 06 15:04 -0700",
    "RFC850": "Monday, 02-Jan-06 15:04:05 MST",
    "RFC1123": "Mon, 02 Jan 2006 15:04:05 MST",
    "RFC1123Z": "Mon, 02 Jan 2006 15:04:05 -0700",
    "RFC3339": "2006-01-02T15:04:05Z07:00",
    "RFC3339Nano": "2006-01-02T15:04:05.999999999Z07:00",
    "Kitchen": "3:04PM",
    "Stamp": "Jan _2 15:04:05",
    "StampMilli": "Jan _2 15:04:05.000",
    "StampMicro": "Jan _2 15:04:05.000000",
    "StampNano": "Jan _2 15:04:05.000000000",
}
"""The layout constants of Go's ``time`` package, by name."""
RFC3339 = LAYOUTS["RFC3339"]

_STD = ["January", "Jan", "Monday", "Mon", "MST", "2006", "002", "__2", "_2", "01", "02",
        "03", "04", "05", "06", "15", "1", "2", "3", "4", "5", "PM", "pm", "-07:00:00",
        "-070000", "-07:00", "-0700", "-07", "Z07:00:00", "Z070000", "Z07:00", "Z0700",
        "Z07"]  # fmt: skip


class TimeParseError(ValueError):
    """``time.Parse`` refused the text; the message is Go's."""


def _std_at(layout: str, i: int) -> str | None:
    """The layout element starting at ``i``, as ``nextStdChunk`` recognises it."""
    n = len(layout)
    if layout[i] in ".," and i + 1 < n and layout[i + 1] in "09":
        digit, j = layout[i + 1], i + 1
        while j < n and layout[j] == digit:
            j += 1
        if not (j < n and layout[j].isdigit()):
            return layout[i:j]
    for std in _STD:
        if not layout.startswith(std, i):
            continue
        if std in ("Jan", "Mon") and i + 3 < n and layout[i + 3].islower():
            continue  # "Janet", "Month": a word, not an element
        if std == "_2" and layout.startswith("_2006", i):
            continue
        return std
    return None


def chunks(layout: str) -> list[tuple[str, str]]:
    """The layout as ``("lit", text)`` and ``("std", element)`` chunks."""
    out: list[tuple[str, str]] = []
    lit: list[str] = []
    i = 0
    while i < len(layout):
        token = _std_at(layout, i)
        if token is None:
            lit.append(layout[i])
            i += 1
            continue
        if lit:
            out.append(("lit", "".join(lit)))
            lit = []
        out.append(("std", token))
        i += len(token)
    if lit:
        out.append(("lit", "".join(lit)))
    return out


def format_time(t: Time, layout: str) -> str:
    """``Time.Format``."""
    name, offset = t.zone_at()
    w = t.local()
    hour12 = w.hour % 12 or 12
    pm = "PM" if w.hour >= 12 else "AM"
    values = {
        "January": MONTHS[w.month - 1], "Jan": MONTHS[w.month - 1][:3],
        "Monday": DAYS[w.weekday], "Mon": DAYS[w.weekday][:3],
        "2006": f"{w.year:04d}", "06": f"{w.year % 100:02d}", "002": f"{w.yday:03d}",
        "__2": f"{w.yday:3d}", "_2": f"{w.day:2d}", "01": f"{w.month:02d}",
        "1": str(w.month), "02": f"{w.day:02d}", "2": str(w.day), "15": f"{w.hour:02d}",
        "03": f"{hour12:02d}", "3": str(hour12), "04": f"{w.minute:02d}", "4": str(w.minute),
        "05": f"{w.second:02d}", "5": str(w.second), "PM": pm, "pm": pm.lower(),
    }  # fmt: skip
    out: list[str] = []
    for kind, tok in chunks(layout):
        if kind == "lit":
            out.append(tok)
        elif tok in values:
            out.append(values[tok])
        elif tok == "MST":
            out.append(name or offset_text(offset, "-0700"))
        elif tok[0] in "-Z":
            zulu = tok[0] == "Z" and offset == 0
            out.append("Z" if zulu else offset_text(offset, "-" + tok[1:]))
        else:  # a fraction of a second: .000 keeps every digit, .999 drops trailing zeros
            digits = f"{t.nanos:09d}"[: len(tok) - 1]
            if tok[1] == "9":
                digits = digits.rstrip("0")
                out.append(tok[0] + digits if digits else "")
            else:
                out.append(tok[0] + digits)
    return "".join(out)


def offset_text(offset: int, style: str) -> str:
    """A zone offset in one of the ``-07``, ``-0700``, ``-07:00``... styles."""
    sign = "-" if offset < 0 else "+"
    o = abs(offset)
    hh, mm, ss = o // 3600, o // 60 % 60, o % 60
    if style == "-07":
        return f"{sign}{hh:02d}"
    if style == "-0700":
        return f"{sign}{hh:02d}{mm:02d}"
    if style == "-07:00":
        return f"{sign}{hh:02d}:{mm:02d}"
    if style == "-070000":
        return f"{sign}{hh:02d}{mm:02d}{ss:02d}"
    return f"{sign}{hh:02d}:{mm:02d}:{ss:02d}"


_FIXED = {"2006": 4, "01": 2, "02": 2, "03": 2, "04": 2, "05": 2, "06": 2, "002": 3}
_RANGE = {"01": ("month", 1, 12), "1": ("month", 1, 12), "15": ("hour", 0, 23),
          "03": ("hour", 0, 12), "3": ("hour", 0, 12), "04": ("minute", 0, 59),
          "4": ("minute", 0, 59), "05": ("second", 0, 59), "5": ("second", 0, 59)}  # fmt: skip
_FIELD = {"2006": "year", "06": "year", "01": "month", "1": "month", "02": "day", "2": "day",
          "_2": "day", "15": "hour", "03": "hour", "3": "hour", "04": "minute", "4": "minute",
          "05": "second", "5": "second"}  # fmt: skip
_TZ = {"07": r"[+-]\d\d", "0700": r"[+-]\d{4}", "07:00": r"[+-]\d\d:\d\d",
       "070000": r"[+-]\d{6}", "07:00:00": r"[+-]\d\d:\d\d:\d\d"}  # fmt: skip


def _digits(value: str, width: int) -> bool:
    return len(value) >= width and all("0" <= c <= "9" for c in value[:width])


def _skip(value: str, prefix: str) -> str | None:
    """Go's ``skip``: the literal consumed (a space matches any run of spaces), or None."""
    while prefix:
        if prefix[0] == " ":
            if value and value[0] != " ":
                return None
            prefix, value = prefix.lstrip(" "), value.lstrip(" ")
            continue
        if not value or value[0] != prefix[0]:
            return None
        prefix, value = prefix[1:], value[1:]
    return value


def parse_time(layout: str, value: str, loc: Zone = UTC) -> Time:
    """``time.ParseInLocation`` (``time.Parse`` with ``UTC``), with Go's messages."""
    original = value
    fields = {"year": 0, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0}
    nanos, pm, offset, zone_name = 0, "", None, ""
    parts = chunks(layout)

    def fail(element: str, rest: str, message: str = "") -> TimeParseError:
        if message:
            return TimeParseError(f"parsing time {quote(original)}{message}")
        return TimeParseError(
            f"parsing time {quote(original)} as {quote(layout)}: cannot parse {quote(rest)} "
            f"as {quote(element)}"
        )

    for index, (kind, tok) in enumerate(parts):
        hold = value
        if kind == "lit":
            rest = _skip(value, tok)
            if rest is None:
                raise fail(tok, value)
            value = rest
            continue
        if tok in _FIXED or tok in ("1", "2", "3", "4", "5", "15", "_2"):
            if tok == "_2" and value[:1] == " ":
                value = value[1:]
            width = _FIXED.get(tok, 2 if _digits(value, 2) else 1)
            if not _digits(value, width):
                raise fail(tok, hold)
            number, value = int(value[:width]), value[width:]
            name = _FIELD.get(tok)
            if tok == "06":
                number += 1900 if number >= 69 else 2000
            if tok in _RANGE:
                what, low, high = _RANGE[tok]
                if not low <= number <= high:
                    raise fail(tok, value, f": {what} out of range")
            if name:
                fields[name] = number
            if name == "second" and value[:1] in (".", ",") and _digits(value[1:], 1):
                following = next((t for k, t in parts[index + 1 :] if k == "std"), "")
                if following[:1] not in (".", ","):
                    width = 1
                    while _digits(value[width:], 1):
                        width += 1
                    nanos = int((value[1:width] + "000000000")[:9])
                    value = value[width:]
            continue
        if tok in ("Jan", "January", "Mon", "Monday"):
            names = MONTHS if tok.startswith("J") else DAYS
            names = names if len(tok) > 3 else [n[:3] for n in names]
            found = next((i for i, nm in enumerate(names) if value.startswith(nm)), None)
            if found is None:
                raise fail(tok, hold)
            if tok.startswith("J"):
                fields["month"] = found + 1
            value = value[len(names[found]) :]
            continue
        if tok in ("PM", "pm"):
            choices = ("AM", "PM") if tok == "PM" else ("am", "pm")
            if value[:2] not in choices:
                raise fail(tok, hold)
            pm, value = value[:2].upper(), value[2:]
            continue
        if tok[0] in "Z-":
            if tok[0] == "Z" and value[:1] == "Z":
                offset, zone_name, value = 0, "UTC", value[1:]
                continue
            match = re.match(_TZ[tok[1:]], value)
            if not match:
                raise fail(tok, hold)
            digits = match.group(0)[1:].replace(":", "") + "0000"
            offset = int(digits[:2]) * 3600 + int(digits[2:4]) * 60 + int(digits[4:6] or 0)
            offset = -offset if match.group(0)[0] == "-" else offset
            value = value[match.end() :]
            continue
        if tok == "MST":
            match = re.match(r"[A-Z]{3,5}|UTC", value)
            if not match:
                raise fail(tok, hold)
            zone_name, value = match.group(0), value[match.end() :]
            continue
        width = len(tok) - 1  # a fraction of a second
        match = re.match(r"[.,](\d+)" if tok[1] == "9" else rf"[.,](\d{{{width}}})", value)
        if match:
            nanos = int((match.group(1) + "000000000")[:9])
            value = value[match.end() :]
        elif tok[1] == "0":
            raise fail(tok, hold)
    if value:
        raise fail("", value, f": extra text: {quote(value)}")
    hour = fields["hour"]
    if pm == "PM" and hour < 12:
        hour += 12
    elif pm == "AM" and hour == 12:
        hour = 0
    year, month, day = fields["year"], fields["month"], fields["day"]
    if day < 1 or day > days_in(year, month):
        raise fail("", value, ": day out of range")
    local = civil_seconds(year, month, day, hour, fields["minute"], fields["second"])
    if offset is not None:
        zone = UTC if offset == 0 and loc == UTC else Zone("", offset)
        return Time(local - offset, nanos, zone)
    if zone_name and zone_name != "UTC":
        return Time(local, nanos, Zone(zone_name, 0))
    if loc.tz is None:
        return Time(local - loc.offset, nanos, loc)
    return Time(local - loc.at(local)[1], nanos, loc)


def parse_rfc3339(text: str) -> Time:
    """``time.Parse(time.RFC3339, text)``, Argo CD's ``time.Parse`` in conditions and templates."""
    return parse_time(RFC3339, text)
