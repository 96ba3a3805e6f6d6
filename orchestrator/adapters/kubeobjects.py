"""Whether named objects exist in a namespace, for ``promoflow doctor``: the step Secrets
(and the keys they hold, never their values) and the ServiceAccount promotions run as.

Answers are :class:`~orchestrator.adapters.probes.Reply` values, as the HTTP probes', so
the checks judge both alike: 200 with the object's facts, 404 absent, 403 this identity may
not look, 0 no answer (with why and what to change).
"""

from __future__ import annotations

from typing import Any

from orchestrator.adapters import neterrors
from orchestrator.adapters.probes import Reply


class KubeObjects:
    """Reads through a ``kubernetes.client.CoreV1Api``."""

    def __init__(self, core: Any, where: str) -> None:
        self._core = core
        self._where = where

    @classmethod
    def connect(
        cls, kube_api: str = "", kube_token: str = "", *, ca_file: str = "", insecure: bool = False
    ) -> KubeObjects:
        """As every promoflow client finds credentials
        (:func:`orchestrator.adapters.kubeclient.api_client`); ``NoCredentials`` else."""
        from kubernetes import client

        from orchestrator.adapters.kubeclient import api_client

        api = api_client(kube_api, kube_token, ca_file=ca_file, insecure=insecure)
        where = str(getattr(api.configuration, "host", "") or "the Kubernetes API")
        return cls(client.CoreV1Api(api), where)

    def _read(self, call: Any, *args: str) -> Reply:
        from kubernetes.client.exceptions import ApiException

        try:
            found = call(*args, _request_timeout=10)
        except ApiException as exc:
            return Reply(int(exc.status or 0) or 500, reason=str(exc.reason or ""))
        except Exception as exc:  # urllib3's connection errors
            failure = neterrors.describe_service(
                exc, "the Kubernetes API", self._where, neterrors.KUBE
            )
            return Reply(problem=failure.message, fix="check the kubeconfig or PROMOFLOW_KUBE_API")
        return Reply(200, found)

    def secret_keys(self, namespace: str, name: str) -> Reply:
        """200 with the sorted keys of the Secret's data (the values are dropped here)."""
        reply = self._read(self._core.read_namespaced_secret, name, namespace)
        if reply.status != 200:
            return reply
        data = getattr(reply.data, "data", None) or {}
        return Reply(200, sorted(data))

    def service_account(self, namespace: str, name: str) -> Reply:
        reply = self._read(self._core.read_namespaced_service_account, name, namespace)
        return Reply(200, name) if reply.status == 200 else reply
