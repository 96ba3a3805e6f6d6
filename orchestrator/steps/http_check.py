"""The HTTP gate: a smoke test or status page must answer as expected before moving on.

``expect_status`` is checked first; with a ``jsonpath`` the JSON body's value at that path
(the same small path grammar as values files: ``status.indicator``, ``checks[0].ok``) must
equal ``equals`` as text. Failures are retried with backoff, since a service that was just
deployed often needs a moment: a 5xx (a proxy's error page included), a refused connection,
a value not yet as expected. What waiting cannot change ends the check at once, with what to
change: a host name that does not resolve, TLS against a plain-HTTP port, an untrusted
certificate, a 4xx the check did not expect.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orchestrator.adapters import neterrors
from orchestrator.adapters.web import InvalidUrl, Unreachable, Web
from orchestrator.errors import UsageError
from orchestrator.gates import retrying
from orchestrator.model.yamlpath import (
    PathNotFound,
    PathPart,
    YamlPathError,
    lookup,
    parse_yaml_path,
)

MAX_BACKOFF = 60.0
"""Longest wait between tries: doubling without a cap overflows ``time.sleep`` after about
a thousand tries, and waits of hours help nobody."""


class CheckUsageError(UsageError, ValueError):
    """The check itself is malformed (exit 2)."""


@dataclass(frozen=True)
class Check:
    url: str
    expect_status: int = 200
    jsonpath: str = ""
    equals: str = ""
    retries: int = 3
    timeout: float = 10.0
    backoff: float = 1.0

    def path(self) -> tuple[PathPart, ...]:
        if not self.jsonpath:
            return ()
        try:
            return parse_yaml_path(self.jsonpath.removeprefix("$."))
        except YamlPathError as exc:
            raise CheckUsageError(str(exc).replace("YAML path", "JSON path")) from None


@dataclass(frozen=True)
class Outcome:
    ok: bool
    reason: str
    attempts: int
    status: int | None = None
    value: str | None = None


def _lookup(body: Any, path: tuple[PathPart, ...]) -> Any:
    try:
        return lookup(body, path)
    except PathNotFound as exc:
        raise KeyError(exc.reason) from None


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return "null" if value is None else str(value)


def judge(check: Check, status: int, body: bytes) -> tuple[bool, str, str | None]:
    """Pure: does this answer pass? (ok, reason, value found at the path)."""
    if status != check.expect_status:
        return False, f"answered {status}, expected {check.expect_status}", None
    path = check.path()
    if not path:
        return True, f"answered {status}", None
    import json

    from orchestrator.nesting import json_too_deep

    if neterrors.is_html("", body):
        return False, "the body is an HTML page, not JSON", None
    text = body.decode("utf-8", errors="replace")
    if json_too_deep(text) is not None:  # json.loads would end in a RecursionError
        return False, "the body is JSON nested too deeply to read", None
    try:
        value = _text(_lookup(json.loads(text), path))
    except ValueError:
        return False, "the body is not JSON", None
    except KeyError:
        return False, f"{check.jsonpath} is not in the response", None
    if check.equals and value != check.equals:
        return False, f"{check.jsonpath} is {value!r}, expected {check.equals!r}", value
    return True, f"answered {status}, {check.jsonpath} = {value!r}", value


class _NotYet(Exception):
    """One try's failed outcome; ``transient`` when another try may pass."""

    def __init__(self, outcome: Outcome, transient: bool) -> None:
        super().__init__(f"attempt {outcome.attempts}: {outcome.reason}")
        self.outcome = outcome
        self.transient = transient


def _try(http: Web, check: Check, attempt: int) -> Outcome:
    """One GET, judged; raises :class:`_NotYet` when it does not pass."""
    try:
        response = http.get(check.url)
    except InvalidUrl:
        raise CheckUsageError("the URL is not valid") from None
    except Unreachable as exc:
        said = f"no answer ({exc})" if exc.transient else str(exc)
        raise _NotYet(Outcome(False, said, attempt), exc.transient) from None
    status = response.status
    ok, reason, value = judge(check, status, response.content)
    outcome = Outcome(ok, reason, attempt, status, value)
    if not ok:
        unexpected_4xx = 400 <= status < 500 and status != check.expect_status
        raise _NotYet(outcome, not unexpected_4xx or neterrors.status_transient(status))
    return outcome


def run_check(
    check: Check,
    *,
    client: Web | None = None,
    sleep: Callable[[float], None] = time.sleep,
    log: Callable[[str], None] = lambda _m: None,
) -> Outcome:
    """Try up to ``1 + retries`` times, doubling the wait between tries (at most
    :data:`MAX_BACKOFF`); stop at once when another try cannot pass."""
    check.path()  # usage errors before any request
    own = client is None
    http = client or Web(timeout=check.timeout)
    attempt = 0

    def once() -> Outcome:
        nonlocal attempt
        attempt += 1
        return _try(http, check, attempt)

    try:
        return retrying.until(
            once,
            deadline=None,
            log=log,
            first_wait=check.backoff,
            max_wait=MAX_BACKOFF,
            attempts=check.retries + 1,
            sleep=sleep,
        )
    except _NotYet as failed:
        if not failed.transient:
            log(f"{failed}; not retried (waiting cannot change this)")
        return failed.outcome
    finally:
        if own:
            http.close()
