"""Window schedules against robfig/cron v3, the library Argo's CronWorkflow reads them with.

``tests/vectors/cron/vectors.jsonl`` holds what robfig's ``ParseStandard`` and ``Next`` gave
for each input (see ``main.go`` there). Every vector is checked: the same schedules are
refused, and the accepted ones fire at the same instants with the same UTC offsets, but for
the two classes of difference :mod:`orchestrator.schedules.cron` documents, each checked
for what promoflow does instead.
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from orchestrator.schedules import cron
from orchestrator.schedules.walltime import wall

VECTORS = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "vectors" / "cron" / "vectors.jsonl")
    .read_text()
    .splitlines()
]
LOOSE = {"*-5 * * * *", "1,,2 * * * *", "+5 * * * *", "0 0 * * MON,", "0 0 ,1 * *", "@every 1h"}
"""Accepted by robfig, refused by promoflow (the module says why)."""
HALF_HOUR_ZONES = {"Australia/Lord_Howe"}
"""Where robfig's hour stepping misses (or misplaces) activations after a change."""


def _id(vector: dict[str, Any]) -> str:
    return f"{vector['spec']!r}@{vector['zone']}@{vector['start']}"


def _ours(vector: dict[str, Any]) -> list[datetime]:
    zone = ZoneInfo(vector["zone"])
    start = datetime.fromisoformat(vector["start"])
    found = cron.activations(
        cron.parse(vector["spec"]), zone, start, start + timedelta(days=60 * 366)
    )
    return list(itertools.islice(found, vector["n"]))


def _shown(instants: list[datetime], zone: str) -> list[str]:
    """RFC 3339 in the zone's offset, as Go formats it (``Z`` for UTC)."""
    out = []
    for instant in instants:
        text = instant.astimezone(ZoneInfo(zone)).isoformat()
        out.append(text.replace("+00:00", "Z") if zone == "UTC" else text)
    return out


def _selects(schedule: cron.Schedule, reading: datetime) -> bool:
    """The schedule's own rule, read off a wall clock (independent of the evaluator)."""
    weekday = (reading.weekday() + 1) % 7
    day_ok = reading.day in schedule.days
    dow_ok = weekday in schedule.weekdays
    days = day_ok and dow_ok if schedule.days_star or schedule.weekdays_star else day_ok or dow_ok
    return (
        reading.minute in schedule.minutes
        and reading.hour in schedule.hours
        and reading.month in schedule.months
        and days
    )


def _first_change(zone: ZoneInfo, start: datetime) -> datetime:
    """The first UTC offset change after ``start``, to the minute."""
    at = start.astimezone(UTC).replace(second=0)
    offset = at.astimezone(zone).utcoffset()
    for step in (timedelta(hours=1), timedelta(minutes=1)):
        while at.astimezone(zone).utcoffset() == offset:
            at += step
        at -= step
    return at + timedelta(minutes=1)


@pytest.mark.parametrize("vector", [v for v in VECTORS if "error" in v], ids=_id)
def test_what_robfig_refuses_is_refused(vector: dict[str, Any]) -> None:
    with pytest.raises(cron.CronError):
        cron.parse(vector["spec"])


@pytest.mark.parametrize("vector", [v for v in VECTORS if v["spec"] in LOOSE], ids=_id)
def test_what_robfig_takes_by_accident_is_refused(vector: dict[str, Any]) -> None:
    assert vector.get("next"), "robfig accepted and fired it"
    with pytest.raises(cron.CronError):
        cron.parse(vector["spec"])


@pytest.mark.parametrize(
    "vector", [v for v in VECTORS if "error" not in v and not v.get("next")], ids=_id
)
def test_a_schedule_robfig_never_fires_is_refused(vector: dict[str, Any]) -> None:
    with pytest.raises(cron.CronError, match="never fires"):
        cron.parse(vector["spec"])


ACCEPTED = [v for v in VECTORS if v.get("next") and v["spec"] not in LOOSE]


@pytest.mark.parametrize(
    "vector", [v for v in ACCEPTED if v["zone"] not in HALF_HOUR_ZONES], ids=_id
)
def test_activations_are_robfigs(vector: dict[str, Any]) -> None:
    assert _shown(_ours(vector), vector["zone"]) == vector["next"]


@pytest.mark.parametrize("vector", [v for v in ACCEPTED if v["zone"] in HALF_HOUR_ZONES], ids=_id)
def test_half_hour_zones_agree_until_the_clock_changes(vector: dict[str, Any]) -> None:
    """Where the clock moves by half an hour, robfig agrees up to the change; after it,
    promoflow fires exactly at the minutes the clock shows and the schedule selects."""
    zone = ZoneInfo(vector["zone"])
    ours = _ours(vector)
    theirs = [datetime.fromisoformat(t) for t in vector["next"]]
    change = _first_change(zone, datetime.fromisoformat(vector["start"]))
    assert [t for t in ours if t < change] == [t for t in theirs if t < change]
    schedule = cron.parse(vector["spec"])
    assert all(_selects(schedule, wall(t, zone)) for t in ours)
    assert ours == sorted(set(ours))


def test_the_half_hour_difference_is_real() -> None:
    """The class above is not empty: robfig skips Lord Howe's 02:00 after the fall-back."""
    vector = next(
        v for v in ACCEPTED
        if v["spec"] == "0 2 * * *" and v["zone"] == "Australia/Lord_Howe"
        and v["start"].startswith("2026-04")
    )  # fmt: skip
    assert "2026-04-05T02:00:00+10:30" not in vector["next"]
    assert "2026-04-05T02:00:00+10:30" in _shown(_ours(vector), vector["zone"])


def test_the_vectors_cover_every_class() -> None:
    zones = {v["zone"] for v in VECTORS}
    assert {"Europe/Berlin", "America/New_York", "Australia/Lord_Howe"} <= zones
    assert len([v for v in VECTORS if "error" in v]) >= 20
    assert len(ACCEPTED) >= 200
