"""An AppProject of the parity test's own: Argo CD's notifications controller sends an
app's notifications to those its AppProject's annotations subscribe, and so must the
reporter (``reporters/notifications/projects.py``)."""

from __future__ import annotations

from kubernetes import client
from kubernetes.client.exceptions import ApiException

from tests.e2e.k8s import GROUP, VERSION, api_client
from tests.e2e.notifyparity import LEGACY_CHANNEL, PROJECT_CHANNEL
from tests.e2e.settings import E2ESettings


class ParityProject:
    """An AppProject of its own whose annotations subscribe its apps, as Argo CD reads
    them: ``on-deployed`` to Slack's :data:`PROJECT_CHANNEL` by annotation,
    ``on-sync-succeeded`` to :data:`LEGACY_CHANNEL` by argocd-notifications' legacy one.
    Open as the default project (the apps of the e2e cluster's)."""

    def __init__(self, e2e: E2ESettings, name: str) -> None:
        self.e2e, self.name = e2e, name
        self.api = client.CustomObjectsApi(api_client(e2e))

    def __enter__(self) -> ParityProject:
        annotations = {
            "notifications.argoproj.io/subscribe.on-deployed.slack": PROJECT_CHANNEL,
            "on-sync-succeeded.recipients.argocd-notifications.argoproj.io": (
                f"slack:{LEGACY_CHANNEL}"
            ),
        }
        body = {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "AppProject",
            "metadata": {"name": self.name, "annotations": annotations},
            "spec": {
                "sourceRepos": ["*"],
                "destinations": [{"server": "*", "namespace": "*"}],
                "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
            },
        }
        ns = self.e2e.argocd_namespace
        self.api.create_namespaced_custom_object(GROUP, VERSION, ns, "appprojects", body)
        return self

    def __exit__(self, *_: object) -> None:
        try:
            self.api.delete_namespaced_custom_object(
                GROUP, VERSION, self.e2e.argocd_namespace, "appprojects", self.name
            )
        except ApiException as exc:
            if exc.status != 404:
                raise
