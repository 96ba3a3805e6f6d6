"""What a wall-clock reading means across DST changes, and zones by name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from orchestrator.schedules import zones
from orchestrator.schedules.walltime import after_reading, first_reading, readings

BERLIN = ZoneInfo("Europe/Berlin")
LORD_HOWE = ZoneInfo("Australia/Lord_Howe")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def test_a_reading_names_none_one_or_two_instants() -> None:
    assert readings(datetime(2026, 3, 29, 2, 30), BERLIN) == []
    assert readings(datetime(2026, 3, 29, 3, 30), BERLIN) == [utc(2026, 3, 29, 1, 30)]
    assert readings(datetime(2026, 10, 25, 2, 30), BERLIN) == [
        utc(2026, 10, 25, 0, 30),
        utc(2026, 10, 25, 1, 30),
    ]
    assert len(readings(datetime(2026, 4, 5, 1, 45), LORD_HOWE)) == 2


def test_a_skipped_reading_means_the_jump_and_a_repeated_one_its_first() -> None:
    assert first_reading(datetime(2026, 3, 29, 2, 30), BERLIN) == utc(2026, 3, 29, 1)
    assert first_reading(datetime(2026, 10, 25, 2, 30), BERLIN) == utc(2026, 10, 25, 0, 30)
    # Lord Howe jumps from 02:00 to 02:30 on 4 October 2026 (15:00 UTC)
    assert first_reading(datetime(2026, 10, 4, 2, 10), LORD_HOWE) == utc(2026, 10, 3, 15, 30)


def test_after_a_start_the_first_later_reading_counts() -> None:
    second = utc(2026, 10, 25, 1, 15)  # 02:15 CET, the second 02:15 of the night
    assert after_reading(second, timedelta(minutes=30), BERLIN) == utc(2026, 10, 25, 1, 45)
    first = utc(2026, 10, 25, 0, 15)  # 02:15 CEST
    assert after_reading(first, timedelta(minutes=30), BERLIN) == utc(2026, 10, 25, 0, 45)


def test_a_duration_is_wall_clock_time() -> None:
    friday = utc(2026, 3, 27, 15)  # 16:00 CET
    assert after_reading(friday, timedelta(hours=64), BERLIN) == utc(2026, 3, 30, 6)  # 08:00 CEST


def test_zones_by_name_with_suggestions() -> None:
    assert zones.zone("Europe/Berlin") == BERLIN
    assert zones.zone("UTC") == ZoneInfo("UTC")
    assert zones.closest("europe/berlin") == ["Europe/Berlin"]
    assert zones.closest("Berlin") == ["Europe/Berlin"]
    assert "America/New_York" in zones.closest("America/NewYork")
    with pytest.raises(zones.UnknownZone, match="did you mean 'Europe/Berlin'"):
        zones.zone("Europe/Berln")
    with pytest.raises(zones.UnknownZone, match="unknown time zone 'Mars/Olympus'"):
        zones.zone("Mars/Olympus")
