"""Go's ``time.Time`` and ``time.Duration`` as Argo CD's trigger functions hand them to expr.

``time.Parse`` (RFC 3339 only, as Argo CD registers it; :mod:`.gotimeparse`) and
``time.Now`` give a ``Time``; its methods (``Sub``, ``Add``, ``Before``...; :mod:`.methods`)
and a ``Duration``'s (``Minutes``...) are what conditions such as the catalog's
``on-deployed`` call. Written by hand because Python's ``datetime`` has neither Go's
nanoseconds, nor year 0, nor its fixed-zone naming, nor its printing (``2024-03-05 07:33:03
+0000 UTC``, ``1h30m0s``, ``Time.Format`` layouts); the vectors prove it.
"""

from __future__ import annotations

from dataclasses import dataclass

NANO = 1
MICRO = 1000 * NANO
MILLI = 1000 * MICRO
SECOND = 1000 * MILLI
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
MIN_DURATION = -(2**63)
MAX_DURATION = 2**63 - 1

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]  # fmt: skip
DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

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
RFC3339 = LAYOUTS["RFC3339"]


def wrap64(value: int) -> int:
    """Two's complement int64 arithmetic, as Go's overflowing ``+ - *`` give it."""
    return (value + 2**63) % 2**64 - 2**63


class Duration(int):
    """``time.Duration``: nanoseconds in an int64."""

    def __new__(cls, value: int) -> Duration:
        return super().__new__(cls, wrap64(value))

    def go_string(self) -> str:
        """``Duration.String``: ``72h3m0.5s``, ``1.5µs``, ``0s``."""
        value = int(self)
        if value == 0:
            return "0s"
        negative, u = value < 0, abs(value)
        if u < SECOND:
            if u < MICRO:
                text = f"{u}ns"
            elif u < MILLI:
                text = _frac(u, 3) + "µs"
            else:
                text = _frac(u, 6) + "ms"
        else:
            text = _frac(u % MINUTE, 9) + "s"
            minutes = u // MINUTE
            if minutes:
                text = f"{minutes % 60}m" + text
                if minutes // 60:
                    text = f"{minutes // 60}h" + text
        return ("-" if negative else "") + text


def _frac(value: int, digits: int) -> str:
    """``value / 10**digits`` printed without trailing zeros (Go's ``fmtFrac``+``fmtInt``)."""
    whole, frac = divmod(value, 10**digits)
    text = str(whole)
    if frac:
        text += "." + f"{frac:0{digits}d}".rstrip("0")
    return text


class Month(int):
    """``time.Month``: an int that prints as its English name."""


class Weekday(int):
    """``time.Weekday``."""


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (year 0 included, as in Go)."""
    year -= month <= 2
    era = year // 400  # floor division: no adjustment for negative years
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def days_in(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


@dataclass(frozen=True)
class Wall:
    """A wall clock reading: what Go's Date and Clock give."""

    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    weekday: int
    """Sunday is 0, as time.Weekday counts."""
    yday: int


