"""Kubernetes Events about the pod a process runs in: what ``kubectl describe pod`` and
``kubectl get events`` show, and what cluster event exporters forward to people.

The webhook service tells this way that a configuration was refused (reason
``ConfigRefused``) or began to serve (``ConfigLoaded``). The token is read from its file at
every Event (a projected ServiceAccount token is renewed while the pod runs); the client is
made per Event, which is rare.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from orchestrator.adapters.kubeclient import api_client

COMPONENT = "promoflow-webhooks"


@dataclass(frozen=True)
class PodEvents:
    namespace: str
    pod: str
    api: str
    """``https://host:port`` of the API server."""
    token_file: Path
    ca_file: str = ""

    def __call__(self, kind: str, reason: str, message: str) -> None:
        """Record one Event (``kind``: ``Normal`` or ``Warning``) on the pod."""
        from kubernetes import client

        token = self.token_file.read_text().strip()
        with api_client(self.api, token, ca_file=self.ca_file) as connection:
            now = datetime.datetime.now(datetime.UTC)
            body = client.CoreV1Event(
                metadata=client.V1ObjectMeta(generate_name=f"{self.pod}."),
                involved_object=client.V1ObjectReference(
                    api_version="v1", kind="Pod", name=self.pod, namespace=self.namespace
                ),
                reason=reason,
                message=message,
                type=kind,
                count=1,
                first_timestamp=now,
                last_timestamp=now,
                source=client.V1EventSource(component=COMPONENT),
                reporting_component=COMPONENT,
                reporting_instance=self.pod,
            )
            client.CoreV1Api(connection).create_namespaced_event(
                self.namespace, body, _request_timeout=10
            )
