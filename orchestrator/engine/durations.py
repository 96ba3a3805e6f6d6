"""Argo duration fields as seconds.

Argo reads ``suspend.duration``, ``backoff.duration`` and friends as seconds when the text is
a bare number and as a Go-style duration otherwise (``30m``, ``1h30m``); the engine needs
plain floats to sleep, scale and compare.
"""

from __future__ import annotations

import math

from orchestrator.engine.errors import EngineError
from orchestrator.model.duration import parse_duration


def seconds(value: object, what: str) -> float:
    """``"90"``, ``90`` and ``"1m30s"`` -> 90.0; anything else names ``what`` in the error."""
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            try:
                number = parse_duration(text).total_seconds()
            except ValueError:
                number = None
    if number is not None and math.isfinite(number) and number >= 0:
        return number
    raise EngineError(f"{what}: {value!r} is not a duration (use seconds or e.g. '15m')")
