"""``soak``: the promotion waits a while before the next environment."""

from __future__ import annotations

from typing import ClassVar

from orchestrator.model.duration import Duration
from orchestrator.model.gates import GateSettings


class SoakGate(GateSettings):
    KIND: ClassVar[str] = "soak"

    duration: Duration
