"""TokenReviews and SubjectAccessReviews through the Kubernetes API: the real
:class:`orchestrator.access.Reviews`, on the client :mod:`orchestrator.adapters.kubeclient`
makes."""

from __future__ import annotations

import json
from typing import Any

TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews"


class ReviewUnavailable(Exception):
    """The API server could not be asked; the request is refused with 503 and retried."""


class KubernetesReviews:
    """:class:`Reviews` through the ``kubernetes`` client, with the credentials it finds
    as kubectl does (in a pod, its ServiceAccount; elsewhere, the kubeconfig)."""

    def __init__(self, api_client: Any = None, timeout: float = 5.0) -> None:
        if api_client is None:
            from orchestrator.adapters.kubeclient import api_client as connect

            api_client = connect()
        self._api = api_client
        self._timeout = timeout

    def review(self, body: dict[str, Any]) -> dict[str, Any]:
        path = TOKEN_REVIEWS if body.get("kind") == "TokenReview" else ACCESS_REVIEWS
        try:
            method, url, headers, payload, _ = self._api.param_serialize(
                "POST",
                path,
                header_params={"Accept": "application/json", "Content-Type": "application/json"},
                body=body,
                auth_settings=["BearerToken"],
            )
            response = self._api.call_api(
                method, url, header_params=headers, body=payload, _request_timeout=self._timeout
            )
            data = response.read()
        except Exception as exc:  # the network's own exceptions, whatever urllib3 raises
            raise ReviewUnavailable(f"cannot reach the API server: {type(exc).__name__}") from None
        if not 200 <= response.status < 300:  # the status only: a Status body may echo
            raise ReviewUnavailable(f"the API server answered {response.status}")
        try:
            answer = json.loads(data)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise ReviewUnavailable("the API server's answer is not a JSON object")
        return answer
