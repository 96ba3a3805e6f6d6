"""``retryStrategy`` decided the way the Argo controller decides it (pure).

After an attempt fails, ``processNodeRetries`` (``workflow/controller/operator.go``) runs,
in this order, and the first rule that applies wins:

1. ``backoff.maxDuration``: past ``first attempt start + maxDuration`` the node ends with
   the last attempt's phase and "Max duration limit exceeded";
2. ``backoff.duration`` (required when ``backoff`` is set): the wait is
   ``duration * factor^(attempts - 1)`` (``factor`` an integer, ignored unless > 0), at most
   ``backoff.cap``; if ``last end + wait`` is after the maxDuration deadline the node ends
   with "Backoff would exceed max duration limit"; otherwise, while ``attempts <= limit``,
   the node waits ("Backoff for ..."). The wait comes **before** the policy: a failure the
   policy will not retry still waits out the backoff first;
3. ``retryPolicy`` (default ``OnFailure``, ``Always`` when an ``expression`` is given,
   ``RetryPolicyActual``): ``OnFailure`` retries Failed, ``OnError`` retries Error,
   ``Always`` both, ``OnTransientError`` either when the message is a transient error
   (``util/errors``, ``IsTransientErr``). Not retried: the node ends with the last
   attempt's phase and message;
4. ``limit``: after ``limit + 1`` attempts the node ends with "No more retries left";
5. ``expression``: false ends the node with "retryStrategy.expression evaluated to false".

Otherwise another attempt starts; with ``maxDuration`` its deadline is the maxDuration
deadline (``executionDeadline``). Durations are read by ``ParseStringToDuration``: an
integer is seconds, anything else a Go duration (``1m30s``, ``1.5h``, ``300ms``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from orchestrator.durations import DurationError, parse_argo
from orchestrator.engine.errors import EngineError
from orchestrator.engine.expreval import ExprError, Expression
from orchestrator.engine.exprlang import parse_expression
from orchestrator.engine.gotext import go_value_text
from orchestrator.engine.model import Phase

POLICIES = frozenset({"Always", "OnFailure", "OnError", "OnTransientError"})
MAX_DURATION_EXCEEDED = "Max duration limit exceeded"
BACKOFF_EXCEEDS_MAX = "Backoff would exceed max duration limit"
NO_MORE_RETRIES = "No more retries left"
EXPRESSION_FALSE = "retryStrategy.expression evaluated to false"
EXECUTION_DEADLINE_MESSAGE = "Step exceeded its deadline"

_ATOI = re.compile(r"[+-]?[0-9]+")
_MAX_SECONDS = (2**63 - 1) / 1e9
"""``time.Duration`` saturates at MaxInt64 nanoseconds (the factor overflow guard)."""
TRANSIENT_MESSAGES = (
    "Connection closed by foreign host",
    "net/http: TLS handshake timeout",
    "i/o timeout",
    "connection timed out",
    "connection reset by peer",
    "http2: client connection lost",
    "http2: server sent GOAWAY and closed the connection",
    "connect: connection refused",
    "invalid connection",
    "etcdserver: leader changed",
    "etcdserver: request timed out",
    "etcdserver: too many requests",
    "upper: no more rows in",
)
"""What ``isTransientErr`` recognises in a plain message (util/errors/errors.go)."""


class RetryError(EngineError):
    """``processNodeRetries`` returned an error: Argo marks the node ``Error`` with it."""


def go_atoi(value: Any) -> int | None:
    """``intstr`` values: an int, or a string ``strconv.Atoi`` accepts; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _ATOI.fullmatch(value):
        return int(value)
    return None


def go_duration(value: Any) -> float:
    """``wfv1.ParseStringToDuration`` (seconds, or Go's ``time.ParseDuration``), unclamped:
    a negative backoff is a deadline already past, as it is for the controller."""
    try:
        return parse_argo(value if isinstance(value, str) else str(value))
    except DurationError as exc:
        raise RetryError(str(exc)) from None


