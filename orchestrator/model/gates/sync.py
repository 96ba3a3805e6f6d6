"""``sync``: Argo CD runs the promoted commit (added by default where a commit is made)."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from orchestrator.model.duration import Duration
from orchestrator.model.gates import GateSettings

DEFAULT_SYNC_TIMEOUT = timedelta(minutes=15)


class SyncGate(GateSettings):
    KIND: ClassVar[str] = "sync"

    timeout: Duration = DEFAULT_SYNC_TIMEOUT
