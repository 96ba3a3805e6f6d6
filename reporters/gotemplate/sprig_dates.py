"""sprig's date functions (date.go, v3.3.0): formatting and parsing Go times.

``now`` and ``ago`` read the clock and ``date``/``dateInZone`` read it for anything that is
not a time or a Unix number; a caller passes ``now`` in (``Template.execute(funcs=...)``)
to make them repeatable. Zones come from the IANA database; ``Local`` is UTC.
"""

from __future__ import annotations

import time as _time
from typing import Any

from reporters.gotemplate.godurations import HOUR, MINUTE, SECOND, Duration, parse_duration
from reporters.gotemplate.gotime import UTC, ZERO_UNIX, GoTime, load_location, parse_time
from reporters.gotemplate.sprig_convert import ANY
from reporters.gotemplate.values import GoError, GoFunc, GoInt

T = "time.Time"
S = "string"


def now() -> GoTime:
    ns = _time.time_ns()
    return GoTime(ns // SECOND, ns % SECOND, UTC)


def _as_time(date: Any) -> GoTime:
    if isinstance(date, GoTime):
        return date
    if (
        isinstance(date, int)
        and not isinstance(date, bool)
        and (isinstance(date, GoInt) or type(date) is int)
    ):
        return GoTime(int(date), 0, UTC)
    return now()


def date_in_zone(fmt: str, date: Any, zone: str) -> str:
    t = _as_time(date)
    try:
        loc = load_location(zone)
    except GoError:
        loc = UTC
    return GoTime(t.unix, t.nsec, loc).go_methods()["Format"](fmt)  # type: ignore[no-any-return]


def _date_modify(fmt: str, date: GoTime) -> GoTime:
    try:
        d = parse_duration(fmt)
    except GoError:
        return date
    return date.add(d)


def _must_date_modify(fmt: str, date: GoTime) -> GoTime:
    return date.add(parse_duration(fmt))


def _duration(sec: Any) -> str:
    n = 0
    if isinstance(sec, str):
        try:
            n = int(sec, 10) if sec.lstrip("+-").isdigit() else 0
        except ValueError:
            n = 0
    elif isinstance(sec, int) and type(sec) is int:
        n = sec
    return Duration(n * SECOND).go_string()


def _duration_round(value: Any) -> str:
    d = 0
    if isinstance(value, str):
        try:
            d = parse_duration(value)
        except GoError:
            d = 0
    elif isinstance(value, int) and type(value) is int:
        d = value
    elif isinstance(value, GoTime):
        d = now().sub(value)
    u = abs(d)
    for size, unit in (
        (HOUR * 24 * 365, "y"),
        (HOUR * 24 * 30, "mo"),
        (HOUR * 24, "d"),
        (HOUR, "h"),
        (MINUTE, "m"),
        (SECOND, "s"),
    ):
        if u > size:
            return f"{u // size}{unit}"
    return "0s"


def _to_date(fmt: str, text: str) -> GoTime:
    try:
        return parse_time(fmt, text, UTC)
    except GoError:
        return GoTime(ZERO_UNIX, 0, UTC)


def _ago(date: Any) -> str:
    t = _as_time(date)
    d = now().sub(t)
    rounded = d.go_methods()["Round"](Duration(SECOND))
    return Duration(rounded).go_string()


FUNCS: dict[str, GoFunc] = {
    "now": GoFunc(now, (), returns=T),
    "ago": GoFunc(_ago, (ANY,), returns=S),
    "date": GoFunc(lambda f, d: date_in_zone(f, d, "Local"), (S, ANY), returns=S),
    "dateInZone": GoFunc(date_in_zone, (S, ANY, S), returns=S),
    "date_in_zone": GoFunc(date_in_zone, (S, ANY, S), returns=S),
    "dateModify": GoFunc(_date_modify, (S, T), returns=T),
    "date_modify": GoFunc(_date_modify, (S, T), returns=T),
    "mustDateModify": GoFunc(_must_date_modify, (S, T), returns=T),
    "must_date_modify": GoFunc(_must_date_modify, (S, T), returns=T),
    "duration": GoFunc(_duration, (ANY,), returns=S),
    "durationRound": GoFunc(_duration_round, (ANY,), returns=S),
    "htmlDate": GoFunc(lambda d: date_in_zone("2006-01-02", d, "Local"), (ANY,), returns=S),
    "htmlDateInZone": GoFunc(lambda d, z: date_in_zone("2006-01-02", d, z), (ANY, S), returns=S),
    "toDate": GoFunc(_to_date, (S, S), returns=T),
    "mustToDate": GoFunc(lambda f, s: parse_time(f, s, UTC), (S, S), returns=T),
    "unixEpoch": GoFunc(lambda t: str(t.unix), (T,), returns=S),
}
