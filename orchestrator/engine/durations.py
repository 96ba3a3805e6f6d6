"""Argo duration fields as seconds, read with Argo's own rule.

The controller reads ``suspend.duration`` and retry ``backoff.duration``/``maxDuration``/
``cap`` with ``ParseStringToDuration``: a bare integer is seconds, anything else must be a
Go duration (``30m``, ``1h30m``, ``168h``; no ``d``). The engine applies the same rule so a
value that would error the node on a cluster errors it here too, with Argo's message and the
field named; the engine needs plain floats to sleep, scale and compare.
"""

from __future__ import annotations

from orchestrator.durations import DurationError, parse_argo
from orchestrator.engine.errors import EngineError


def seconds(value: object, what: str) -> float:
    """``"90"``, ``90`` and ``"1m30s"`` -> 90.0; ``"7d"`` and the like -> :class:`EngineError`.

    Integers in the YAML (``duration: 90``) reach Argo as the string ``"90"``: the same rule.
    Negative values parse (Argo accepts them and waits not at all), so they count as 0."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise EngineError(f"{what}: {value!r} is not a duration (whole seconds or e.g. '15m')")
    try:
        number = parse_argo(str(value))
    except DurationError as exc:
        raise EngineError(
            f"{what}: {exc} (Argo reads whole seconds or a Go duration such as '168h'; "
            "there is no 'd' unit)"
        ) from None
    return max(number, 0.0)
