"""Retry what waiting may fix, until the step's deadline, saying each time what it waits for.

Every step that talks to a server (the Argo CD gate, wait-merge, the HTTP gate) retries
the same way: only failures marked ``transient`` (a refused connection, a timeout, a 5xx),
with exponential backoff, never past the deadline the step was given, and with one log
line per retry (``cannot reach Argo CD at X (connection refused); retrying in 4s (gives up
at 12:03:10)``) so a waiting node says why it waits. A permanent failure is raised at once.
tenacity runs the loop; the clock and sleep are injectable, so tests need not wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception, wait_exponential

T = TypeVar("T")
Log = Callable[[str], None]


def is_transient(exc: BaseException) -> bool:
    """Errors of promoflow's adapters carry ``transient``; anything else is not retried."""
    return bool(getattr(exc, "transient", False))


def wall_time(deadline: float, clock: Callable[[], float] = time.monotonic) -> str:
    """``deadline`` (on ``clock``) as the local time of day a log reader compares with."""
    return time.strftime("%H:%M:%S", time.localtime(time.time() + deadline - clock()))


def seconds(value: float) -> str:
    """``4s``, ``0.5s``, ``90s``: a wait as a person reads it."""
    text = f"{value:.0f}" if value >= 10 else f"{value:.1f}".rstrip("0").rstrip(".")
    return f"{text}s"


def until(
    fn: Callable[[], T],
    *,
    deadline: float | None,
    log: Log,
    first_wait: float = 1.0,
    max_wait: float = 30.0,
    attempts: int | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    retry_on: Callable[[BaseException], bool] = is_transient,
    again: str = "retrying",
) -> T:
    """``fn()``, retried while it raises an error ``retry_on`` accepts, the deadline (on
    ``clock``; ``None``: none) has not passed and fewer than ``attempts`` tries were made.

    Waits double from ``first_wait`` up to ``max_wait``; the last wait is cut to end at the
    deadline, so the last try happens then. When retrying stops, the last error is raised
    as it was: the caller says that it gave up, and why."""
    backoff = wait_exponential(multiplier=first_wait, max=max_wait)

    def wait(state: RetryCallState) -> float:
        left = float("inf") if deadline is None else deadline - clock()
        return max(0.0, min(backoff(state), left))

    def stop(state: RetryCallState) -> bool:
        out_of_tries = attempts is not None and state.attempt_number >= attempts
        return out_of_tries or (deadline is not None and clock() >= deadline)

    def announce(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        limits = [f"try {state.attempt_number + 1} of {attempts}"] if attempts else []
        if deadline is not None:
            limits.append(f"gives up at {wall_time(deadline, clock)}")
        bounds = f" ({', '.join(limits)})" if limits else ""
        log(f"{error}; {again} in {seconds(state.upcoming_sleep)}{bounds}")

    retrying: Retrying = Retrying(
        retry=retry_if_exception(retry_on),
        wait=wait,
        stop=stop,
        sleep=sleep,
        before_sleep=announce,
        reraise=True,
    )
    return retrying(fn)
