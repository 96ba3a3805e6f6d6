"""Who is subscribed to what, for one app: the configuration's subscriptions (by label
selector) and the app's own annotations.

The annotations are Argo CD's, read as notifications-engine reads them
(``pkg/subscriptions/annotations.go``), so apps already subscribed need no change:

- ``notifications.argoproj.io/subscribe.<trigger>.<service>: <recipient>[;<recipient>...]``
  subscribes the recipients to one trigger; an empty value subscribes the service itself
  (a webhook has no recipient);
- ``notifications.argoproj.io/subscribe.<service>: ...`` to the service's default triggers
  (``defaultTriggers.<service>``), else the configuration's ``defaultTriggers``;
- ``notifications.argoproj.io/subscriptions``: a YAML list of ``{trigger: [...],
  destinations: [{service, recipients: [...]}]}``.

``promoflow.dev/subscribe.*`` is read the same way. The team that owns an app subscribes
where the app is declared, without touching the reporter's configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any

import yaml

from orchestrator.labelselector import parse_selector
from reporters.events.transitions import SUBSCRIBE
from reporters.notifications.config import Notifications

PREFIXES = tuple(p for p in SUBSCRIBE if p.endswith("."))
"""``<prefix><trigger>.<service>`` and ``<prefix><service>`` annotations."""
LISTS = tuple(p for p in SUBSCRIBE if not p.endswith("."))
"""Annotations holding a YAML list of subscriptions."""
_selector = lru_cache(maxsize=256)(parse_selector)
"""Subscriptions are matched on every event: each selector is parsed once."""
Recipient = tuple[str, str]


def annotations_of(obj: Mapping[str, Any]) -> dict[str, str]:
    """The subscription annotations of an object (what the reporter keeps of its
    annotations)."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    return {k: str(v) for k, v in annotations.items() if str(k).startswith(SUBSCRIBE)}


def recipients_of(value: str) -> list[str]:
    """``a;b``, trimmed, empty ones dropped; an empty value is the service itself."""
    if value == "":
        return [""]
    return [r.strip() for r in value.split(";") if r.strip()]


def _listed(key: str, value: str) -> Iterator[tuple[str, str, list[str]]]:
    """(trigger, service, recipients) of a ``subscriptions`` annotation; ValueError when
    it is not the list notifications-engine reads."""
    try:
        found = yaml.safe_load(value) if value.strip() else None
    except yaml.YAMLError as exc:
        reason = getattr(exc, "problem", None) or "unreadable"
        raise ValueError(f"annotation {key}: not YAML ({reason})") from None
    if not isinstance(found, list) or not all(isinstance(s, dict) for s in found):
        raise ValueError(
            f"annotation {key}: expected a list of {{trigger: [...], destinations: "
            "[{service: ..., recipients: [...]}]}"
        )
    for item in found:
        triggers = item.get("trigger") or [""]
        for destination in item.get("destinations") or []:
            if not isinstance(destination, dict) or not destination.get("service"):
                raise ValueError(f"annotation {key}: a destination without a service")
            recipients = [str(r) for r in destination.get("recipients") or []]
            for trigger in triggers if isinstance(triggers, list) else [triggers]:
                yield str(trigger), str(destination["service"]), recipients


def _subscribed(key: str, value: str) -> Iterator[tuple[str, str, list[str]]]:
    """(trigger, service, recipients) an annotation subscribes; the trigger is empty for
    the default triggers."""
    if key.startswith(LISTS):
        yield from _listed(key, value)
        return
    rest = next(key.removeprefix(p) for p in PREFIXES if key.startswith(p))
    parts = rest.split(".")
    trigger, service = (parts[0], parts[1]) if len(parts) >= 2 else ("", parts[0])
    yield trigger, service, recipients_of(value)


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
    for key, value in sorted(annotations_of(obj).items()):
        try:
            subscribed = list(_subscribed(key, value))
        except ValueError as exc:
            problem(str(exc))
            continue
        for trigger, service, recipients in subscribed:
            if trigger and trigger not in config.triggers:
                problem(f"annotation {key}: unknown trigger {trigger!r}")
                continue
            if service not in config.services:
                problem(f"annotation {key}: unknown service {service!r}")
                continue
            triggers = (
                [trigger]
                if trigger
                else config.service_default_triggers.get(service, config.default_triggers)
            )
            for name in triggers:
                out.setdefault(name, set()).update((service, r) for r in recipients)
    return out
