"""Go's ``time.Duration``: nanoseconds that print as ``1h0m0s`` and parse from ``90m``.

Templates meet durations through Argo CD's ``time`` helpers (``.time.Hour``, a
``Sub`` of two times) and sprig's ``duration``/``dateModify``; their text form and
``ParseDuration``'s grammar and errors are Go's own, written out after ``time/time.go``
and ``time/format.go``.
"""

from __future__ import annotations

import re

from reporters.gotemplate.values import GoError, GoFunc

NS = 1
US = 1000
MS = 1000 * US
SECOND = 1000 * MS
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE


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
