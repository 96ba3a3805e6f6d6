"""Go's ``time.Time`` and ``time.Duration`` as templates see them: layouts, String, methods.

Go formats times by example (``2006-01-02T15:04:05Z07:00``), prints a Time as
``2024-03-04 21:30:33 +0000 UTC`` and a Duration as ``1h0m0s``; templates call methods on
both (``.Format``, ``.Unix``, ``.Sub``). Python's ``datetime`` has none of this, nor
nanoseconds, so a time is kept as Unix nanoseconds plus a zone, and the layout language
and duration syntax are written out after Go's ``time/format.go``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from reporters.gotemplate.values import GoError, GoFunc, GoInt

NS = 1
US = 1000
MS = 1000 * US
SECOND = 1000 * MS
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

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


class Duration(int):
    """A Go ``time.Duration`` (nanoseconds)."""

    go_type = "time.Duration"
    go_kind = "int64"

    def go_string(self) -> str:
        return duration_string(int(self))

    def go_methods(self) -> dict[str, GoFunc]:
        d = int(self)
        return {
            "String": GoFunc(lambda: duration_string(d), (), returns="string"),
            "Hours": GoFunc(lambda: d / HOUR, (), returns="float64"),
            "Minutes": GoFunc(lambda: d / MINUTE, (), returns="float64"),
            "Seconds": GoFunc(lambda: d / SECOND, (), returns="float64"),
            "Milliseconds": GoFunc(lambda: int(d / MS), (), returns="int64"),
            "Microseconds": GoFunc(lambda: int(d / US), (), returns="int64"),
            "Nanoseconds": GoFunc(lambda: d, (), returns="int64"),
            "Abs": GoFunc(lambda: Duration(abs(d)), (), returns="time.Duration"),
            "Round": GoFunc(
                lambda m: Duration(_round(d, m)), ("time.Duration",), returns="time.Duration"
            ),
            "Truncate": GoFunc(
                lambda m: Duration(_truncate(d, m)), ("time.Duration",), returns="time.Duration"
            ),
        }


def _go_rem(d: int, m: int) -> int:
    """Go's %: the remainder takes the dividend's sign."""
    r = abs(d) % abs(m)
    return -r if d < 0 else r


def _round(d: int, m: int) -> int:
    """Duration.Round: halfway values round away from zero."""
    if m <= 0:
        return d
    r = _go_rem(d, m)
    if d < 0:
        r = -r
        return d + r if r + r < m else d - m + r
    return d - r if r + r < m else d + m - r


def _truncate(d: int, m: int) -> int:
    return d if m <= 0 else d - _go_rem(d, m)


def _fmt_frac(v: int, prec: int) -> tuple[str, int]:
    digits = []
    printed = False
    for _ in range(prec):
        digit = v % 10
        printed = printed or digit != 0
        if printed:
            digits.append(str(digit))
        v //= 10
    text = ("." + "".join(reversed(digits))) if printed else ""
    return text, v


def duration_string(d: int) -> str:
    """time.Duration.String."""
    if d == 0:
        return "0s"
    neg = d < 0
    u = -d if neg else d
    if u < SECOND:
        if u < US:
            text = f"{u}ns"
        elif u < MS:
            frac, whole = _fmt_frac(u, 3)
            text = f"{whole}{frac}µs"
        else:
            frac, whole = _fmt_frac(u, 6)
            text = f"{whole}{frac}ms"
        return ("-" if neg else "") + text
    frac, whole = _fmt_frac(u, 9)
    secs = whole % 60
    whole //= 60
    text = f"{secs}{frac}s"
    if whole > 0:
        mins = whole % 60
        whole //= 60
        text = f"{mins}m" + text
        if whole > 0:
            text = f"{whole}h" + text
    return ("-" if neg else "") + text


_UNITS = {"ns": NS, "us": US, "µs": US, "μs": US, "ms": MS, "s": SECOND, "m": MINUTE, "h": HOUR}


def parse_duration(s: str) -> Duration:
    """time.ParseDuration, with Go's error text."""
    orig = s
    neg = False
    if s[:1] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return Duration(0)
    if not s:
        raise GoError(f'time: invalid duration "{orig}"')
    total_ns = 0
    while s:
        m = re.match(r"(\d*)(\.\d*)?", s)
        assert m is not None
        if not m.group(1) and not (m.group(2) and len(m.group(2)) > 1):
            raise GoError(f'time: invalid duration "{orig}"')
        s = s[m.end() :]
        u = re.match(r"[^\d.]+", s)
        if u is None:
            raise GoError(f'time: missing unit in duration "{orig}"')
        unit = u.group(0)
        if unit not in _UNITS:
            raise GoError(f'time: unknown unit "{unit}" in duration "{orig}"')
        s = s[u.end() :]
        whole = int(m.group(1) or "0")
        total_ns += whole * _UNITS[unit]
        if m.group(2) and len(m.group(2)) > 1:
            frac = m.group(2)[1:]
            total_ns += int(int(frac) * _UNITS[unit] / 10 ** len(frac))
        if total_ns > 2**63 - 1:
            raise GoError(f'time: invalid duration "{orig}"')
    return Duration(-total_ns if neg else total_ns)


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
        return format_time(self, "2006-01-02 15:04:05.999999999 -0700 MST")

    def go_json(self) -> str:
        return '"' + format_time(self, "2006-01-02T15:04:05.999999999Z07:00") + '"'

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
            "Format": GoFunc(lambda layout: format_time(t, layout), ("string",), returns="string"),
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


def time_of(value: Any) -> GoTime | None:
    return value if isinstance(value, GoTime) else None
