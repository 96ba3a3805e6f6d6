"""The ``window`` step: a promotion held while its windows are closed, with a clock the
test controls, and what the step refuses."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from orchestrator.model.window import PromotionWindow
from orchestrator.steps.window import WindowClosed, hold

ROOT = Path(__file__).resolve().parents[2]


def window(when_closed: str = "wait", **entry: str) -> PromotionWindow:
    return PromotionWindow.model_validate({
        "apiVersion": "promoflow.dev/v1alpha1", "kind": "PromotionWindow",
        "metadata": {"name": "weekend-freeze"},
        "spec": {"whenClosed": when_closed, "deny": [{"name": "weekend", **entry}]},
    })  # fmt: skip


class Clock:
    """Time moves only when the step sleeps."""

    def __init__(self, start: datetime) -> None:
        self.now = start
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += timedelta(seconds=seconds)


WEEKEND = {"schedule": "0 16 * * 5", "duration": "64h", "timeZone": "Europe/Berlin"}
FRIDAY_EVENING = datetime(2026, 11, 27, 17, 0, tzinfo=UTC)  # 18:00 in Berlin


def test_a_closed_window_holds_the_promotion_until_monday_morning() -> None:
    clock = Clock(FRIDAY_EVENING)
    said: list[str] = []
    state, waited = hold(
        [window(**WEEKEND)], poll=3600, now=lambda: clock.now, sleep=clock.sleep,
        say=said.append,
    )  # fmt: skip
    assert state.open
    assert clock.now == datetime(2026, 11, 30, 7, 0, tzinfo=UTC)  # Mon 08:00 Berlin
    assert waited == (clock.now - FRIDAY_EVENING).total_seconds()
    assert said == ["frozen until Mon 08:00 Europe/Berlin (weekend)"]  # said once
    assert max(clock.slept) <= 3600  # looked again every poll: a change is seen


def test_an_open_window_does_not_hold() -> None:
    clock = Clock(datetime(2026, 11, 25, 10, 0, tzinfo=UTC))  # a Wednesday
    state, waited = hold([window(**WEEKEND)], poll=60, now=lambda: clock.now,
                         sleep=clock.sleep, say=print)  # fmt: skip
    assert state.open and waited == 0 and clock.slept == []


def test_a_window_that_says_fail_fails_at_once_naming_when_it_opens() -> None:
    clock = Clock(FRIDAY_EVENING)
    with pytest.raises(WindowClosed, match=r"frozen until Mon 08:00 Europe/Berlin \(weekend\)"):
        hold([window("fail", **WEEKEND)], poll=60, now=lambda: clock.now, sleep=clock.sleep,
             say=print)  # fmt: skip
    assert clock.slept == []


def step(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orchestrator.entry", "step", "window", *args],
        capture_output=True, text=True, cwd=ROOT, check=False, timeout=60,
    )  # fmt: skip


def test_the_step_refuses_windows_it_cannot_read_and_fails_at_a_fail_window() -> None:
    bad = step("-p", "shop", "--environment", "prod", "--windows", "{not json")
    assert bad.returncode == 2 and "--windows" in bad.stderr and "Traceback" not in bad.stderr
    wrong = step("-p", "shop", "--environment", "prod", "--windows", '[{"kind": "Nope"}]')
    assert wrong.returncode == 2 and "--windows" in wrong.stderr
    # a one-off freeze around now, failing: exit 1 with when it opens
    now = datetime.now(UTC)
    frozen = window(
        "fail", **{"from": (now - timedelta(hours=1)).isoformat(timespec="minutes"),
                   "to": (now + timedelta(days=2)).isoformat(timespec="minutes"),
                   "timeZone": "UTC"},
    )  # fmt: skip
    text = json.dumps([frozen.model_dump(mode="json", by_alias=True, exclude_none=True)])
    closed = step("-p", "shop", "--environment", "prod", "--windows", text)
    assert closed.returncode == 1, closed.stderr
    assert "shop into prod: frozen until" in closed.stderr and "(weekend)" in closed.stderr
    opened = step("-p", "shop", "--environment", "prod", "--windows", "[]")
    assert opened.returncode == 0 and json.loads(opened.stdout)["open"] is True
