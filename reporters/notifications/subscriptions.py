"""Who is subscribed to what, for one app: the configuration's subscriptions (by label
selector), the app's own annotations, and its AppProject's (:mod:`.projects`).

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

An AppProject's annotations are read the same way, and its legacy
``[<trigger>.]recipients.argocd-notifications.argoproj.io`` ones besides
(:mod:`.legacy`), as Argo CD reads both on projects; all of it is merged as
notifications-engine merges destinations (``Destinations.Merge``, then ``Dedup``): a
union, each recipient once per trigger.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any

import yaml

from orchestrator.labelselector import parse_selector
from reporters.events.transitions import SUBSCRIBE
from reporters.notifications.config import Notifications
from reporters.notifications.legacy import legacy_subscribed
from reporters.notifications.projects import Project

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
    config: Notifications,
    obj: Mapping[str, Any],
    problem: Callable[[str], None],
    project: Project | None = None,
) -> dict[str, set[Recipient]]:
    """trigger -> recipients for ``obj``: the configuration's subscriptions, the app's
    annotations, and those of its AppProject (``project``), merged as Argo CD merges them
    (a union: a recipient subscribed twice is sent once). ``problem`` is told of
    annotations naming a trigger or service the configuration does not have (they
    subscribe nothing)."""
    labels = dict((obj.get("metadata") or {}).get("labels") or {})
    out: dict[str, set[Recipient]] = {}
    for subscription in config.subscriptions:
        if subscription.selector and not _selector(subscription.selector)(labels):
            continue
        for trigger in subscription.triggers or config.default_triggers:
            out.setdefault(trigger, set()).update(subscription.recipients)
    _annotated(config, annotations_of(obj), "", out, problem)
    if project is not None:
        where = f"project {project.key}: "
        _annotated(config, project.annotations, where, out, problem)
        found = legacy_subscribed(
            project.annotations, config.default_triggers, config.service_default_triggers
        )
        for key, trigger, service, recipient in found:
            if _known(config, f"{where}annotation {key}", trigger, service, problem):
                out.setdefault(trigger, set()).add((service, recipient))
    return out


def _known(
    config: Notifications, what: str, trigger: str, service: str, problem: Callable[[str], None]
) -> bool:
    """Whether the configuration has the trigger (empty: the defaults) and the service;
    ``problem`` is told when not."""
    if trigger and trigger not in config.triggers:
        problem(f"{what}: unknown trigger {trigger!r}")
        return False
    if service not in config.services:
        problem(f"{what}: unknown service {service!r}")
        return False
    return True


def _annotated(
    config: Notifications,
    annotations: Mapping[str, str],
    where: str,
    out: dict[str, set[Recipient]],
    problem: Callable[[str], None],
) -> None:
    """Add to ``out`` what the subscription annotations subscribe; ``where`` starts each
    problem told (whose annotations they are)."""
    for key, value in sorted(annotations.items()):
        if not key.startswith(SUBSCRIBE):
            continue
        try:
            subscribed = list(_subscribed(key, value))
        except ValueError as exc:
            problem(f"{where}{exc}")
            continue
        for trigger, service, recipients in subscribed:
            if not _known(config, f"{where}annotation {key}", trigger, service, problem):
                continue
            triggers = (
                [trigger]
                if trigger
                else config.service_default_triggers.get(service, config.default_triggers)
            )
            for name in triggers:
                out.setdefault(name, set()).update((service, r) for r in recipients)
