"""Cron schedules as Argo's CronWorkflow reads them (robfig/cron v3), evaluated by cronsim.

A window's ``schedule`` should mean what the same text means to an Argo user's CronWorkflow,
so the grammar is robfig's standard parser, read here with messages that name the field and
what it takes. Which minutes a parsed schedule selects is then cronsim's job (a maintained
evaluator with no dependencies), fed only plain lists of numbers and ``*`` so none of its
own extensions (``L``, ``#``, seconds) can leak in. ``tests/vectors/cron`` holds robfig's
own answers and the tests check every one.

The grammar: five fields (minute 0-59, hour 0-23, day of month 1-31, month 1-12 or
``JAN``-``DEC``, day of week 0-6 with 0 Sunday or ``SUN``-``SAT``, names in any case), or a
descriptor (``@yearly``, ``@annually``, ``@monthly``, ``@weekly``, ``@daily``,
``@midnight``, ``@hourly``). A field is a comma list of items; an item is ``*`` or ``?``, a
number or name, or a range ``a-b``, each with an optional ``/step``; ``a/step`` means
``a-max/step``. Day of month and day of week: when either is a star (``*``, ``?`` or a
star with step 1) a day must match the other; otherwise a day matching either fires (robfig
keeps a "star" mark only for an unstepped star, so ``*/2`` counts as restricted; cronsim
would AND it, so such a schedule is evaluated as the union of its two halves).

Refused although robfig accepts them: text it takes by accident (``*-5``, whose ``-5`` it
ignores; empty list items ``1,,2``; a plus sign ``+5``); ``@every`` (a window starts at
wall-clock times, not at intervals from whenever a controller started); a schedule that
never fires (``0 0 30 2 *``: robfig's ``Next`` gives the zero time, an Argo CronWorkflow
never runs).

Time zones, as robfig computes them: the activations are the instants at which the zone's
clock shows a selected minute. A minute a spring-forward jump skips does not fire that day
(``30 2 * * *`` in Europe/Berlin skips the last Sunday of March); a minute a fall-back
repeats fires twice (02:30 CEST and 02:30 CET). One documented difference: robfig steps
through hours in absolute time from the top of an hour, so on a night whose clock goes back
by half an hour (Australia/Lord_Howe, 02:00 -> 01:30 in April) it misses the first minutes
of the hour after the repeat (``0 2 * * *`` does not fire that day); promoflow fires at
02:00 as the clock shows it, since skipping is an accident of robfig's stepping, not a rule.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from cronsim import CronSim, CronSimError

from orchestrator.schedules.walltime import readings, wall

FOLD_MARGIN = timedelta(hours=3)
"""More than any clock goes back (DST changes are at most two hours): how far apart in wall
time two activations may be and still come in the other order in absolute time."""


class CronError(ValueError):
    """A schedule robfig (or promoflow, see the module) refuses; the message says why."""


@dataclass(frozen=True)
class _Field:
    name: str
    low: int
    high: int
    allowed: str
    names: tuple[str, ...] = ()
    """Names of the values from ``low`` on (lowercase, as robfig compares them)."""


_FIELDS = (
    _Field("minute", 0, 59, "0-59"),
    _Field("hour", 0, 23, "0-23"),
    _Field("day of month", 1, 31, "1-31"),
    _Field("month", 1, 12, "1-12 or JAN-DEC",
           ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")),
    _Field("day of week", 0, 6, "0-6 (0 is Sunday) or SUN-SAT",
           ("sun", "mon", "tue", "wed", "thu", "fri", "sat")),
)  # fmt: skip
_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule: the values each field selects, and which day fields are stars."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    days_star: bool
    weekdays_star: bool


def _fail(field: _Field, item: str, why: str) -> CronError:
    return CronError(f"{field.name} field {item!r}: {why}; the {field.name} takes {field.allowed}")


def _value(text: str, field: _Field, item: str) -> int:
    if text.lower() in field.names:
        return field.low + field.names.index(text.lower())
    if not text.isascii() or not text.isdigit():
        what = "an empty number" if not text else f"{text!r} is not a number"
        if field.names:
            what += " or a name"
        raise _fail(field, item, what)
    return int(text)


def _item(item: str, field: _Field) -> tuple[set[int], bool]:
    """The values one list item selects, and whether it is a star (robfig's rules)."""
    if not item:
        raise _fail(field, item, "an empty item in a list")
    range_step = item.split("/")
    if len(range_step) > 2:
        raise _fail(field, item, "more than one '/'")
    low_high = range_step[0].split("-")
    star = low_high[0] in ("*", "?")
    if star:
        if len(low_high) > 1:
            raise _fail(field, item, "a star is the whole range; write a range 'a-b' or '*'")
        start, end = field.low, field.high
    else:
        if len(low_high) > 2:
            raise _fail(field, item, "more than one '-'")
        start = _value(low_high[0], field, item)
        end = start if len(low_high) == 1 else _value(low_high[1], field, item)
    step = 1
    if len(range_step) == 2:
        if not range_step[1].isascii() or not range_step[1].isdigit():
            raise _fail(field, item, f"the step {range_step[1]!r} is not a number")
        step = int(range_step[1])
        if len(low_high) == 1:
            end = field.high
        star = star and step == 1
    if start < field.low:
        raise _fail(field, item, f"{start} is below the minimum {field.low}")
    if end > field.high:
        raise _fail(field, item, f"{end} is above the maximum {field.high}")
    if start > end:
        raise _fail(field, item, f"the range starts at {start}, after its end {end}")
    if step == 0:
        raise _fail(field, item, "a step of 0; steps are 1 or more")
    return set(range(start, end + 1, step)), star


def _field(text: str, field: _Field) -> tuple[frozenset[int], bool]:
    values: set[int] = set()
    star = False
    for item in text.split(","):
        selected, is_star = _item(item, field)
        values |= selected
        star = star or is_star
    return frozenset(values), star


def parse(text: str) -> Schedule:
    """Read a schedule; ``CronError`` says which field is wrong and what it takes."""
    spec = text.strip()
    if spec.startswith("@"):
        if spec.split()[0] == "@every":
            raise CronError(
                "'@every' is not a window start (it counts from whenever a controller started); "
                "write the wall-clock times, e.g. '0 */2 * * *' for every two hours"
            )
        if spec not in _DESCRIPTORS:
            raise CronError(f"unknown descriptor {spec!r}; one of: {', '.join(_DESCRIPTORS)}")
        spec = _DESCRIPTORS[spec]
    if spec.startswith(("TZ=", "CRON_TZ=")):
        raise CronError("write the time zone in the window's 'timeZone', not in the schedule")
    parts = spec.split()
    if len(parts) != 5:
        raise CronError(
            f"expected 5 fields (minute hour day-of-month month day-of-week), found {len(parts)}"
        )
    (minutes, _), (hours, _), (days, days_star), (months, _), (weekdays, weekdays_star) = (
        _field(part, field) for part, field in zip(parts, _FIELDS, strict=True)
    )
    schedule = Schedule(text, minutes, hours, days, months, weekdays, days_star, weekdays_star)
    _check_fires(schedule)
    return schedule


def _check_fires(schedule: Schedule) -> None:
    """A day of month that no selected month has (with the day of week a star) never comes."""
    if schedule.days_star or not schedule.weekdays_star:
        return
    longest = max(_DAYS_IN_MONTH[m - 1] for m in schedule.months)
    if min(schedule.days) > longest:
        months = ", ".join(_MONTHS[m - 1] for m in sorted(schedule.months))
        raise CronError(
            f"never fires: no day {min(schedule.days)} in {months}; pick a day of month "
            f"up to {longest}"
        )


def _list(values: frozenset[int]) -> str:
    return ",".join(str(v) for v in sorted(values))


def _expressions(schedule: Schedule) -> list[str]:
    """cronsim expressions whose union is the schedule (see the module on day fields)."""
    head = f"{_list(schedule.minutes)} {_list(schedule.hours)}"
    months = _list(schedule.months)
    days, weekdays = _list(schedule.days), _list(schedule.weekdays)
    if schedule.days_star:
        return [f"{head} * {months} {weekdays}"]
    if schedule.weekdays_star:
        return [f"{head} {days} {months} *"]
    return [f"{head} {days} {months} *", f"{head} * {months} {weekdays}"]


def _walls(schedule: Schedule, start: datetime) -> Iterator[datetime]:
    """Selected wall-clock minutes after ``start`` (naive), in order, without repeats."""
    try:
        streams = [CronSim(expr, start) for expr in _expressions(schedule)]
    except CronSimError as exc:  # parse() refuses everything cronsim would
        raise CronError(str(exc)) from None
    merged = heapq.merge(*streams) if len(streams) > 1 else streams[0]
    for reading, _ in itertools.groupby(merged):
        yield reading


def activations(
    schedule: Schedule, zone: ZoneInfo, after: datetime, until: datetime
) -> Iterator[datetime]:
    """The instants (UTC) in ``(after, until]`` at which the schedule fires in ``zone``.

    Walks the selected wall-clock minutes and turns each into the instants the clock shows
    it (none, one or two, see the module); an instant is handed out only once the walk is
    :data:`FOLD_MARGIN` past its reading, since a repeated hour can still yield an earlier
    one."""
    after, until = after.astimezone(UTC), until.astimezone(UTC)
    pending: list[datetime] = []
    last = wall(until, zone) + FOLD_MARGIN
    for reading in _walls(schedule, wall(after, zone) - FOLD_MARGIN):
        while pending and wall(pending[0], zone) + FOLD_MARGIN < reading:
            yield heapq.heappop(pending)
        if reading > last:
            break
        for instant in readings(reading, zone):
            if after < instant <= until:
                heapq.heappush(pending, instant)
    while pending:
        yield heapq.heappop(pending)
