"""The configuration's duration type: ``30s``, ``15m``, ``1h30m``, ``2d`` in a resource.

Stored as :class:`datetime.timedelta` so arithmetic is exact, serialised back to the short
form so YAML and Python definitions of the same flow compare equal and print the same. The
grammar itself is promoflow's, in :mod:`orchestrator.durations` beside Go's and Argo's;
this module adds only what pydantic needs (it has no place in a step pod).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from orchestrator.durations import DURATION_PATTERN, format_duration, parse_duration

Duration = Annotated[
    timedelta,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str, when_used="json-unless-none"),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "pattern": DURATION_PATTERN, "examples": ["30s", "15m"]},
                {"type": "number", "minimum": 0, "description": "seconds"},
            ]
        }
    ),
]
