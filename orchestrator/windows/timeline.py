"""The periods one window entry covers, as a union walked forward in time.

A recurring entry covers ``[start, end)`` from each activation of its schedule, ``end``
being the start's wall-clock reading plus the duration (see
:func:`orchestrator.schedules.walltime.after_reading`); overlapping periods merge, so a
72h window started every day covers everything. Periods are produced lazily up to a horizon:
the answer to "until when" is usually days away, and a schedule firing every minute must
not cost a year of activations to find it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from orchestrator.model.window import WindowEntry
from orchestrator.schedules import cron
from orchestrator.schedules.walltime import after_reading

LOOKBACK_SLACK = timedelta(days=1)
"""Beyond the duration, how far back a start may lie and still cover the first instant:
a DST change stretches a wall-clock duration by up to its size."""


@dataclass(frozen=True)
class Span:
    """A half-open period ``[start, end)`` in UTC."""

    start: datetime
    end: datetime


def spans(entry: WindowEntry, after: datetime, until: datetime) -> Iterator[Span]:
    """The entry's periods that end after ``after`` and start by ``until``, in start order."""
    fixed = entry.one_off()
    if fixed is not None:
        if fixed[1] > after and fixed[0] <= until:
            yield Span(*fixed)
        return
    schedule, duration = entry.recurring(), entry.duration
    assert schedule is not None and duration is not None  # the model requires both
    zone = entry.zone
    for start in cron.activations(schedule, zone, after - duration - LOOKBACK_SLACK, until):
        end = after_reading(start, duration, zone)
        if end > after:
            yield Span(start, end)


class Timeline:
    """The union of an entry's periods, asked about instants that never go back."""

    def __init__(self, entry: WindowEntry, after: datetime, until: datetime) -> None:
        self.entry = entry
        self._raw = spans(entry, after, until)
        self._pending = next(self._raw, None)
        self._current: Span | None = None

    def _merged(self) -> Span | None:
        first = self._pending
        if first is None:
            return None
        start, end = first.start, first.end
        self._pending = next(self._raw, None)
        while self._pending is not None and self._pending.start <= end:
            end = max(end, self._pending.end)
            self._pending = next(self._raw, None)
        return Span(start, end)

    def span(self, at: datetime) -> Span | None:
        """The merged period covering ``at`` or, if none does, the next one."""
        while self._current is None or self._current.end <= at:
            self._current = self._merged()
            if self._current is None:
                return None
        return self._current

    def covers(self, at: datetime) -> Span | None:
        found = self.span(at)
        return found if found is not None and found.start <= at else None

    def boundary(self, at: datetime) -> datetime | None:
        """The next instant after ``at`` at which this timeline starts or stops covering."""
        found = self.span(at)
        if found is None:
            return None
        return found.start if found.start > at else found.end
