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

from orchestrator.adapters.informer import Informer, Refused
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
        self._informer: Informer | None = None
        self._wanted: frozenset[str] = frozenset()

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
        """``kube_api`` (with ``kube_token``, trusting ``ca_file`` or the system's CAs, or
        nothing with ``insecure``), else in-cluster credentials in a pod, else the
        kubeconfig (:func:`orchestrator.adapters.kubeclient.api_client`)."""
        from orchestrator.adapters.kubeclient import NoCredentials, api_client, custom_objects

        try:
            api = api_client(kube_api, kube_token, ca_file=ca_file, insecure=insecure)
        except NoCredentials as exc:
            raise KubeError(str(exc)) from None
        return cls(custom_objects(api), namespace)

    def _error(self, what: str, exc: Exception) -> KubeError:
        from kubernetes.client.exceptions import ApiException

        if isinstance(exc, (ApiException, Refused)):
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
        """The apps ``names`` as they change (:class:`orchestrator.adapters.informer.Informer`):
        listed first, then watched for up to ``timeout`` seconds; an app deleted meanwhile
        is ``{"metadata": {"name": ...}, "_deleted": True}``. A watch whose history
        expired lists again, up to 3 times."""
        from orchestrator.adapters.informer import Expired

        wanted = frozenset(names)
        informer = self._informer
        if informer is None or self._wanted != wanted:
            self._wanted = wanted
            informer = self._informer = Informer(
                self.api,
                (GROUP, VERSION, PLURAL),
                self.namespace,
                keep=lambda app: (app.get("metadata") or {}).get("name") in wanted,
                resource_version=self.resource_version,
            )
        for _ in range(3):
            try:
                for key, app in informer.round(int(timeout)):
                    self.resource_version = informer.resource_version
                    if app is None:
                        namespace, _, name = key.partition("/")
                        yield {"metadata": {"name": name, "namespace": namespace}, "_deleted": True}
                    else:
                        yield app
                self.resource_version = informer.resource_version
                return
            except Expired:
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
