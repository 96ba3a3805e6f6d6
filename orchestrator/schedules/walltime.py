"""Wall-clock readings of a zone and the instants they name, across DST changes.

A reading such as 02:30 names two instants on a fall-back night (the clock shows it twice)
and none on a spring-forward night (the clock jumps past it). The rule promoflow applies
everywhere a window names a wall-clock time (a ``from``, a ``to``, the end of a recurring
window): the time means **the first instant at which the clock shows that reading or a
later one**. So an ambiguous reading is its first occurrence, and a skipped one is the
moment of the jump (``02:30`` on the night Europe/Berlin goes from 02:00 to 03:00 is
03:00 CEST). Instants are aware datetimes in UTC (see :mod:`orchestrator.schedules`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo


def wall(instant: datetime, zone: ZoneInfo) -> datetime:
    """What the zone's clock shows at ``instant``, as a naive datetime."""
    return instant.astimezone(zone).replace(tzinfo=None)


def readings(reading: datetime, zone: ZoneInfo) -> list[datetime]:
    """The instants at which the clock shows ``reading`` (naive): none, one or two."""
    found: list[datetime] = []
    for fold in (0, 1):
        instant = reading.replace(tzinfo=zone, fold=fold).astimezone(UTC)
        if wall(instant, zone) == reading and instant not in found:
            found.append(instant)
    return sorted(found)


def first_reading(reading: datetime, zone: ZoneInfo, after: datetime | None = None) -> datetime:
    """The first instant (after ``after``, when given) at which the clock shows ``reading``
    or a later time: see the module's rule."""
    for instant in readings(reading, zone):
        if after is None or instant > after:
            return instant
    # skipped by a jump forward: the instant the clock jumps is between the two offsets'
    # readings; find it to the second (zones change on whole seconds)
    low = reading.replace(tzinfo=zone, fold=1).astimezone(UTC)
    high = reading.replace(tzinfo=zone, fold=0).astimezone(UTC)
    low, high = min(low, high), max(low, high)
    if after is not None and high <= after:
        raise ValueError(f"{reading} is not shown after {after}")
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        middle = middle.replace(microsecond=0)
        if wall(middle, zone) >= reading:
            high = middle
        else:
            low = middle
    return high


def after_reading(start: datetime, span: timedelta, zone: ZoneInfo) -> datetime:
    """The end of a window that starts at ``start`` and lasts ``span`` of wall-clock time:
    the first instant after ``start`` at which the clock shows start's reading plus
    ``span``. A 64h window from Friday 16:00 ends on Monday 08:00 whether or not the clocks
    change over the weekend."""
    return first_reading(wall(start, zone) + span, zone, after=start)
