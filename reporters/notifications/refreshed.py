"""Whether an Application's sync status is current, as Argo CD's notifications controller
decides before it evaluates anything for the app.

When a sync operation ends, Argo CD's application controller writes the operation's end
(``status.operationState.phase: Succeeded``, ``finishedAt``) before it has compared the app
with the new revision again: for a moment the app reads Succeeded and still OutOfSync,
and Healthy with the health of the previous revision. Argo CD's notifications controller
skips such an update ("Processing skipped: sync status out of date",
``isAppSyncStatusRefreshed`` in argo-cd v3.2 ``notification_controller/controller``): it
evaluates no trigger until ``reconciledAt`` or ``observedAt`` has caught up with
``finishedAt``. Without the same rule, the catalog's ``on-deployed`` announces a revision
that is about to turn Degraded, with "Sync Status: OutOfSync" in the message
(tests/e2e/test_notifications_parity.py found it, side by side with the real controller).

The timestamps are read as Go's ``time.Parse(time.RFC3339, ...)`` reads them
(:mod:`orchestrator.golang.timelayout`, proved by the template vectors): one that does not
parse is Go's zero time for ``reconciledAt`` and ``observedAt``, and makes the status out
of date for ``finishedAt``, as upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from orchestrator.golang.gotime import Time
from orchestrator.golang.timelayout import TimeParseError, parse_rfc3339

DONE = frozenset({"Failed", "Error", "Succeeded"})


def _time(value: Any) -> Time | None:
    return _parsed(value) if isinstance(value, str) else None


@lru_cache(maxsize=4096)
def _parsed(value: str) -> Time | None:
    """Cached: an app's ``reconciledAt`` and ``finishedAt`` come back on every update."""
    try:
        return parse_rfc3339(value)
    except TimeParseError:
        return None


def sync_status_refreshed(app: Mapping[str, Any]) -> bool:
    """False while a finished operation is newer than the app's last comparison."""
    status = app.get("status")
    operation = status.get("operationState") if isinstance(status, Mapping) else None
    if not isinstance(operation, Mapping):
        return True  # no operation: nothing can be out of date
    phase = operation.get("phase")
    if not isinstance(phase, str) or phase not in DONE:
        return True  # Running, or no phase: taken as current, as upstream
    finished = _time(operation.get("finishedAt"))
    if finished is None:
        return False
    assert isinstance(status, Mapping)
    seen = (_time(status.get("reconciledAt")), _time(status.get("observedAt")))
    # A missing or unparsable time is Go's zero time, which every finishedAt is after.
    return not all(at is None or finished.after(at) for at in seen)
