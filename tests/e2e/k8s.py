"""The cluster side of the suite: Kubernetes clients, Argo CD Applications, manifests, waits.

Objects are created through the Kubernetes API with the admin kubeconfig (what an operator
would apply), never through promoflow, so a test checks promoflow against what the real
controllers do with them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import yaml
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

from tests.e2e.settings import E2ESettings

GROUP, VERSION, APPS = "argoproj.io", "v1alpha1", "applications"
T = TypeVar("T")
E2E_LABEL = "promoflow.dev/e2e"
UNREADY_LABEL = "promoflow.dev/e2e-unready"
"""Pods with this label never turn Ready on the local kwok node (manifests/kwok-stages.yaml)."""


def api_client(settings: E2ESettings) -> client.ApiClient:
    return config.new_client_from_config(config_file=str(settings.kubeconfig))  # type: ignore[no-untyped-call]


def wait_until(
    what: str,
    check: Callable[[], T | None],
    timeout: float,
    interval: float = 0.5,
) -> T:
    """Poll ``check`` until it returns something truthy; fail naming ``what`` after
    ``timeout`` seconds (with the last value seen, which says how far it got)."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while True:
        last = check()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout:.0f}s (last: {last!r})")
        time.sleep(interval)


def short_id() -> str:
    return uuid.uuid4().hex[:6]


# --- manifests the test apps deploy ------------------------------------------------------


def configmap(name: str, version: str) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name},
            "data": {"version": version},
        },
        sort_keys=False,
    )


def deployment(
    name: str,
    version: str,
    *,
    unready: bool = False,
    progress_deadline: int = 600,
    image: str = "",
    node_selector: str = "",
) -> str:
    """A Deployment whose pods run on the kwok node (or any node: the image is never
        pulled there); ``unready`` labels its pods so kwok keeps them unready, and the
        Deployment controller then reports ProgressDeadlineExceeded after
        ``progress_deadline`` seconds. With ``image`` (busybox ``sh`` and ``httpd``) the pod
        really runs, on the nodes ``node_selector`` (``key=value``) names, tolerating their
        ``key`` taint, and serves the ConfigMap of the same name (``configmap(name, ...)``): its
    ``version`` at ``:8080/version``."""
    labels = {"app": name}
    pod_labels = {**labels, **({UNREADY_LABEL: "true"} if unready else {})}
    container: dict[str, Any] = {"name": "app", "image": f"registry.invalid/{name}:{version}"}
    placement: dict[str, Any] = {}
    if image:  # httpd serves the app's ConfigMap, which the kubelet keeps current
        container = {
            "name": "app",
            "image": image,
            "command": ["httpd", "-f", "-p", "8080", "-h", "/www"],
            "ports": [{"containerPort": 8080}],
            "readinessProbe": {"httpGet": {"path": "/version", "port": 8080}, "periodSeconds": 1},
            "volumeMounts": [{"name": "www", "mountPath": "/www"}],
        }
        placement["volumes"] = [{"name": "www", "configMap": {"name": name}}]
    if image and node_selector:
        key, _, value = node_selector.partition("=")
        placement["nodeSelector"] = {key: value}
        placement["tolerations"] = [{"key": key, "operator": "Exists", "effect": "NoSchedule"}]
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "progressDeadlineSeconds": progress_deadline,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": pod_labels, "annotations": {"version": version}},
                "spec": {
                    "containers": [container],
                    "terminationGracePeriodSeconds": 0,
                    **placement,
                },
            },
        },
    }
    return yaml.safe_dump(manifest, sort_keys=False)


def service(name: str) -> str:
    """A ClusterIP Service in front of ``deployment(name, ..., image=...)``'s pods."""
    manifest = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]},
    }
    return yaml.safe_dump(manifest, sort_keys=False)


# --- Argo CD Applications -------------------------------------------------------------------


