"""The window state at instants the tests choose: the clock is always passed in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.model import Environment
from orchestrator.model.policy import PolicySelector
from orchestrator.model.window import PromotionWindow
from orchestrator.windows.freeze import Freeze
from orchestrator.windows.state import WindowState, matching, window_state

BERLIN = ZoneInfo("Europe/Berlin")
PROD = Environment.build("prod", production=True)
DEV = Environment.build("dev")


def at(text: str, zone: ZoneInfo = BERLIN) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=zone)


def window(name: str = "w", *, selector: Any = None, **spec: Any) -> PromotionWindow:
    if selector is not None:
        spec["selector"] = selector
    built: PromotionWindow = PromotionWindow.build(name, **spec)
    return built


WEEKEND = {
    "name": "weekend",
    "schedule": "0 16 * * 5",
    "duration": "64h",
    "timeZone": "Europe/Berlin",
}
HOLIDAY = {
    "name": "holiday freeze",
    "from": "2026-12-20T00:00",
    "to": "2027-01-04T08:00",
    "timeZone": "Europe/Berlin",
}
OFFICE = {
    "name": "office hours",
    "schedule": "0 8 * * 1-5",
    "duration": "9h",
    "timeZone": "Europe/Berlin",
}
FREEZE = window(
    "weekend-freeze", selector={"environments": {"production": True}}, deny=[WEEKEND, HOLIDAY]
)


def state(when: datetime, *windows: PromotionWindow, **kw: Any) -> WindowState:
    return window_state(list(windows), "shop", PROD, when, **kw)


def test_the_weekend_closes_friday_1600_and_opens_monday_0800() -> None:
    friday = state(at("2026-11-27T15:59"), FREEZE)
    assert friday.open and friday.closes_at == at("2026-11-27T16:00")
    assert friday.message() == "open until Fri 16:00 Europe/Berlin (weekend)"
    closed = state(at("2026-11-27T16:00"), FREEZE)
    assert not closed.open and closed.opens_at == at("2026-11-30T08:00")
    assert closed.message() == "frozen until Mon 08:00 Europe/Berlin (weekend)"
    assert [c.label for c in closed.closed_by] == ["weekend"]
    assert state(at("2026-11-30T08:00"), FREEZE).open


def test_the_holiday_freeze_names_its_date_when_more_than_six_days_away() -> None:
    closed = state(at("2026-12-22T12:00"), FREEZE)
    assert closed.opens_at == at("2027-01-04T08:00")
    assert closed.message() == "frozen until Mon 4 Jan 08:00 Europe/Berlin (holiday freeze)"
    # a weekend inside the holiday ends at the same time; the holiday is what held it shut
    assert state(at("2027-01-02T12:00"), FREEZE).message() == (
        "frozen until Mon 08:00 Europe/Berlin (holiday freeze)"
    )


def test_a_weekend_over_a_spring_forward_still_ends_monday_0800() -> None:
    """Wall-clock duration: 64h from Friday 16:00 CET is Monday 08:00 CEST (63h elapsed)."""
    closed = state(at("2026-03-28T12:00"), FREEZE)
    assert closed.opens_at == at("2026-03-30T08:00")
    assert closed.opens_at - at("2026-03-27T16:00") == timedelta(hours=63)
    autumn = state(at("2026-10-24T12:00"), FREEZE)
    assert autumn.opens_at == at("2026-10-26T08:00")
    assert autumn.opens_at - at("2026-10-23T16:00") == timedelta(hours=65)


def test_a_start_in_the_skipped_hour_does_not_happen_that_day() -> None:
    nightly = window(
        deny=[{"schedule": "30 2 * * *", "duration": "1h", "timeZone": "Europe/Berlin"}]
    )
    # 2026-03-29: 02:00 CET jumps to 03:00 CEST; no 02:30, so no window that night
    assert state(at("2026-03-29T03:10"), nightly).open
    opened = state(at("2026-03-29T01:00"), nightly)
    assert opened.closes_at == at("2026-03-30T02:30")


def test_a_one_hour_window_across_the_fall_back_covers_both_readings() -> None:
    """02:30-03:30 on the night 03:00 CEST becomes 02:00 CET: it starts at the first
    02:30, starts again at the second, and ends when the clock reads 03:30: two hours."""
    nightly = window(
        deny=[
            {
                "name": "night",
                "schedule": "30 2 * * *",
                "duration": "1h",
                "timeZone": "Europe/Berlin",
            }
        ]
    )
    first = datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # 02:30 CEST
    closed = state(first, nightly)
    assert closed.opens_at == datetime(2026, 10, 25, 2, 30, tzinfo=UTC)  # 03:30 CET
    assert not state(datetime(2026, 10, 25, 1, 45, tzinfo=UTC), nightly).open  # 02:45 CET
    assert state(first - timedelta(minutes=1), nightly).closes_at == first


def test_a_window_crossing_midnight_and_spanning_days() -> None:
    nights = window(
        deny=[
            {
                "name": "night",
                "schedule": "0 22 * * *",
                "duration": "10h",
                "timeZone": "Europe/Berlin",
            }
        ]
    )
    closed = state(at("2026-06-02T01:00"), nights)
    assert closed.opens_at == at("2026-06-02T08:00")
    assert state(at("2026-06-02T08:00"), nights).closes_at == at("2026-06-02T22:00")


def test_overlapping_windows_union() -> None:
    a = window("a", deny=[{"name": "a", "schedule": "0 10 * * *", "duration": "2h"}])
    b = window("b", deny=[{"name": "b", "schedule": "0 11 * * *", "duration": "3h"}])
    utc = ZoneInfo("UTC")
    closed = state(at("2026-06-01T10:30", utc), a, b)
    assert closed.opens_at == at("2026-06-01T14:00", utc)
    assert closed.message() == "frozen until Mon 14:00 UTC (b)"
    both = state(at("2026-06-01T11:30", utc), a, b)
    assert {c.label for c in both.closed_by} == {"a", "b"}


def test_deny_beats_allow_and_allow_closes_what_is_outside() -> None:
    office = window("office", deny=[WEEKEND], allow=[OFFICE])
    assert state(at("2026-11-25T12:00"), office).closes_at == at("2026-11-25T17:00")
    evening = state(at("2026-11-25T20:00"), office)
    assert evening.message() == "frozen until Thu 08:00 Europe/Berlin (outside office hours)"
    # Friday 16:00-17:00 is inside office hours and inside the weekend: closed
    assert not state(at("2026-11-27T16:30"), office).open


def test_allow_only() -> None:
    office = window("office", allow=[OFFICE])
    saturday = state(at("2026-11-28T12:00"), office)
    assert saturday.opens_at == at("2026-11-30T08:00")
    assert saturday.closed_by[0].cause == "allow"


def test_each_window_can_only_close() -> None:
    """Two windows with allow entries: open only where both allow."""
    mornings = window("m", allow=[{"schedule": "0 6 * * *", "duration": "6h"}])
    noons = window("n", allow=[{"schedule": "0 10 * * *", "duration": "6h"}])
    utc = ZoneInfo("UTC")
    assert not state(at("2026-06-01T07:00", utc), mornings, noons).open
    assert state(at("2026-06-01T11:00", utc), mornings, noons).closes_at == at(
        "2026-06-01T12:00", utc
    )


def test_a_one_off_range_is_read_in_its_zone_or_with_its_offset() -> None:
    ny = window(
        deny=[
            {
                "name": "launch",
                "from": "2026-07-03T18:00",
                "to": "2026-07-06T09:00",
                "timeZone": "America/New_York",
            }
        ]
    )
    closed = state(datetime(2026, 7, 4, 12, tzinfo=UTC), ny)
    assert closed.opens_at == datetime(2026, 7, 6, 13, tzinfo=UTC)
    assert closed.message() == "frozen until Mon 09:00 America/New_York (launch)"
    offset = window(deny=[{"from": "2026-07-03T18:00+02:00", "to": "2026-07-04T00:00Z"}])
    assert state(datetime(2026, 7, 3, 16, 30, tzinfo=UTC), offset).opens_at == datetime(
        2026, 7, 4, tzinfo=UTC
    )


def test_the_search_is_bounded() -> None:
    forever = window(
        "forever", deny=[{"name": "forever", "from": "2026-01-01T00:00", "to": "2030-01-01T00:00"}]
    )
    closed = state(at("2026-06-01T00:00"), forever)
    assert closed.opens_at is None
    assert closed.message() == "frozen, not opening within 400 days (forever)"
    short = state(at("2026-06-01T00:00"), forever, horizon=timedelta(days=30))
    assert short.message() == "frozen, not opening within 30 days (forever)"
    later = window(deny=[{"from": "2028-01-01T00:00", "to": "2028-02-01T00:00"}])
    assert state(at("2026-06-01T00:00"), later).message() == "open, not closing within 400 days"
    assert state(at("2026-06-01T00:00")).message() == "open (no window applies)"


def test_far_dates_show_the_year() -> None:
    yearly = window(deny=[{"name": "audit", "schedule": "0 0 1 1 *", "duration": "1d"}])
    opened = state(datetime(2026, 3, 1, tzinfo=UTC), yearly)
    assert opened.message() == "open until Fri 1 Jan 2027 00:00 UTC (audit)"


def test_a_manual_freeze_holds_until_lifted() -> None:
    since = datetime(2026, 11, 27, 9, tzinfo=UTC)
    freeze = Freeze(
        "incident 42", "alice", since, PolicySelector.model_validate({"products": ["shop"]})
    )
    frozen = state(datetime(2026, 11, 27, 10, tzinfo=UTC), FREEZE, freezes=[freeze])
    assert not frozen.open and frozen.frozen and frozen.opens_at is None
    assert frozen.message() == "frozen until unfrozen (incident 42; by alice since Fri 09:00 UTC)"
    other = window_state([], "cart", PROD, since, freezes=[freeze])
    assert other.open


def test_when_closed_fail_wins_over_wait() -> None:
    strict = window("strict", whenClosed="fail", deny=[WEEKEND])
    closed = state(at("2026-11-28T12:00"), FREEZE, strict)
    assert closed.when_closed == "fail"
    assert state(at("2026-11-28T12:00"), FREEZE).when_closed == "wait"


def test_matching_uses_the_policy_selector() -> None:
    labelled = Environment.model_validate(
        {"kind": "Environment", "metadata": {"name": "eu", "labels": {"region": "eu"}}}
    )
    eu = window("eu", selector={"environments": {"matchLabels": {"region": "eu"}}}, deny=[WEEKEND])
    shop = window("shop", selector={"products": ["shop"]}, deny=[WEEKEND])
    named = window("named", selector={"environments": {"names": ["dev"]}}, deny=[WEEKEND])
    everything = [FREEZE, eu, shop, named]
    assert [w.name for w in matching(everything, "shop", PROD)] == ["weekend-freeze", "shop"]
    assert [w.name for w in matching(everything, "cart", labelled)] == ["eu"]
    assert [w.name for w in matching(everything, "cart", DEV)] == ["named"]
    assert state(at("2026-11-28T12:00"), FREEZE).windows == ("weekend-freeze",)
    assert window_state([FREEZE], "shop", DEV, at("2026-11-28T12:00")).open


def test_now_must_carry_a_zone() -> None:
    with pytest.raises(ValueError, match="aware"):
        state(datetime(2026, 1, 1), FREEZE)


MIXED = [
    window(
        "mixed",
        deny=[
            WEEKEND,
            HOLIDAY,
            {
                "name": "night",
                "schedule": "30 1-3 * * *",
                "duration": "45m",
                "timeZone": "Europe/Berlin",
            },
        ],
        allow=[{"schedule": "0 7 * * 1-5", "duration": "12h", "timeZone": "America/New_York"}],
    ),
    window(
        "lh", deny=[{"schedule": "0 2 * * *", "duration": "90m", "timeZone": "Australia/Lord_Howe"}]
    ),
]
INSTANTS = st.datetimes(
    min_value=datetime(2026, 1, 1), max_value=datetime(2027, 12, 31), timezones=st.just(UTC)
)


@settings(max_examples=60, deadline=None)
@given(now=INSTANTS, fractions=st.lists(st.floats(0, 1, exclude_max=True), max_size=6))
def test_the_state_is_consistent(now: datetime, fractions: list[float]) -> None:
    """Closed at t until o: open at o, closed at every instant in [t, o); open at t until
    c: closed at c, open at every instant in [t, c)."""
    first = window_state(MIXED, "shop", PROD, now)
    change = first.opens_at if not first.open else first.closes_at
    assert change is not None and change > now
    assert window_state(MIXED, "shop", PROD, change).open is not first.open
    for fraction in fractions:
        # timedelta * float rounds to the microsecond: keep the instant inside [now, change)
        between = min(now + (change - now) * fraction, change - timedelta(microseconds=1))
        assert window_state(MIXED, "shop", PROD, between).open is first.open
