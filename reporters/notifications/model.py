"""What a notifications configuration is, once read: its services (secrets resolved),
templates, triggers, default triggers, subscriptions and context.

Apart from :mod:`.config`, which reads it from Argo CD's ConfigMap layout and checks it,
so what routes notifications (:mod:`.notifier`) depends on the shape, not on the reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator.durations import parse_go
from reporters.notifications import catalog
from reporters.services import Options


@dataclass(frozen=True)
class Service:
    name: str
    """What subscriptions and annotations call it: ``slack``, ``jira``, a webhook's name."""
    type: str
    options: Options
    """With every ``$secret`` resolved: never logged, never in an event."""


@dataclass(frozen=True)
class Condition:
    when: str
    send: tuple[str, ...]
    once_per: str = ""
    hold: float = 0.0
    """``for:``, seconds the condition must hold before anything is sent."""


@dataclass(frozen=True)
class Subscription:
    recipients: tuple[tuple[str, str], ...]
    """(service, recipient): ``slack:deploys`` is ("slack", "deploys")."""
    triggers: tuple[str, ...] = ()
    """None named: the default triggers."""
    selector: str = ""


@dataclass
class Notifications:
    services: dict[str, Service] = field(default_factory=dict)
    templates: dict[str, dict[str, Any]] = field(default_factory=lambda: dict(catalog.TEMPLATES))
    triggers: dict[str, tuple[Condition, ...]] = field(default_factory=dict)
    default_triggers: tuple[str, ...] = tuple(catalog.DEFAULT_TRIGGERS)
    service_default_triggers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """``defaultTriggers.<service>``: what a subscription to that service naming no trigger
    gets instead of :attr:`default_triggers` (Argo CD's per-service defaults)."""
    subscriptions: tuple[Subscription, ...] = ()
    context: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, conditions in catalog.TRIGGERS.items():
            self.triggers.setdefault(name, tuple(condition_of(c) for c in conditions))


def condition_of(raw: Mapping[str, Any]) -> Condition:
    hold = parse_go(str(raw["for"])) / 1e9 if raw.get("for") else 0.0
    return Condition(str(raw["when"]), tuple(raw["send"]), str(raw.get("oncePer") or ""), hold)
