"""promoflow installed with its Helm chart on the e2e cluster, for the tests and the
benchmark that run promotions through it.

The release gets the image the cluster built from the Dockerfile, the configuration of
one flow as a ConfigMap (its product's template applied by the chart's Job), the step
Secrets the suite made, and a webhook secret. On the local cluster the Argo Server, Argo
CD and the Git server listen on the node's loopback only, and promoflow's pods reach them
as the workflow pods do: on the node's network (``hostNetwork``), each with a port of its
own, placed on the node that runs real containers.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml
from kubernetes import client

from orchestrator.simulator.serve import free_port
from tests.chart.readme import CHART
from tests.e2e.flows import Flow
from tests.e2e.k8s import api_client
from tests.e2e.settings import E2ESettings
from tests.tools.binaries import ensure

WEBHOOK_SECRET = "e2e-chart-webhook-secret"
REPORT_TOKEN = "e2e-chart-report-token-5d1c"
"""The shared token of the reporters' routes (nothing is anonymous): in the release's
namespace for the reporters, in the workflows' for the exit handler's reports."""
REAL_NODE = "promoflow.dev/real-pods"


@dataclass
class Release:
    e2e: E2ESettings
    namespace: str
    webhooks: str
    """Where the webhook service answers (the node's loopback)."""
    reporters: str
    seconds: float
    """From ``helm install`` to every pod Ready and the configuration applied."""
    token: str = REPORT_TOKEN

    def pods(self) -> list[Any]:
        core = client.CoreV1Api(api_client(self.e2e))
        return list(core.list_namespaced_pod(self.namespace).items)


def _url(server: str, secure: str) -> str:
    if "://" in server:
        return server
    plain = secure.lower() in ("false", "0", "no")
    return f"{'http' if plain else 'https'}://{server}"


def _api_port(e2e: E2ESettings) -> int:
    server = yaml.safe_load(e2e.kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
    return int(server.rsplit(":", 1)[1].rstrip("/"))


def values(e2e: E2ESettings, flow: Flow, webhooks: int, reporters: int) -> dict[str, Any]:
    repository, _, tag = e2e.step_image.rpartition(":")
    placement = {
        "nodeSelector": {REAL_NODE: "true"},
        "tolerations": [{"key": REAL_NODE, "operator": "Exists", "effect": "NoSchedule"}],
    }
    secrets = flow.secrets
    return {
        "image": {"repository": repository, "tag": tag},
        "hostNetwork": True,
        "argo": {
            "server": _url(e2e.argo_server, e2e.argo_secure),
            "insecureSkipVerify": True,
        },
        "argocd": {
            "namespace": e2e.argocd_namespace,
            "server": e2e.step_argocd_server,
            "opts": e2e.step_argocd_opts,
        },
        "secrets": {
            "git": secrets["PROMOFLOW_GIT_SECRET"],
            "argocd": secrets["PROMOFLOW_ARGOCD_SECRET"],
            "webhooks": "promoflow-webhooks",
        },
        "config": {
            "files": {"promoflow.yaml": (flow.directory / "promoflow.yaml").read_text()},
            "apply": {**placement},
        },
        "webhooks": {"replicas": 1, "port": webhooks, **placement},
        "reporters": {
            "replicas": 1,
            "port": reporters,
            "reportURL": f"http://127.0.0.1:{reporters}/reports",
            "namespaces": [e2e.argocd_namespace],
            "watch": ["workflows"],
            "sinks": ["stdout"],
            "persistence": {"enabled": False},
            # the API server listens on the node's loopback only: reach it there, with the
            # pod's own token (its certificate names 127.0.0.1)
            "extraEnv": [
                {"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
                {"name": "KUBERNETES_SERVICE_PORT", "value": str(_api_port(e2e))},
            ],
            **placement,
        },
        "workflows": {"namespace": e2e.argo_namespace},
    }


def install(e2e: E2ESettings, flow: Flow, namespace: str, scratch: Path) -> Release:
    core = client.CoreV1Api(api_client(e2e))
    core.create_namespace({"metadata": {"name": namespace}})
    core.create_namespaced_secret(
        namespace,
        {"metadata": {"name": "promoflow-webhooks"}, "stringData": {"github": WEBHOOK_SECRET}},
    )
    report = f"{namespace}-report"
    for where in (namespace, e2e.argo_namespace):
        core.create_namespaced_secret(
            where, {"metadata": {"name": report}, "stringData": {"token": REPORT_TOKEN}}
        )
    webhooks, reporters = free_port(), free_port()
    path = scratch / "values.yaml"
    chosen = values(e2e, flow, webhooks, reporters)
    chosen["secrets"]["reportToken"] = report
    path.write_text(yaml.safe_dump(chosen))
    started = time.monotonic()
    done = helm(e2e, "install", "promoflow", str(CHART), "-n", namespace, "-f", str(path),
                "--wait", "--timeout", "5m")  # fmt: skip
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    return Release(
        e2e, namespace, f"http://127.0.0.1:{webhooks}", f"http://127.0.0.1:{reporters}", seconds
    )


def uninstall(release: Release) -> None:
    helm(release.e2e, "uninstall", "promoflow", "-n", release.namespace, "--wait")
    core = client.CoreV1Api(api_client(release.e2e))
    core.delete_namespaced_secret(f"{release.namespace}-report", release.e2e.argo_namespace)
    core.delete_namespace(release.namespace)


def helm(e2e: E2ESettings, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ensure("helm")), f"--kubeconfig={e2e.kubeconfig}", *args],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


class Stream:
    """The reporters' /stream, read in a thread of its own as a user's client would."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.headers = {"Authorization": f"Bearer {token}"}
        self.events: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                with httpx.stream(
                    "GET", f"{self.url}/stream", headers=self.headers, timeout=None
                ) as response:
                    for line in response.iter_lines():
                        if self._stop.is_set():
                            return
                        if line.startswith("data:"):
                            self.events.append(json.loads(line[5:].strip()))
            except httpx.HTTPError:
                time.sleep(0.5)

    def close(self) -> None:
        self._stop.set()
