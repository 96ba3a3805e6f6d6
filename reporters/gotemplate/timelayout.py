"""Go's time layouts: formatting and parsing by example (``2006-01-02T15:04:05Z07:00``).

Go names each element of a layout by its value in the reference time (``Jan``, ``_2``,
``.000``, ``Z07:00``); sprig's ``date``, ``toDate`` and a time's ``.Format`` all use them.
Python's strftime has no such language, so the chunking (``nextStdChunk``), formatting and
parsing are written out after ``time/format.go``.
"""

from __future__ import annotations

import datetime as dt
import re

from reporters.gotemplate.gotime import _DAYS, _MONTHS, UTC, GoTime, Zone, from_datetime
from reporters.gotemplate.values import GoError

_STD = [
    "January",
    "Jan",
    "Monday",
    "Mon",
    "MST",
    "2006",
    "002",
    "__2",
    "_2",
    "01",
    "02",
    "03",
    "04",
    "05",
    "06",
    "15",
    "1",
    "2",
    "3",
    "4",
    "5",
    "PM",
    "pm",
    "-07:00:00",
    "-070000",
    "-07:00",
    "-0700",
    "-07",
    "Z07:00:00",
    "Z070000",
    "Z07:00",
    "Z0700",
    "Z07",
]


def _chunks(layout: str) -> list[tuple[str, str]]:
    """Split a layout into ("lit", text) and ("std", token) chunks, as nextStdChunk does."""
    out: list[tuple[str, str]] = []
    lit = []
    i = 0
    n = len(layout)
    while i < n:
        token = None
        c = layout[i]
        if c in ".,":
            j = i + 1
            if j < n and layout[j] in "09":
                d = layout[j]
                while j < n and layout[j] == d:
                    j += 1
                if not (j < n and layout[j].isdigit()):
                    token = layout[i:j]
        if token is None:
            for std in _STD:
                if layout.startswith(std, i):
                    if std in ("Jan", "Mon") and layout.startswith(
                        std + "uary" if std == "Jan" else std + "day", i
                    ):
                        continue
                    if (
                        std == "Mon"
                        and i + 3 < n
                        and layout[i + 3].islower()
                        and not layout.startswith("Monday", i)
                    ):
                        continue
                    if (
                        std == "Jan"
                        and i + 3 < n
                        and layout[i + 3].islower()
                        and not layout.startswith("January", i)
                    ):
                        continue
                    if std == "_2" and layout.startswith("_2006", i):
                        continue
                    token = std
                    break
        if token is None:
            lit.append(c)
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


def format_time(t: GoTime, layout: str) -> str:
    """Time.Format."""
    when, name, offset = t.fields()
    out: list[str] = []
    for kind, tok in _chunks(layout):
        if kind == "lit":
            out.append(tok)
            continue
        if tok == "January":
            out.append(_MONTHS[when.month - 1])
        elif tok == "Jan":
            out.append(_MONTHS[when.month - 1][:3])
        elif tok == "Monday":
            out.append(_DAYS[(when.weekday() + 1) % 7])
        elif tok == "Mon":
            out.append(_DAYS[(when.weekday() + 1) % 7][:3])
        elif tok == "MST":
            if name:
                out.append(name)
            else:
                out.append(_offset_text(offset, "-0700"))
        elif tok == "2006":
            out.append(f"{when.year:04d}")
        elif tok == "06":
            out.append(f"{when.year % 100:02d}")
        elif tok == "002":
            out.append(f"{when.timetuple().tm_yday:03d}")
        elif tok == "__2":
            out.append(f"{when.timetuple().tm_yday:3d}")
        elif tok == "_2":
            out.append(f"{when.day:2d}")
        elif tok == "01":
            out.append(f"{when.month:02d}")
        elif tok == "1":
            out.append(str(when.month))
        elif tok == "02":
            out.append(f"{when.day:02d}")
        elif tok == "2":
            out.append(str(when.day))
        elif tok == "15":
            out.append(f"{when.hour:02d}")
        elif tok in ("3", "03"):
            h = when.hour % 12 or 12
            out.append(str(h) if tok == "3" else f"{h:02d}")
        elif tok in ("4", "04"):
            out.append(str(when.minute) if tok == "4" else f"{when.minute:02d}")
        elif tok in ("5", "05"):
            out.append(str(when.second) if tok == "5" else f"{when.second:02d}")
        elif tok in ("PM", "pm"):
            pm = "PM" if when.hour >= 12 else "AM"
            out.append(pm if tok == "PM" else pm.lower())
        elif tok[0] in "-Z":
            if tok[0] == "Z" and offset == 0:
                out.append("Z")
            else:
                out.append(_offset_text(offset, "-" + tok[1:]))
        elif tok[0] in ".,":
            digits = f"{t.nsec:09d}"[: len(tok) - 1]
            if tok[1] == "9":
                digits = digits.rstrip("0")
                if digits:
                    out.append(tok[0] + digits)
            else:
                out.append(tok[0] + digits)
    return "".join(out)


def _offset_text(offset: int, style: str) -> str:
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


def _quote(s: str) -> str:
    from reporters.gotemplate.gostrings import quote

    return quote(s)


