"""Who is subscribed to what, for one app: the configuration's subscriptions (by label
selector) and the app's own annotations.

``promoflow.dev/subscribe.<trigger>.<service>: <recipient>[;<recipient>...]`` subscribes
the recipients to one trigger, ``promoflow.dev/subscribe.<service>: ...`` to the default
triggers, as ``notifications.argoproj.io/subscribe.*`` does in Argo CD: the team that owns
an app subscribes where the app is declared, without touching the reporter's
configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from orchestrator.labelselector import parse_selector
from reporters.notifications.config import Notifications

PREFIX = "promoflow.dev/subscribe."
_selector = lru_cache(maxsize=256)(parse_selector)
"""Subscriptions are matched on every event: each selector is parsed once."""
Recipient = tuple[str, str]


def annotations_of(obj: Mapping[str, Any]) -> dict[str, str]:
    """The subscription annotations of an object (what the reporter keeps of its
    annotations)."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    return {k: str(v) for k, v in annotations.items() if str(k).startswith(PREFIX)}


def wanted(
    config: Notifications, obj: Mapping[str, Any], problem: Callable[[str], None]
) -> dict[str, set[Recipient]]:
    """trigger -> recipients for ``obj``; ``problem`` is told of annotations naming a
    trigger or service the configuration does not have (they subscribe nothing)."""
    labels = dict((obj.get("metadata") or {}).get("labels") or {})
    out: dict[str, set[Recipient]] = {}
    for subscription in config.subscriptions:
        if subscription.selector and not _selector(subscription.selector)(labels):
            continue
        for trigger in subscription.triggers or config.default_triggers:
            out.setdefault(trigger, set()).update(subscription.recipients)
    for key, value in annotations_of(obj).items():
        rest = key.removeprefix(PREFIX)
        if rest in config.services:
            triggers, service = list(config.default_triggers), rest
        else:
            trigger, _, service = rest.partition(".")
            triggers = [trigger]
            if trigger not in config.triggers:
                problem(f"annotation {key}: unknown trigger {trigger!r}")
                continue
        if service not in config.services:
            problem(f"annotation {key}: unknown service {service!r}")
            continue
        targets = [t.strip() for t in value.split(";") if t.strip()] or [""]
        for trigger in triggers:
            out.setdefault(trigger, set()).update((service, t) for t in targets)
    return out
