"""What the ``run`` entries of the step programs share: output files, flag checks and how
they refuse.

Step programs sit below the command line (they never import typer or
``orchestrator.commands``): they raise :class:`StepFailed` or :class:`StepUsageError`, and
``promoflow step`` turns those into ``error: ...`` with the exit code, or a usage error
(exit 2). Imported only once a program runs, so declaring steps stays free of the URL and
duration parsers. Results go to stdout as one JSON line and, with ``--outputs DIR``, to one
file per Argo output parameter.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

from orchestrator.errors import EXIT_FAILED, EXIT_TRANSIENT, PromoflowError
from orchestrator.steps.registry import TRANSIENT_EXIT
from orchestrator.urls import scrub

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

__all__ = [
    "TRANSIENT_EXIT",
    "StepFailed",
    "StepUsageError",
    "checked_repo",
    "checked_url",
    "env_seconds",
    "fail",
    "flag",
    "load_settings",
    "outputs_dir",
    "retry_transient",
    "say",
    "seconds",
    "usage",
    "write_outputs",
]

S = TypeVar("S", bound="BaseSettings")
T = TypeVar("T")

RETRY_WINDOW = 30.0
"""Seconds a step keeps trying again after a transient failure before it exits 75."""
RETRY_WINDOW_VARIABLE = "PROMOFLOW_RETRY_WINDOW"


class StepFailed(PromoflowError):
    """The step cannot go on: ``error: MESSAGE`` and exit ``code`` (no message: only the
    exit code, when the step already said why)."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message, transient=code == EXIT_TRANSIENT)
        self.message = message
        self.code = code

    @property
    def exit_code(self) -> int:
        return self.code


class StepUsageError(StepFailed):
    """A flag's value cannot be used: a usage error naming ``option`` (exit 2)."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message, 2)
        self.option = option


def fail(message: str, code: int = 1) -> NoReturn:
    raise StepFailed(message, code)


def usage(message: str, option: str | None = None) -> NoReturn:
    raise StepUsageError(message, option)


def say(message: str) -> None:
    """One line on stderr (stdout is the step's JSON result), scrubbed of credentials."""
    sys.stderr.write(scrub(message) + "\n")
    sys.stderr.flush()


def load_settings(cls: type[S]) -> S:
    """Settings from the environment; a bad one is a usage error naming the variable."""
    from orchestrator.settings import SettingsError, load

    try:
        return load(cls)
    except SettingsError as exc:
        fail(str(exc), 2)


def write_outputs(directory: Path | None, values: dict[str, str]) -> None:
    """One file per output parameter, as Argo's ``valueFrom.path`` reads them."""
    if directory is None:
        return
    directory.mkdir(parents=True, exist_ok=True)
    for name, value in values.items():
        (directory / name).write_text(value)


def outputs_dir(outputs: Path | None) -> Path | None:
    """``--outputs``, else PROMOFLOW_OUTPUTS (set by the step templates), else none."""
    if outputs is not None:
        return outputs
    env = os.environ.get("PROMOFLOW_OUTPUTS")
    return Path(env) if env else None


def retry_window() -> float:
    """``PROMOFLOW_RETRY_WINDOW``: seconds, at least 0 (no retry) and at most an hour."""
    return env_seconds(RETRY_WINDOW_VARIABLE, RETRY_WINDOW, allow_zero=True)


def retry_transient(
    call: Callable[[], T],
    *,
    window: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``call()``, tried again after a transient failure (a refused connection, a 5xx, a
    push that kept losing races) with backoff (1, 2, 4, 8, ... s) until ``window`` seconds
    (``PROMOFLOW_RETRY_WINDOW``, default 30) have passed; then the last failure is raised,
    and the step exits 75. A failure no retry can fix is raised at once.

    The workflow starts a new attempt of an exit 75 at once (``compiler/library.py``: Argo
    would wait out a backoff before failing a permanent failure too), so the wait for a
    server to come back is here, in the step, one log line per try."""
    from orchestrator.gates import retrying

    seconds = retry_window() if window is None else window
    if seconds <= 0:
        return call()
    return retrying.until(
        call, deadline=clock() + seconds, log=say, clock=clock, sleep=sleep, again="trying again"
    )


def env_seconds(name: str, default: float, *, allow_zero: bool = False) -> float:
    """A number of seconds from the environment: finite, positive (or 0 with
    ``allow_zero``), at most an hour."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        fail(f"{name}: not a number of seconds", 2)
    above = value >= 0 if allow_zero else value > 0
    if not math.isfinite(value) or not above or value > 3600:
        span = "from 0 to 3600" if allow_zero else "more than 0 and at most 3600"
        fail(f"{name}: must be {span} seconds", 2)
    return value


def checked_url(value: str, option: str) -> str:
    """An http(s) URL flag: well-formed and without credentials (the message never repeats
    the value, which may hold one)."""
    from orchestrator.urls import UrlError, check_url

    if value:
        try:
            check_url(value)
        except UrlError as exc:
            usage(str(exc), option)
    return value


def checked_repo(value: str) -> str:
    """``--repo`` of the gate steps only names which repository to match: a credential in it
    has no use and would be printed, so it is refused."""
    from orchestrator.urls import UrlError, check_git_url

    if value:
        try:
            check_git_url(value, hint="the steps read GIT_TOKEN for Git access")
        except UrlError as exc:
            usage(str(exc), "--repo")
    return value


def seconds(value: str, option: str) -> float:
    """A duration flag (``15m``, ``24h``) in seconds; a usage error naming ``option``."""
    from orchestrator.durations import parse_duration

    try:
        return parse_duration(value).total_seconds()
    except ValueError as exc:
        usage(str(exc), option)


def flag(value: str, option: str) -> bool:
    """A boolean passed as text (Argo parameters are strings): true/false, yes/no, 1/0."""
    lowered = value.strip().lower()
    if lowered not in ("true", "false", "yes", "no", "1", "0"):
        usage(f"expected true or false, got {value!r}", option)
    return lowered in ("true", "yes", "1")
