"""A manual freeze: closed until someone lifts it, whatever the windows say."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from orchestrator.model.policy import PolicySelector


@dataclass(frozen=True)
class Freeze:
    """Who froze what, when and why. Plain data: where freezes are kept is up to the
    command that makes them; the logic only needs to know which pairs they select."""

    reason: str
    by: str
    since: datetime
    selector: PolicySelector = field(default_factory=PolicySelector)