def _truncated(seconds: float) -> str:
    """``humanize.TruncatedDuration`` (argo's util/humanize): one unit."""
    steps = (
        (1, "0 seconds", 0),
        (2, "1 second", 0),
        (60, "{} seconds", 1),
        (120, "1 minute", 0),
        (3600, "{} minutes", 60),
        (7200, "1 hour", 0),
        (86400, "{} hours", 3600),
        (172800, "1 day", 0),
        (604800, "{} days", 86400),
        (1209600, "1 week", 0),
    )
    for limit, text, unit in steps:
        if seconds < limit:
            return text.format(int(seconds // unit)) if unit else text
    return f"{int(seconds // 604800)} weeks"


def humanize(seconds: float) -> str:
    """``humanize.Duration``: the "Backoff for ..." text, e.g. ``1 minute 30 seconds``."""
    if seconds < 60:
        return _truncated(seconds)
    if seconds < 3600:
        return f"{_truncated(seconds)} {int(seconds % 60)} seconds"
    if seconds < 86400:
        return f"{_truncated(seconds)} {int(seconds / 60 % 60)} minutes"
    return f"{_truncated(seconds)} {int(seconds / 3600 % 24)} hours"


def is_transient(message: str, pattern: str | None = None) -> bool:
    """``IsTransientErr(InternalError(message))``; ``pattern`` is the controller's
    ``TRANSIENT_ERROR_PATTERN`` (unset by default)."""
    if any(text in message for text in TRANSIENT_MESSAGES):
        return True
    return bool(pattern) and re.search(str(pattern), message) is not None


@dataclass(frozen=True)
class AttemptOutcome:
    """What the controller knows of a finished attempt (times on the run's clock)."""

    phase: Phase
    message: str
    exit_code: int | None
    started: float
    finished: float

    def scope(self, retries: int) -> dict[str, str]:
        """``buildRetryStrategyLocalScope``: every value a string; the duration is whole
        seconds, as the node's persisted ``startedAt``/``finishedAt`` give it."""
        seconds = float(int(self.finished) - int(self.started))
        return {
            "retries": str(retries),
            "lastRetry.exitCode": str(-1 if self.exit_code is None else self.exit_code),
            "lastRetry.status": str(self.phase),
            "lastRetry.duration": go_value_text(seconds),
            "lastRetry.message": self.message,
        }


@dataclass(frozen=True)
class Wait:
    seconds: float
    """``requeueAfter(timeToWait)``: the controller looks again a full backoff later."""
    message: str


@dataclass(frozen=True)
class Stop:
    phase: Phase
    message: str


@dataclass(frozen=True)
class Again:
    deadline: float | None
    """The maxDuration deadline the next attempt must end by (``executionDeadline``)."""


Step = Wait | Stop | Again


@dataclass(frozen=True)
class RetryStrategy:
    """A substituted ``retryStrategy``; fields are checked as ``processNodeRetries`` reads
    them, so a bad value surfaces (as a :class:`RetryError`) only when Argo's would."""

    raw: Mapping[str, Any]
    transient_pattern: str | None = None

    @property
    def policy(self) -> str:
        """``RetryPolicyActual``."""
        policy = self.raw.get("retryPolicy")
        if policy:
            return str(policy)
        return "Always" if self.raw.get("expression") else "OnFailure"

    def limit(self) -> int | None:
        value = self.raw.get("limit")
        if value is None:
            return None
        parsed = go_atoi(value)
        if parsed is None:
            raise RetryError(f"value '{value}' cannot be resolved to an int")
        return parsed

    def expression(self) -> Expression | None:
        text = self.raw.get("expression")
        if not text:
            return None
        try:
            return parse_expression(str(text))
        except EngineError as exc:
            raise RetryError(str(exc)) from None

    def next_step(self, attempts: Sequence[AttemptOutcome], now: float) -> Step:
        """``processNodeRetries`` after a failed attempt, at ``now``."""
        last = attempts[-1]
        count = len(attempts)
        deadline: float | None = None
        backoff = self.raw.get("backoff")
        if backoff is not None:
            if backoff.get("maxDuration"):
                deadline = attempts[0].started + go_duration(backoff["maxDuration"])
                if now > deadline:
                    return Stop(last.phase, MAX_DURATION_EXCEEDED)
            if not backoff.get("duration"):
                raise RetryError("no base duration specified for retryStrategy")
            wait = go_duration(backoff["duration"])
            factor = backoff.get("factor")
            if factor is not None:
                parsed = go_atoi(factor)
                if parsed is None:
                    raise RetryError(f"value '{factor}' cannot be resolved to an int")
                if parsed > 0:
                    wait = min(wait * float(parsed) ** (count - 1), _MAX_SECONDS)
            if backoff.get("cap"):
                wait = min(wait, go_duration(backoff["cap"]))
            waiting_deadline = last.finished + wait
            if deadline is not None and waiting_deadline > deadline:
                return Stop(last.phase, BACKOFF_EXCEEDS_MAX)
            # here Argo reads the limit with IntValue(), which is 0 for a bad string
            raw_limit = self.raw.get("limit")
            limit = None if raw_limit is None else (go_atoi(raw_limit) or 0)
            if now < waiting_deadline and limit is not None and count <= limit:
                return Wait(wait, f"Backoff for {humanize(wait)}")
        policy = self.policy
        if policy not in POLICIES:
            raise RetryError(f"{policy} is not a valid RetryPolicy")
        failed = last.phase is Phase.FAILED
        retry_failed = policy in ("Always", "OnFailure")
        retry_error = policy in ("Always", "OnError")
        if policy == "OnTransientError" and is_transient(last.message, self.transient_pattern):
            retry_failed = retry_error = True
        if (failed and not retry_failed) or (last.phase is Phase.ERROR and not retry_error):
            return Stop(last.phase, last.message)
        limit = self.limit()
        if limit is not None and count > limit:
            return Stop(last.phase, NO_MORE_RETRIES)
        expression = self.expression()
        if expression is not None:
            try:
                go_on = expression.evaluate(last.scope(count - 1))
            except ExprError as exc:
                raise RetryError(
                    f"unable to evaluate expression '{expression.text}': {exc}"
                ) from None
            if not go_on:
                return Stop(last.phase, EXPRESSION_FALSE)
        return Again(deadline)
