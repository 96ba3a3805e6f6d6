"""One named ConfigMap or Secret, listed and then watched, as Argo CD's notifications
controller follows ``argocd-notifications-cm`` and ``argocd-notifications-secret``.

The shared informer's list, watch, bookmarks and relist after ``410 Gone``
(:mod:`orchestrator.adapters.informer`), on the core API, narrowed to one object with
the field selector ``metadata.name=NAME``: a Role may then grant ``list`` and ``watch``
on that name alone (``resourceNames``), which the API server checks against the
selector. The objects are handed on as the JSON the API server sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orchestrator.adapters.informer import Informer, Object

CORE_KINDS = {"configmaps": "config_map", "secrets": "secret"}
"""The core kinds followed by name, and the client's name for each in its methods."""


def core_v1(api: Any = None) -> Any:
    """A ``kubernetes.client.CoreV1Api`` on ``api`` (an ``ApiClient``; default: as
    kubectl finds credentials, :func:`orchestrator.adapters.kubeclient.api_client`)."""
    from kubernetes import client

    from orchestrator.adapters.kubeclient import api_client

    return client.CoreV1Api(api if api is not None else api_client())


@dataclass
class NamedInformer(Informer):
    """``api``: a ``CoreV1Api``; ``resource``: ``("", "v1", "configmaps")`` or
    ``secrets``; ``namespace`` and ``name``: the one object followed."""

    name: str = ""

    @property
    def selector(self) -> str:
        return f"metadata.name={self.name}"

    def _call(self) -> tuple[Any, tuple[str, ...]]:
        kind = CORE_KINDS[self.resource[2]]
        return getattr(self.api, f"list_namespaced_{kind}"), (self.namespace,)

    def _options(self) -> dict[str, Any]:
        return {"field_selector": self.selector}

    def _json(self, page: Any) -> Object:
        found: Object = self.api.api_client.sanitize_for_serialization(page)
        return found

    def current(self) -> Object | None:
        """The object now (``None``: there is none), listed: the next watch starts there.
        :class:`Refused` when the API server answers with an error status."""
        found = None
        for _, obj in self.first():
            found = obj
        return found
