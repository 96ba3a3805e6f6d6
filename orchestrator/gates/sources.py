"""The two ways a gate reaches Argo CD, behind one :class:`~orchestrator.gates.wait.AppSource`.

- :class:`ApiSource`: the Argo CD API server (bearer token), following
  ``/api/v1/stream/applications`` for change events.
- :class:`KubeSource`: the Kubernetes API, for clusters where the Argo CD API server is not
  reachable from the workflow's namespace (:mod:`orchestrator.adapters.kube`).

Each also reads what an app's workloads run, for the image check
(:mod:`orchestrator.gates.running`) when Argo CD's summary lacks the promoted image.

Both translate their errors to :class:`SourceError`, so the wait loop treats them alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from orchestrator.adapters.argocd import ArgoCDClient, ArgoCDError
from orchestrator.adapters.kube import KubeApplications, KubeError
from orchestrator.argocd_shapes import deploys_in_cluster, destination_of, health_details
from orchestrator.gates.appsource import App, SourceError
from orchestrator.gates.running import WORKLOAD_KINDS, Workloads, is_workload, template_images

if TYPE_CHECKING:
    from orchestrator.settings import ArgoCDSettings, GateSettings


class ApiSource:
    """Application state from the Argo CD API server."""

    has_resource_tree = True

    def __init__(self, client: ArgoCDClient) -> None:
        self.client = client

    def get(self, name: str, *, refresh: bool = False) -> App | None:
        try:
            return self.client.get_app(name, refresh="hard" if refresh else None)
        except ArgoCDError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None

    def sync(self, name: str, revision: str, revisions: list[str] | None = None) -> None:
        try:
            self.client.sync(name, revision, revisions)
        except ArgoCDError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None

    def changes(self, names: list[str], timeout: float) -> Iterator[App]:
        try:
            for kind, app in self.client.watch(names, timeout=timeout):
                if kind == "DELETED":
                    yield {**app, "_deleted": True}
                else:
                    yield app
        except ArgoCDError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None

    def health_details(self, name: str, status: str) -> str:
        """Why resources of the app are ``status``, from its resource tree ("" if unknown)."""
        try:
            tree = self.client.resource_tree(name)
        except ArgoCDError:
            return ""  # the verdict stands without the detail
        return health_details(list(tree.get("nodes") or []), status)

    def workloads(self, name: str, app: App) -> Workloads:
        """The pod templates of the app's workloads, from its managed resources (the
        resource tree names workloads but lists images of Pods only, as the summary)."""
        try:
            items = self.client.managed_resources(name)
        except ArgoCDError as exc:
            if exc.transient:
                raise SourceError(str(exc), transient=True) from None
            return Workloads(unread=str(exc))
        images: list[str] = []
        for item in items:
            if not is_workload(str(item.get("group") or ""), str(item.get("kind") or "")):
                continue
            try:
                live = json.loads(str(item.get("liveState") or "null"))
            except ValueError:
                continue
            if isinstance(live, dict):
                images += template_images(live)
        return Workloads(tuple(images))

    def names(self, selector: str) -> list[str]:
        try:
            return sorted(a["metadata"]["name"] for a in self.client.list_apps(selector))
        except ArgoCDError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None


class KubeSource:
    """Application state through the Kubernetes API (:mod:`orchestrator.adapters.kube`)."""

    has_resource_tree = False

    def __init__(self, api: Any, namespace: str) -> None:
        self.apps = KubeApplications(api, namespace)

    @classmethod
    def connect(cls, settings: GateSettings) -> KubeSource:
        """In-cluster credentials in a pod, else ``PROMOFLOW_KUBE_API``, else kubeconfig."""
        try:
            apps = KubeApplications.connect(
                settings.kube_api,
                settings.kube_token.get_secret_value(),
                settings.argocd_namespace,
                ca_file=settings.kube_ca,
                insecure=settings.kube_insecure,
            )
        except KubeError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None
        return cls(apps.api, apps.namespace)

    def get(self, name: str, *, refresh: bool = False) -> App | None:
        try:
            return self.apps.get(name, refresh=refresh)
        except KubeError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None

    def sync(self, name: str, revision: str, revisions: list[str] | None = None) -> None:
        try:
            self.apps.sync(name, revision, revisions)
        except KubeError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None

    def changes(self, names: list[str], timeout: float) -> Iterator[App]:
        try:
            yield from self.apps.changes(names, timeout)
        except KubeError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None

    def health_details(self, name: str, status: str) -> str:
        """The Kubernetes API has no resource tree, and ``status.resources`` (read by
        ``assess``) has no health on Argo CD 3 (``resourceHealthSource: appTree``): say
        where the reason is instead of "no message"."""
        return (
            "the reason is in Argo CD's resource tree, which the Kubernetes API does not "
            "serve (see the app in Argo CD, or give the gate ARGOCD_SERVER)"
        )

    def workloads(self, name: str, app: App) -> Workloads:
        """The pod templates of the workloads the app lists (``status.resources``), read
        from the Kubernetes API: only where Argo CD deploys to this same cluster."""
        if not deploys_in_cluster(app):
            return Workloads(
                unread=f"{name} deploys to {destination_of(app) or 'another cluster'}, and "
                "the gate reads this cluster's Kubernetes API (give it ARGOCD_SERVER)"
            )
        images: list[str] = []
        for ref in (app.get("status") or {}).get("resources") or []:
            group, kind = str(ref.get("group") or ""), str(ref.get("kind") or "")
            if not is_workload(group, kind):
                continue
            try:
                found = self.apps.workload(
                    group,
                    str(ref.get("version") or ""),
                    str(ref.get("namespace") or _destination_namespace(app)),
                    WORKLOAD_KINDS[(group, kind)],
                    str(ref.get("name") or ""),
                )
            except KubeError as exc:
                if exc.transient:
                    raise SourceError(str(exc), transient=True) from None
                return Workloads(tuple(images), unread=str(exc))
            if found is not None:
                images += template_images(found)
        return Workloads(tuple(images))

    def names(self, selector: str) -> list[str]:
        try:
            return self.apps.names(selector)
        except KubeError as exc:
            raise SourceError(str(exc), transient=exc.transient) from None


def _destination_namespace(app: App) -> str:
    return str(((app.get("spec") or {}).get("destination") or {}).get("namespace") or "")


def open_source(argocd: ArgoCDSettings, gate: GateSettings) -> ApiSource | KubeSource:
    """The access path the settings ask for (``auto``: the API server when one is set)."""
    access = gate.argocd_access
    if access == "auto":
        access = "api" if argocd.server else "kubernetes"
    if access == "api":
        try:
            return ApiSource(ArgoCDClient(argocd))
        except ArgoCDError as exc:
            raise SourceError(str(exc)) from None
    return KubeSource.connect(gate)
