"""The one-line texts a person reads about a window state.

``frozen until Mon 08:00 Europe/Berlin (holiday freeze)``: the time in the zone of the
window that decides the reopening, with the date when it is more than six days away
(``Mon 4 Jan 08:00``) and the year when it is more than half a year away. Names of days
and months are English whatever the locale, as in every promoflow message.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from orchestrator.schedules.zones import zone
from orchestrator.windows.state import WindowState

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
WEEK = timedelta(days=6)
HALF_YEAR = timedelta(days=183)


def when(instant: datetime, zone_name: str, now: datetime) -> str:
    """``Mon 08:00 Europe/Berlin``, with the date (and year) when it is far from ``now``."""
    local = instant.astimezone(zone(zone_name))
    text = _DAYS[local.weekday()]
    distance = abs(instant - now)
    if distance > WEEK:
        text += f" {local.day} {_MONTHS[local.month - 1]}"
        if distance > HALF_YEAR:
            text += f" {local.year}"
    return f"{text} {local:%H:%M} {zone_name}"


def _days(state: WindowState) -> int:
    return round(state.horizon / timedelta(days=1))


def describe(state: WindowState) -> str:
    """What the state means for a promotion, in one line."""
    reason = state.decided_by
    if state.open:
        if state.closes_at is None or reason is None:
            if not state.windows:
                return "open (no window applies)"
            return f"open, not closing within {_days(state)} days"
        return f"open until {when(state.closes_at, reason.zone, state.now)} ({reason.label})"
    if reason is not None and reason.freeze is not None:
        frozen = reason.freeze
        since = when(frozen.since, "UTC", state.now) if frozen.since <= state.now else "now"
        return f"frozen until unfrozen ({frozen.reason}; by {frozen.by} since {since})"
    label = reason.label if reason is not None else ""
    if state.opens_at is None or reason is None:
        return f"frozen, not opening within {_days(state)} days ({label})"
    return f"frozen until {when(state.opens_at, reason.zone, state.now)} ({label})"


def outlook_line(state: WindowState) -> str:
    """For ``validate``: ``open now, closes at ...`` or the closed message."""
    text = describe(state)
    if state.open and state.closes_at is not None:
        return "open now, closes at" + text.removeprefix("open until")
    return text