def parse_time(layout: str, value: str, loc: Zone = UTC) -> GoTime:
    """time.ParseInLocation for numeric layouts (the forms notification templates use)."""
    orig_value = value
    year, month, day, hour, minute, second, nsec = 1, 1, 1, 0, 0, 0, 0
    pm: bool | None = None
    offset: int | None = None
    zone_name = ""
    chunks = _chunks(layout)
    for idx, (kind, tok) in enumerate(chunks):
        if kind == "lit":
            if not value.startswith(tok):
                raise _parse_error(layout, orig_value, tok, value)
            value = value[len(tok) :]
            continue
        nums = {"2006": 4, "01": 2, "02": 2, "15": 2, "03": 2, "04": 2, "05": 2, "06": 2, "002": 3}
        if tok in nums:
            width = nums[tok]
            part = value[:width]
            if len(part) != width or not part.isdigit():
                raise _parse_error(layout, orig_value, tok, value)
            n = int(part)
            value = value[width:]
            if tok == "2006":
                year = n
            elif tok == "06":
                year = n + (1900 if n >= 69 else 2000)
            elif tok == "01":
                month = n
            elif tok == "02":
                day = n
            elif tok == "15" or tok == "03":
                hour = n
            elif tok == "04":
                minute = n
            elif tok == "05":
                second = n
                nxt = chunks[idx + 1] if idx + 1 < len(chunks) else None
                if value.startswith(".") and (
                    nxt is None or nxt[0] == "lit" or nxt[1][0] not in ".,"
                ):
                    m = re.match(r"\.(\d+)", value)
                    if m:
                        nsec = int((m.group(1) + "000000000")[:9])
                        value = value[m.end() :]
            continue
        if tok in ("1", "2", "3", "4", "5"):
            m = re.match(r"\d\d?", value)
            if not m:
                raise _parse_error(layout, orig_value, tok, value)
            n = int(m.group(0))
            value = value[m.end() :]
            if tok == "1":
                month = n
            elif tok == "2":
                day = n
            elif tok == "3":
                hour = n
            elif tok == "4":
                minute = n
            else:
                second = n
            continue
        if tok in ("Jan", "January"):
            names = [m if tok == "January" else m[:3] for m in _MONTHS]
            found = next((i for i, nm in enumerate(names) if value.startswith(nm)), None)
            if found is None:
                raise _parse_error(layout, orig_value, tok, value)
            month = found + 1
            value = value[len(names[found]) :]
            continue
        if tok in ("Mon", "Monday"):
            names = [d if tok == "Monday" else d[:3] for d in _DAYS]
            found = next((i for i, nm in enumerate(names) if value.startswith(nm)), None)
            if found is None:
                raise _parse_error(layout, orig_value, tok, value)
            value = value[len(names[found]) :]
            continue
        if tok in ("PM", "pm"):
            part = value[:2]
            if part.upper() not in ("AM", "PM"):
                raise _parse_error(layout, orig_value, tok, value)
            pm = part.upper() == "PM"
            value = value[2:]
            continue
        if tok[0] in "Z-":
            if tok[0] == "Z" and value.startswith("Z"):
                offset = 0
                value = value[1:]
                zone_name = "UTC"
                continue
            pattern = {
                "07": r"[+-]\d\d",
                "0700": r"[+-]\d{4}",
                "07:00": r"[+-]\d\d:\d\d",
                "070000": r"[+-]\d{6}",
                "07:00:00": r"[+-]\d\d:\d\d:\d\d",
            }[tok[1:]]
            m = re.match(pattern, value)
            if not m:
                raise _parse_error(layout, orig_value, tok, value)
            digits = m.group(0)[1:].replace(":", "") + "0000"
            offset = int(digits[:2]) * 3600 + int(digits[2:4]) * 60 + int(digits[4:6] or 0)
            if m.group(0)[0] == "-":
                offset = -offset
            value = value[m.end() :]
            continue
        if tok == "MST":
            m = re.match(r"[A-Z]{3,5}|UTC", value)
            if not m:
                raise _parse_error(layout, orig_value, tok, value)
            zone_name = m.group(0)
            value = value[m.end() :]
            continue
        if tok[0] in ".,":
            width = len(tok) - 1
            m = re.match(r"[.,](\d+)" if tok[1] == "9" else rf"[.,](\d{{{width}}})", value)
            if m:
                nsec = int((m.group(1) + "000000000")[:9])
                value = value[m.end() :]
            elif tok[1] == "0":
                raise _parse_error(layout, orig_value, tok, value)
            continue
        raise _parse_error(layout, orig_value, tok, value)
    if value:
        raise GoError(f"parsing time {_quote(orig_value)}: extra text: {_quote(value)}")
    if pm is not None:
        if pm and hour < 12:
            hour += 12
        elif not pm and hour == 12:
            hour = 0
    if not 1 <= month <= 12:
        raise GoError(f"parsing time {_quote(orig_value)}: month out of range")
    try:
        moment = dt.datetime(year, month, day, hour, minute, second)
    except ValueError:
        raise GoError(f"parsing time {_quote(orig_value)}: day out of range") from None
    if hour > 23 or minute > 59 or second > 59:
        raise GoError(f"parsing time {_quote(orig_value)}: hour out of range")
    if offset is not None:
        zone = UTC if offset == 0 and loc == UTC else Zone("", offset)
        return from_datetime(moment, nsec, zone, offset)
    if zone_name and zone_name != "UTC":
        return from_datetime(moment, nsec, Zone(zone_name, 0), 0)
    if loc.tz is None:
        return from_datetime(moment, nsec, loc, loc.offset)
    guess = from_datetime(moment, nsec, loc, 0)
    _, off = loc.at(guess.unix)
    return from_datetime(moment, nsec, loc, off)


def _parse_error(layout: str, value: str, tok: str, rest: str) -> GoError:
    """time.ParseError's message (the element and the text it could not read)."""
    return GoError(
        f"parsing time {_quote(value)} as {_quote(layout)}: cannot parse {_quote(rest)} as "
        f"{_quote(tok)}"
    )
