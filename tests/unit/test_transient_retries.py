"""A step tries a transient failure again itself, with backoff, before it exits 75; what no
retry can fix is raised at once. The workflow restarts an exit 75 at once, so this is where
the wait for a server to come back happens (orchestrator/compiler/library.py)."""

from __future__ import annotations

import pytest

from orchestrator.adapters.git import GitError
from orchestrator.steps import support
from orchestrator.steps.support import StepFailed, retry_transient


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def failing(*errors: Exception) -> tuple[list[int], object]:
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return "done"

    return calls, call


def test_a_transient_failure_is_tried_again_with_backoff(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clock = Clock()
    refused = GitError("connection to http://git.example/x refused", transient=True)
    calls, call = failing(refused, refused, refused)
    result = retry_transient(call, window=30, clock=clock.time, sleep=clock.sleep)  # type: ignore[arg-type]
    assert result == "done" and len(calls) == 4
    assert clock.slept == [1, 2, 4]
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"{refused}; trying again in 1s (gives up at ")


def test_it_gives_up_at_the_end_of_the_window_with_the_last_failure() -> None:
    clock = Clock()
    refused = GitError("connection refused", transient=True)
    _, call = failing(*[refused] * 100)
    with pytest.raises(GitError) as raised:
        retry_transient(call, window=10, clock=clock.time, sleep=clock.sleep)  # type: ignore[arg-type]
    assert raised.value is refused
    assert sum(clock.slept) == 10  # the last wait is cut to end at the window
    assert clock.slept == [1, 2, 4, 3]


@pytest.mark.parametrize(
    "error",
    [
        GitError("authentication to http://git.example/x failed: check GIT_TOKEN"),
        GitError("repository http://git.example/x not found (or no access)"),
        StepFailed("a listed approver did not answer"),
        ValueError("bad input"),
    ],
)
def test_what_no_retry_can_fix_is_raised_at_once(error: Exception) -> None:
    clock = Clock()
    calls, call = failing(error)
    with pytest.raises(type(error)):
        retry_transient(call, window=30, clock=clock.time, sleep=clock.sleep)  # type: ignore[arg-type]
    assert len(calls) == 1 and clock.slept == []


def test_a_window_of_zero_tries_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMOFLOW_RETRY_WINDOW", "0")
    clock = Clock()
    calls, call = failing(GitError("connection refused", transient=True))
    with pytest.raises(GitError):
        retry_transient(call, clock=clock.time, sleep=clock.sleep)  # type: ignore[arg-type]
    assert len(calls) == 1 and clock.slept == []


@pytest.mark.parametrize("value", ["-1", "nan", "3601", "soon"])
def test_a_bad_window_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("PROMOFLOW_RETRY_WINDOW", value)
    with pytest.raises(StepFailed) as raised:
        support.retry_window()
    assert raised.value.code == 2
    assert raised.value.message.startswith("PROMOFLOW_RETRY_WINDOW: ")
