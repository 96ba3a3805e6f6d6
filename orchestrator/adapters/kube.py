"""Argo CD's Application objects through the Kubernetes API, with the official client.

For clusters where the Argo CD API server is not reachable from the workflow's namespace:
Application objects are read and watched directly; a refresh is the
``argocd.argoproj.io/refresh`` annotation and a sync is the ``operation`` field, exactly
what the argocd CLI writes in its core mode. A watch whose resourceVersion has expired
(``410 Gone``) is restarted from a fresh list. Failures are :class:`KubeError`, transient
where trying again may help (5xx, 410, 429, a refused connection).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from orchestrator.argocd_shapes import GROUP, PLURAL, REFRESH_ANNOTATION, VERSION
from orchestrator.errors import PromoflowError


class KubeError(PromoflowError):
    """The Kubernetes API could not be asked, or refused."""


class KubeApplications:
    """Argo CD Application objects through the Kubernetes API (the official client)."""

    def __init__(self, api: Any, namespace: str) -> None:
        self.api = api
        self.namespace = namespace
        self.resource_version: str | None = None

    @classmethod
    def connect(
        cls,
        kube_api: str,
        kube_token: str,
        namespace: str,
        *,
        ca_file: str = "",
        insecure: bool = False,
    ) -> KubeApplications:
        """In-cluster credentials in a pod, else ``kube_api`` (with ``kube_token``, trusting
        ``ca_file`` or the system's CAs, or nothing with ``insecure``), else the
        kubeconfig."""
        import os

        from kubernetes import client, config

        if kube_api:
            configuration = client.Configuration()
            configuration.host = kube_api.rstrip("/")
            token = kube_token
            if token:
                configuration.api_key = {"authorization": f"Bearer {token}"}
            if ca_file:
                configuration.ssl_ca_cert = ca_file
            configuration.verify_ssl = not insecure
            api_client = client.ApiClient(configuration)
        else:
            try:
                if os.environ.get("KUBERNETES_SERVICE_HOST"):
                    config.load_incluster_config()  # type: ignore[no-untyped-call]
                else:
                    config.load_kube_config()  # type: ignore[no-untyped-call]
            except config.ConfigException as exc:
                raise KubeError(f"no Kubernetes credentials: {exc}") from None
            api_client = client.ApiClient()
        return cls(client.CustomObjectsApi(api_client), namespace)

    def _error(self, what: str, exc: Exception) -> KubeError:
        from kubernetes.client.exceptions import ApiException

        if isinstance(exc, ApiException):
            status = int(exc.status or 0)
            if status in (401, 403):
                return KubeError(f"{what}: the Kubernetes API refused the credentials")
            return KubeError(
                f"{what}: the Kubernetes API answered {status} {exc.reason or ''}".rstrip(),
                transient=status >= 500 or status in (0, 410, 429),
            )
        from orchestrator.adapters import neterrors

        configuration = getattr(getattr(self.api, "api_client", None), "configuration", None)
        host = str(getattr(configuration, "host", "") or "(from the kubeconfig)")
        failure = neterrors.describe_service(exc, "the Kubernetes API", host, neterrors.KUBE)
        return KubeError(f"{what}: {failure.message}", transient=failure.transient)

    def get(self, name: str, *, refresh: bool = False) -> dict[str, Any] | None:
        from kubernetes.client.exceptions import ApiException

        try:
            if refresh:
                patch = {"metadata": {"annotations": {REFRESH_ANNOTATION: "hard"}}}
                app: dict[str, Any] = self.api.patch_namespaced_custom_object(
                    GROUP, VERSION, self.namespace, PLURAL, name, patch
                )
            else:
                app = self.api.get_namespaced_custom_object(
                    GROUP, VERSION, self.namespace, PLURAL, name
                )
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise self._error(f"application {name}", exc) from None
        except Exception as exc:  # urllib3 connection errors
            raise self._error(f"application {name}", exc) from None
        return app

    def sync(self, name: str, revision: str, revisions: list[str] | None = None) -> None:
        """Start a sync operation as Argo CD's API server would: the app's own sync options
        (``CreateNamespace=true``, ``ServerSideApply=true``, ...) and retry policy go with
        it, or the sync applies differently from one started in the UI."""
        app = self.get(name)
        policy = ((app or {}).get("spec") or {}).get("syncPolicy") or {}
        wanted: dict[str, Any] = {"revisions": revisions} if revisions else {"revision": revision}
        if policy.get("syncOptions"):
            wanted["syncOptions"] = list(policy["syncOptions"])
        operation: dict[str, Any] = {"initiatedBy": {"username": "promoflow"}, "sync": wanted}
        if policy.get("retry"):
            operation["retry"] = policy["retry"]
        try:
            self.api.patch_namespaced_custom_object(
                GROUP, VERSION, self.namespace, PLURAL, name, {"operation": operation}
            )
        except Exception as exc:
            raise self._error(f"sync {name}", exc) from None

    def changes(self, names: list[str], timeout: float) -> Iterator[dict[str, Any]]:
        """Watch from the last seen resourceVersion (bookmarks keep it current); on ``410
        Gone`` list again and go on.

        After a fresh list its items are yielded first, so nothing that changed while the
        watch was expired is missed.
        """
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        wanted = set(names)
        for _ in range(3):
            try:
                if self.resource_version is None:
                    listing = self.api.list_namespaced_custom_object(
                        GROUP, VERSION, self.namespace, PLURAL
                    )
                    self.resource_version = str(listing["metadata"]["resourceVersion"])
                    for item in listing.get("items") or []:
                        if item["metadata"]["name"] in wanted:
                            yield item
                stream = watch.Watch().stream(  # type: ignore[no-untyped-call]
                    self.api.list_namespaced_custom_object,
                    GROUP,
                    VERSION,
                    self.namespace,
                    PLURAL,
                    resource_version=self.resource_version,
                    timeout_seconds=max(int(timeout), 1),
                    # a quiet watch still moves resource_version on, so the next one
                    # resumes from a version the server keeps instead of a 410 and a list
                    allow_watch_bookmarks=True,
                )
                for event in stream:
                    app = event.get("object") or {}
                    meta = app.get("metadata") or {}
                    if meta.get("resourceVersion"):
                        self.resource_version = str(meta["resourceVersion"])
                    if meta.get("name") in wanted:
                        yield {**app, "_deleted": True} if event["type"] == "DELETED" else app
                return
            except ApiException as exc:
                if exc.status != 410:
                    raise self._error("watch applications", exc) from None
                self.resource_version = None  # expired: list again, then watch from there
            except Exception as exc:
                raise self._error("watch applications", exc) from None
        raise KubeError("watch applications: resourceVersion keeps expiring", transient=True)

    def workload(
        self, group: str, version: str, namespace: str, plural: str, name: str
    ) -> dict[str, Any] | None:
        """One object of an API group (``apps/v1`` ``deployments``), as the API serves it;
        ``None`` when it does not exist. Where Argo CD deploys to this same cluster, its
        apps' workloads say what they run."""
        from kubernetes.client.exceptions import ApiException

        what = f"{plural}.{group} {namespace}/{name}"
        try:
            found: dict[str, Any] = self.api.get_namespaced_custom_object(
                group, version, namespace, plural, name
            )
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise self._error(what, exc) from None
        except Exception as exc:  # urllib3 connection errors
            raise self._error(what, exc) from None
        return found

    def names(self, selector: str) -> list[str]:
        try:
            listing = self.api.list_namespaced_custom_object(
                GROUP, VERSION, self.namespace, PLURAL, label_selector=selector
            )
        except Exception as exc:
            raise self._error("list applications", exc) from None
        return sorted(item["metadata"]["name"] for item in listing.get("items") or [])
