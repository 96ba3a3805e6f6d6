"""Go's ``time.Duration``: int64 nanoseconds that print as ``1h30m0s`` and parse from ``90m``.

Argo CD's notification settings, Argo Workflows' durations, expr's ``duration()`` and
sprig's ``duration``/``dateModify`` all meet ``time.ParseDuration`` and
``Duration.String``; their grammar, rounding and error text (with the ``time`` package's
own quoting, not ``strconv``'s) are written out after ``time/time.go`` and
``time/format.go`` because Python's ``timedelta`` has no nanoseconds and prints otherwise.
``tests/vectors/goduration`` holds Go's answers.
"""

from __future__ import annotations

NANO = 1
MICRO = 1000 * NANO
MILLI = 1000 * MICRO
SECOND = 1000 * MILLI
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
MIN_DURATION = -(2**63)
MAX_DURATION = 2**63 - 1
_MAX = 1 << 63
UNIT_NAMES = {"Nanosecond": NANO, "Microsecond": MICRO, "Millisecond": MILLI, "Second": SECOND,
              "Minute": MINUTE, "Hour": HOUR}  # fmt: skip
"""The Duration constants of Go's ``time`` package, by name (Argo CD's ``time.Hour``...)."""
UNITS = {"ns": NANO, "us": MICRO, "\u00b5s": MICRO, "\u03bcs": MICRO, "ms": MILLI,
         "s": SECOND, "m": MINUTE, "h": HOUR}  # fmt: skip
"""The units ParseDuration knows (``µs`` as both the micro sign and the Greek mu)."""


def wrap64(value: int) -> int:
    """Two's complement int64 arithmetic, as Go's overflowing ``+ - *`` give it."""
    return (value + 2**63) % 2**64 - 2**63


class Duration(int):
    """``time.Duration``: nanoseconds in an int64."""

    go_type = "time.Duration"
    go_kind = "int64"

    def __new__(cls, value: int) -> Duration:
        return super().__new__(cls, wrap64(value))

    def go_string(self) -> str:
        return duration_string(int(self))


def _frac(value: int, digits: int) -> str:
    """``value / 10**digits`` printed without trailing zeros (Go's ``fmtFrac``+``fmtInt``)."""
    whole, frac = divmod(value, 10**digits)
    text = str(whole)
    if frac:
        text += "." + f"{frac:0{digits}d}".rstrip("0")
    return text


def duration_string(value: int) -> str:
    """``Duration.String``: ``72h3m0.5s``, ``1.5µs``, ``0s``."""
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


def go_rem(d: int, m: int) -> int:
    """Go's ``%``: the remainder takes the dividend's sign."""
    r = abs(d) % abs(m)
    return -r if d < 0 else r


def in_units(value: int, unit: int) -> float:
    """``Duration.Hours`` and friends: whole units plus the fraction, as Go splits them."""
    whole = go_rem(value, unit)
    return float((value - whole) // unit) + whole / unit


def round_duration(d: int, m: int) -> int:
    """``Duration.Round``: halfway values round away from zero, clamped to the int64 range."""
    if m <= 0:
        return d
    r = go_rem(d, m)
    if d < 0:
        r = -r
        if r + r < m:
            return d + r
        return max(d - m + r, MIN_DURATION)
    if r + r < m:
        return d - r
    return min(d + m - r, MAX_DURATION)


def truncate_duration(d: int, m: int) -> int:
    """``Duration.Truncate``."""
    return d if m <= 0 else d - go_rem(d, m)


def abs_duration(d: int) -> int:
    """``Duration.Abs``: the smallest Duration has no positive twin, so it saturates."""
    return MAX_DURATION if d == MIN_DURATION else abs(d)


class DurationError(ValueError):
    """Go (or Argo) would refuse this text; the message is the one Go or Argo prints."""


def time_quote(text: str) -> str:
    """Go's ``time.quote``: non-ASCII and control characters as ``\\xHH`` UTF-8 bytes."""
    out = ['"']
    for char in text:
        if char < " " or ord(char) >= 0x80:
            out += [f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass")]
        elif char in '"\\':
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out) + '"'


def _leading_int(s: str) -> tuple[int, str]:
    """``time.leadingInt``: the leading digits; an error past 1<<63 (Go's overflow)."""
    i, value = 0, 0
    while i < len(s) and "0" <= s[i] <= "9":
        if value > _MAX // 10:
            raise OverflowError
        value = value * 10 + ord(s[i]) - 48
        if value > _MAX:
            raise OverflowError
        i += 1
    return value, s[i:]


def _leading_fraction(s: str) -> tuple[int, float, str]:
    """``time.leadingFraction``: digits after the point; extra precision is dropped."""
    i, value, scale, overflow = 0, 0, 1.0, False
    while i < len(s) and "0" <= s[i] <= "9":
        if not overflow:
            if value > (_MAX - 1) // 10:
                overflow = True
            else:
                candidate = value * 10 + ord(s[i]) - 48
                if candidate > _MAX:
                    overflow = True
                else:
                    value = candidate
                    scale *= 10
        i += 1
    return value, scale, s[i:]


def parse_duration(text: str) -> Duration:
    """Go's ``time.ParseDuration``, step for step; :class:`DurationError` with Go's text."""
    original, s = text, text
    invalid = DurationError(f"time: invalid duration {time_quote(original)}")
    negative = False
    if s and s[0] in "+-":
        negative = s[0] == "-"
        s = s[1:]
    if s == "0":
        return Duration(0)
    if not s:
        raise invalid
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            raise invalid
        before = len(s)
        try:
            whole, s = _leading_int(s)
        except OverflowError:
            raise invalid from None
        had_int = before != len(s)
        frac, scale, had_frac = 0, 1.0, False
        if s and s[0] == ".":
            s = s[1:]
            before = len(s)
            frac, scale, s = _leading_fraction(s)
            had_frac = before != len(s)
        if not had_int and not had_frac:
            raise invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            raise DurationError(f"time: missing unit in duration {time_quote(original)}")
        unit_text, s = s[:i], s[i:]
        unit = UNITS.get(unit_text)
        if unit is None:
            raise DurationError(
                f"time: unknown unit {time_quote(unit_text)} in duration {time_quote(original)}"
            )
        if whole > _MAX // unit:
            raise invalid
        whole *= unit
        if frac > 0:
            whole += int(float(frac) * (float(unit) / scale))
            if whole > _MAX:
                raise invalid
        total += whole
        if total > _MAX:
            raise invalid
    if negative:
        return Duration(-total)
    if total > MAX_DURATION:
        raise invalid
    return Duration(total)
