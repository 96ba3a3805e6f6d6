"""The subscription annotations of Argo CD's AppProjects, by ``namespace/name``.

Argo CD's notifications controller sends an app's notifications to those subscribed on
the app's AppProject too (``notification_controller/controller/controller.go``,
``alterDestinations``): the project named by the app's ``spec.project``, looked up in
the app's own namespace among the projects its informer holds, its annotations read
when the app is processed. So a team that subscribes a whole project, for Argo CD,
needs no change here either.

Only what a subscription reads is kept of a project (its subscription and legacy
recipients annotations), and only projects that have some: a project without them, or
none at all, subscribes nothing. A change of a project applies from the next update of
each app, as in Argo CD, which reads the project at processing time. The watch that
feeds it is :mod:`reporters.watch.projects`; this is its in-memory state alone, written
by that watch's thread and read by the loop that routes (each entry is replaced whole:
a reader sees a project before or after a change, never half of one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from reporters.events.transitions import SUBSCRIBE
from reporters.notifications.legacy import is_legacy


@dataclass(frozen=True)
class Project:
    """One AppProject's subscription annotations."""

    key: str
    """``namespace/name``."""
    annotations: Mapping[str, str]


def kept(obj: Mapping[str, Any]) -> dict[str, str]:
    """The annotations of ``obj`` a subscription reads."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    return {
        str(k): str(v)
        for k, v in annotations.items()
        if str(k).startswith(SUBSCRIBE) or is_legacy(str(k))
    }


class Projects:
    """``namespace/name`` -> the project's subscription annotations."""

    def __init__(self) -> None:
        self._by_key: dict[str, Project] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def update(self, key: str, obj: Mapping[str, Any] | None) -> None:
        """A project as the watch gave it (``None``: deleted)."""
        annotations = kept(obj) if obj is not None else {}
        if annotations:
            self._by_key[key] = Project(key, MappingProxyType(annotations))
        else:
            self._by_key.pop(key, None)

    def of(self, app: Mapping[str, Any]) -> Project | None:
        """The project whose subscriptions apply to ``app``: ``spec.project`` in the app's
        namespace (none without a project, or where it has no subscriptions)."""
        name = (app.get("spec") or {}).get("project")
        if not isinstance(name, str):
            return None
        namespace = (app.get("metadata") or {}).get("namespace") or ""
        return self._by_key.get(f"{namespace}/{name}")
