"""The one way promoflow gets a Kubernetes API client.

As kubectl does: an explicit API address (with a token, trusting a CA file or the
system's CAs, or nothing when told to be insecure); else, in a pod, its ServiceAccount;
else the kubeconfig. The gate, the reporters and the reviews behind ``/metrics`` and
``/stream`` all connect through :func:`api_client`, so they find credentials alike and
say alike when there are none.
"""

from __future__ import annotations

import os
from typing import Any

from orchestrator.errors import PromoflowError


class NoCredentials(PromoflowError):
    """Neither an address, nor a ServiceAccount, nor a kubeconfig."""


def api_client(
    kube_api: str = "", kube_token: str = "", *, ca_file: str = "", insecure: bool = False
) -> Any:
    """A ``kubernetes.client.ApiClient``; :class:`NoCredentials` when none is found."""
    from kubernetes import client, config

    if kube_api:
        configuration = client.Configuration()
        configuration.host = kube_api.rstrip("/")
        if kube_token:
            configuration.api_key = {"authorization": f"Bearer {kube_token}"}
        if ca_file:
            configuration.ssl_ca_cert = ca_file
        configuration.verify_ssl = not insecure
        return client.ApiClient(configuration)
    try:
        if os.environ.get("KUBERNETES_SERVICE_HOST"):
            config.load_incluster_config()  # type: ignore[no-untyped-call]
        else:
            config.load_kube_config()  # type: ignore[no-untyped-call]
    except config.ConfigException as exc:
        raise NoCredentials(f"no Kubernetes credentials: {exc}") from None
    return client.ApiClient()


def custom_objects(api: Any = None) -> Any:
    """A ``CustomObjectsApi`` on ``api`` (default: :func:`api_client` as kubectl finds it)."""
    from kubernetes import client

    return client.CustomObjectsApi(api if api is not None else api_client())
