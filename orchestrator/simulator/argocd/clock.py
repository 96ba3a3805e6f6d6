"""The simulator's clock: whole-second UTC timestamps, kept in the order a reconcile makes.

Kubernetes writes timestamps in whole seconds, so two taken in one second compare equal;
the gate relies on strict orders between some of them (an operation finished after the
last reconcile), which :func:`not_before` keeps by stepping past the earlier stamp.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from orchestrator.argocd_shapes import format_time, parse_time


def now() -> datetime:
    """The current moment, truncated to a whole second as Kubernetes stores it."""
    return datetime.now(UTC).replace(microsecond=0)


def stamp_now() -> str:
    return format_time(now())


def not_before(*stamps: Any, gap: int = 0) -> str:
    """Now, or ``gap`` seconds after the latest of ``stamps`` if that is later.

    Whole-second timestamps taken in one second compare equal; a strict order the gate
    relies on (finished after the last reconcile) is kept by stepping past it.
    """
    moment = now()
    for value in stamps:
        parsed = parse_time(value)
        if parsed is not None and parsed + timedelta(seconds=gap) > moment:
            moment = parsed + timedelta(seconds=gap)
    return format_time(moment)
