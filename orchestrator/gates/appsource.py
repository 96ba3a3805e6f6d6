"""Where the gate reads Argo CD's applications from: the one interface both ways of
reaching Argo CD (its API server, or Application objects through the Kubernetes API;
:mod:`orchestrator.gates.sources`) implement, so the wait loop
(:mod:`orchestrator.gates.wait`) is written once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from orchestrator.errors import PromoflowError
from orchestrator.gates.running import Workloads

App = dict[str, Any]


class SourceError(PromoflowError):
    """Argo CD could not be asked; ``transient`` when asking again may help."""


class AppSource(Protocol):
    """Where application state comes from (API server or Kubernetes API)."""

    def get(self, name: str, *, refresh: bool = False) -> App | None:
        """The application (``None`` when missing); ``refresh`` asks for a hard refresh."""

    def sync(self, name: str, revision: str, revisions: list[str] | None = None) -> None:
        """Start a sync operation to ``revision`` (multi-source apps: ``revisions``, one
        per source)."""

    has_resource_tree: bool
    """Whether :meth:`health_details` can read resources' health (else it says where to)."""

    def health_details(self, name: str, status: str) -> str:
        """Why the app's resources are ``status`` (Degraded, Suspended...), where the source
        can say ("" if not)."""
        ...

    def changes(self, names: list[str], timeout: float) -> Iterator[App]:
        """Changed applications as they happen; ends after ``timeout`` s or on a drop."""

    def workloads(self, name: str, app: App) -> Workloads:
        """The images of the app's Deployments, StatefulSets, DaemonSets and Rollouts
        (their pod templates), or why they cannot be read."""
        ...
