"""``health``: Argo CD reports the app Healthy (added by default where a commit is made)."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from orchestrator.model.duration import Duration
from orchestrator.model.gates import GateSettings

DEFAULT_HEALTH_TIMEOUT = timedelta(minutes=15)


class HealthGate(GateSettings):
    KIND: ClassVar[str] = "health"

    timeout: Duration = DEFAULT_HEALTH_TIMEOUT