@dataclass
class Apps:
    """Create, read and delete the suite's Applications (all labelled ``promoflow.dev/e2e``)."""

    settings: E2ESettings
    api: client.CustomObjectsApi
    core: client.CoreV1Api
    created: list[tuple[str, str]]
    """(application, destination namespace) created by this instance."""

    @classmethod
    def connect(cls, settings: E2ESettings) -> Apps:
        base = api_client(settings)
        return cls(settings, client.CustomObjectsApi(base), client.CoreV1Api(base), [])

    def create(
        self,
        name: str,
        repo: str,
        path: str,
        revision: str,
        namespace: str,
        *,
        automated: bool = True,
        labels: dict[str, str] | None = None,
        source: dict[str, Any] | None = None,
        project: str = "",
    ) -> dict[str, Any]:
        """``source``: more fields of the app's source (``directory``, ``kustomize``);
        ``project``: its AppProject (default: the settings')."""
        body: dict[str, Any] = {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "Application",
            "metadata": {
                "name": name,
                "namespace": self.settings.argocd_namespace,
                "labels": {E2E_LABEL: "true", **(labels or {})},
                "finalizers": ["resources-finalizer.argocd.argoproj.io"],
            },
            "spec": {
                "project": project or self.settings.argocd_project,
                "source": {
                    "repoURL": repo,
                    "path": path,
                    "targetRevision": revision,
                    **(source or {}),
                },
                "destination": {"server": self.settings.destination_server, "namespace": namespace},
                "syncPolicy": {
                    **({"automated": {"prune": True}} if automated else {}),
                    "syncOptions": ["CreateNamespace=true"],
                },
            },
        }
        created: dict[str, Any] = self.api.create_namespaced_custom_object(
            GROUP, VERSION, self.settings.argocd_namespace, APPS, body
        )
        self.created.append((name, namespace))
        return created

    def get(self, name: str) -> dict[str, Any] | None:
        try:
            app: dict[str, Any] = self.api.get_namespaced_custom_object(
                GROUP, VERSION, self.settings.argocd_namespace, APPS, name
            )
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return app

    def status(self, name: str) -> dict[str, Any]:
        return dict((self.get(name) or {}).get("status") or {})

    def wait_deployed(self, name: str, revision: str, timeout: float) -> dict[str, Any]:
        """Until Argo CD reports the app Synced at ``revision`` and Healthy (a test's own
        precondition, read independently of promoflow)."""

        def done() -> dict[str, Any] | None:
            status = self.status(name)
            ok = (
                (status.get("sync") or {}).get("revision") == revision
                and (status.get("sync") or {}).get("status") == "Synced"
                and (status.get("health") or {}).get("status") == "Healthy"
                and (status.get("operationState") or {}).get("phase") in (None, "Succeeded")
            )
            return status if ok else None

        return wait_until(f"{name} Synced at {revision[:12]} and Healthy", done, timeout)

    def delete_all(self) -> None:
        """Delete the apps (Argo CD prunes what they deployed) and their namespaces."""
        for name, _ in self.created:
            try:
                self.api.delete_namespaced_custom_object(
                    GROUP, VERSION, self.settings.argocd_namespace, APPS, name
                )
            except ApiException as exc:
                if exc.status != 404:
                    raise
        for name, _ in self.created:
            try:
                wait_until(f"{name} deleted", lambda n=name: self.get(n) is None, 60)  # type: ignore[misc]
            except AssertionError:
                self._drop_finalizers(name)
        for namespace in {ns for _, ns in self.created}:
            try:
                self.core.delete_namespace(namespace)
            except ApiException as exc:
                if exc.status != 404:
                    raise
        self.created.clear()

    def _drop_finalizers(self, name: str) -> None:
        """Argo CD did not finish the cascade in time: let the object go anyway."""
        try:
            self.api.patch_namespaced_custom_object(
                GROUP,
                VERSION,
                self.settings.argocd_namespace,
                APPS,
                name,
                {"metadata": {"finalizers": None}},
            )
        except ApiException as exc:
            if exc.status != 404:
                raise
