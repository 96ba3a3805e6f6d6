"""The recipients annotations of argocd-notifications v1, which Argo CD still reads on an
app's AppProject (``util/notification/settings/legacy.go``, ``GetLegacyDestinations``).

- ``recipients.argocd-notifications.argoproj.io: slack:deploys, webhook:audit`` subscribes
  each ``service[:recipient]`` to the configuration's default triggers;
- ``<trigger>.recipients.argocd-notifications.argoproj.io: ...`` to that trigger.

Read as Argo CD reads them, quirks included, so a project annotated for Argo CD needs no
change: any key *ending* in the suffix counts, the trigger being what comes before it with
every trailing dot dropped; the value is split on commas, each part trimmed, empty ones
skipped; ``service:recipient`` splits on every colon and keeps the first two parts (no
recipient: the service itself); and a service with triggers of its own
(``defaultTriggers.<service>``) is subscribed to those, even where the key names a trigger.
Argo CD reads them on projects only: an app's own are not read (its controller's
``alterDestinations`` is the one caller), and neither are they here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

LEGACY = "recipients.argocd-notifications.argoproj.io"


def is_legacy(key: str) -> bool:
    return key.endswith(LEGACY)


def legacy_subscribed(
    annotations: Mapping[str, str],
    default_triggers: Sequence[str],
    service_default_triggers: Mapping[str, Sequence[str]],
) -> Iterator[tuple[str, str, str, str]]:
    """(annotation, trigger, service, recipient) for every destination the legacy
    annotations subscribe, the triggers already resolved."""
    for key, value in sorted(annotations.items()):
        if not is_legacy(key):
            continue
        named = key[: -len(LEGACY)].rstrip(".")
        triggers = [named] if named else list(default_triggers)
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            service, *rest = part.split(":")
            recipient = rest[0] if rest else ""
            for trigger in service_default_triggers.get(service, triggers):
                yield key, trigger, service, recipient