def wall_clock(seconds: int) -> Wall:
    days, rest = divmod(seconds, 86400)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    year = yoe + era * 400 + (month <= 2)
    yday = days - days_from_civil(year, 1, 1) + 1
    return Wall(year, month, day, rest // 3600, rest // 60 % 60, rest % 60, (days + 4) % 7, yday)


@dataclass(frozen=True)
class Zone:
    """A fixed zone: its name (``UTC``, or ``""`` for an offset parsed from text) and offset."""

    name: str
    offset: int


UTC_ZONE = Zone("UTC", 0)


@dataclass(frozen=True)
class Time:
    """``time.Time`` reduced to what conditions see: an instant in Unix seconds and
    nanoseconds, and the fixed zone it is shown in."""

    seconds: int
    nanos: int
    zone: Zone = UTC_ZONE

    def local(self) -> Wall:
        """The wall clock in the time's own zone."""
        return wall_clock(self.seconds + self.zone.offset)

    def unix_nano(self) -> int:
        return self.seconds * SECOND + self.nanos

    def add(self, duration: int) -> Time:
        total = self.unix_nano() + int(duration)
        seconds, nanos = divmod(total, SECOND)
        return Time(seconds, nanos, self.zone)

    def sub(self, other: Time) -> Duration:
        """``Time.Sub``: clamped to the Duration range, as Go clamps it."""
        diff = self.unix_nano() - other.unix_nano()
        return Duration(max(MIN_DURATION, min(MAX_DURATION, diff)))

    def in_zone(self, zone: Zone) -> Time:
        return Time(self.seconds, self.nanos, zone)

    def format(self, layout: str) -> str:
        return format_time(self, layout)

    def go_string(self) -> str:
        """``Time.String``: ``2006-01-02 15:04:05.999999999 -0700 MST``."""
        return format_time(self, "2006-01-02 15:04:05.999999999 -0700 MST")


_CHUNKS = ["January", "Jan", "Monday", "Mon", "MST", "2006", "002", "01", "02", "03", "04",
           "05", "06", "_2", "15", "1", "2", "3", "4", "5", "PM", "pm", "-07:00:00", "-0700",
           "-07:00", "-07", "Z07:00:00", "Z0700", "Z07:00", "Z07"]  # fmt: skip


def format_time(value: Time, layout: str) -> str:
    """``Time.Format`` for the layout elements Go documents."""
    wall = value.local()
    offset = value.zone.offset
    out: list[str] = []
    i = 0
    while i < len(layout):
        if layout[i] in ".," and i + 1 < len(layout) and layout[i + 1] in "09":
            digit = layout[i + 1]
            j = i + 1
            while j < len(layout) and layout[j] == digit:
                j += 1
            if not (j < len(layout) and layout[j].isdigit()):
                width = j - i - 1
                frac = f"{value.nanos:09d}"[:width]
                if digit == "9":
                    frac = frac.rstrip("0")
                    out.append(layout[i] + frac if frac else "")
                else:
                    out.append(layout[i] + frac)
                i = j
                continue
        chunk = next((c for c in _CHUNKS if layout.startswith(c, i)), None)
        if chunk is None or (chunk in ("Jan", "Mon") and _lower_follows(layout, i + 3)):
            out.append(layout[i])
            i += 1
            continue
        out.append(_element(chunk, wall, offset, value.zone, value.nanos))
        i += len(chunk)
    return "".join(out)


def _lower_follows(layout: str, index: int) -> bool:
    return index < len(layout) and layout[index].islower()


def _element(chunk: str, wall: Wall, offset: int, zone: Zone, nanos: int) -> str:
    hour12 = wall.hour % 12 or 12
    values = {
        "January": MONTHS[wall.month - 1], "Jan": MONTHS[wall.month - 1][:3],
        "Monday": DAYS[wall.weekday], "Mon": DAYS[wall.weekday][:3],
        "2006": f"{wall.year:04d}", "06": f"{wall.year % 100:02d}", "01": f"{wall.month:02d}",
        "1": str(wall.month), "02": f"{wall.day:02d}", "2": str(wall.day),
        "_2": f"{wall.day:2d}", "002": f"{wall.yday:03d}",
        "15": f"{wall.hour:02d}", "03": f"{hour12:02d}", "3": str(hour12),
        "04": f"{wall.minute:02d}", "4": str(wall.minute), "05": f"{wall.second:02d}",
        "5": str(wall.second), "PM": "PM" if wall.hour >= 12 else "AM",
        "pm": "pm" if wall.hour >= 12 else "am",
    }  # fmt: skip
    if chunk in values:
        return values[chunk]
    if chunk == "MST":
        if zone.name:
            return zone.name
        return _offset(offset, "-0700")
    if chunk.startswith("Z") and offset == 0:
        return "Z"
    return _offset(offset, chunk.lstrip("Z") if chunk.startswith("Z") else chunk)


def _offset(offset: int, form: str) -> str:
    sign = "-" if offset < 0 else "+"
    hours, rest = divmod(abs(offset), 3600)
    minutes, seconds = divmod(rest, 60)
    if form == "07" or form == "-07":
        return f"{sign}{hours:02d}"
    if form in ("0700", "-0700"):
        return f"{sign}{hours:02d}{minutes:02d}"
    if form in ("07:00", "-07:00"):
        return f"{sign}{hours:02d}:{minutes:02d}"
    return f"{sign}{hours:02d}:{minutes:02d}:{seconds:02d}"
