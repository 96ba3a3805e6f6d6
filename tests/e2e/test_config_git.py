"""The chart installed with ``config.git``: the webhook service follows its configuration
in the cluster's Git server, on the real cluster.

The release (its own namespace, which is also its workflows' namespace, so nothing is
shared with another release) runs this checkout's code (:mod:`tests.e2e.checkoutimage`).
A product added by a push gets its WorkflowTemplate within 30 s, without ``helm upgrade``;
a broken push is refused: the old configuration keeps serving (a push of the new product's
version is still submitted), and the problem shows with FILE:LINE on ``/readyz``, in
``/metrics``, as a ``ConfigRefused`` Event and as ``config.refused`` in the reporters'
stream. Times are printed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from kubernetes import client

from orchestrator.simulator.serve import free_port
from tests.chart.readme import CHART
from tests.e2e.chartinstall import REAL_NODE, WEBHOOK_SECRET, Stream, _api_port, _url, helm
from tests.e2e.checkoutimage import checkout_image
from tests.e2e.flows import argo_http
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import api_client, configmap, short_id, wait_until
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e

FOLDER = "promoflow"
TOKEN = "e2e-config-git-metrics-token"
INTERVAL = 10


def _document(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "promoflow.dev/v1alpha1",
        "kind": kind,
        "metadata": {"name": name},
        "spec": spec,
    }


def _base(repo: GitopsRepo, product: str) -> str:
    """dev -> staging, one template, one flow, and ``product``."""
    return yaml.safe_dump_all(
        [
            _document("Environment", "dev", {}),
            _document("Environment", "staging", {}),
            _document("PromotionFlow", "chain", {
                "trigger": "dev", "steps": [{"environment": "staging", "dependsOn": ["dev"]}],
            }),
            _document("PromotionTemplate", "files", {
                "versionSource": {"file": "configmap.yaml", "path": "data.version"},
                "files": [{"file": "configmap.yaml", "paths": ["data.version"]}],
            }),
            _product(repo, product, "chain"),
        ],
        sort_keys=False,
    )  # fmt: skip


def _product(repo: GitopsRepo, name: str, flow: str) -> dict[str, Any]:
    spec = {"repo": {"url": repo.url, "branch": repo.branch}, "flow": flow, "template": "files"}
    return _document("Product", name, spec)


@dataclass
class GitRelease:
    e2e: E2ESettings
    namespace: str
    repo: GitopsRepo
    url: str
    seconds: float
    reporters: str

    def template(self, product: str) -> dict[str, Any] | None:
        """The product's WorkflowTemplate as the API server holds it (None: not there)."""
        custom = client.CustomObjectsApi(api_client(self.e2e))
        try:
            found: dict[str, Any] = custom.get_namespaced_custom_object(
                "argoproj.io", "v1alpha1", self.namespace, "workflowtemplates",
                f"promoflow-{product}",
            )  # fmt: skip
        except client.ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return found

    def logs(self) -> str:
        core = client.CoreV1Api(api_client(self.e2e))
        pods = core.list_namespaced_pod(self.namespace).items
        return "\n".join(
            core.read_namespaced_pod_log(p.metadata.name, self.namespace, tail_lines=40)
            for p in pods
        )

    def readyz(self) -> httpx.Response:
        return httpx.get(f"{self.url}/readyz", timeout=10)

    def metrics(self) -> str:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        return httpx.get(f"{self.url}/metrics", headers=headers, timeout=10).text

    def deliver(self, before: str, after: str, paths: list[str]) -> httpx.Response:
        body = json.dumps({
            "ref": f"refs/heads/{self.repo.branch}", "before": before, "after": after,
            "repository": {"clone_url": self.repo.url}, "pusher": {"name": "e2e"},
            "commits": [{"id": after, "message": "e2e", "modified": paths}],
        }).encode()  # fmt: skip
        signature = hmac.new(WEBHOOK_SECRET.encode(), body, hashlib.sha256).hexdigest()
        headers = {
            "Content-Type": "application/json", "X-GitHub-Event": "push",
            "X-GitHub-Delivery": str(uuid.uuid4()), "X-Hub-Signature-256": f"sha256={signature}",
        }  # fmt: skip
        return httpx.post(f"{self.url}/webhooks/github", content=body, headers=headers, timeout=60)


def _values(
    e2e: E2ESettings, repo: GitopsRepo, image: str, port: int, reporters: int
) -> dict[str, Any]:
    repository, _, tag = image.rpartition(":")
    git: dict[str, Any] = {
        "url": repo.url, "branch": repo.branch, "path": FOLDER, "interval": INTERVAL,
    }  # fmt: skip
    if e2e.git_token:
        git["secret"] = "config-git"
    return {
        "image": {"repository": repository, "tag": tag},
        "hostNetwork": True,
        "argo": {"server": _url(e2e.argo_server, e2e.argo_secure), "insecureSkipVerify": True},
        "argocd": {
            "namespace": e2e.argocd_namespace,
            "server": e2e.step_argocd_server,
            "opts": e2e.step_argocd_opts,
        },
        "secrets": {"webhooks": "promoflow-webhooks", "reportToken": "config-git-report"},
        "config": {"git": git},
        "webhooks": {
            "replicas": 1,
            "port": port,
            # the API server listens on the node's loopback (its certificate names it)
            "extraEnv": [
                {"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
                {"name": "KUBERNETES_SERVICE_PORT", "value": str(_api_port(e2e))},
            ],
            "nodeSelector": {REAL_NODE: "true"},
            "tolerations": [{"key": REAL_NODE, "operator": "Exists", "effect": "NoSchedule"}],
        },
        # one reporter, to hear the service's ConfigResult and tell its stream
        "reporters": {
            "replicas": 1,
            "port": reporters,
            "reportURL": f"http://127.0.0.1:{reporters}/reports",
            "namespaces": [e2e.argocd_namespace],
            "sinks": ["stdout"],
            "persistence": {"enabled": False},
            "extraEnv": [
                {"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
                {"name": "KUBERNETES_SERVICE_PORT", "value": str(_api_port(e2e))},
            ],
            "nodeSelector": {REAL_NODE: "true"},
            "tolerations": [{"key": REAL_NODE, "operator": "Exists", "effect": "NoSchedule"}],
        },
    }


@pytest.fixture
def release(e2e: E2ESettings, tmp_path: Path) -> Iterator[GitRelease]:
    if not e2e.step_image:
        pytest.fail("PROMOFLOW_STEP_IMAGE: the image the chart installs (make cluster builds it)")
    started = time.monotonic()
    image = checkout_image(e2e.step_image, tmp_path)
    print(f"\nimage of this checkout: {image} ({time.monotonic() - started:.1f} s)")
    repo = GitopsRepo(e2e, tmp_path / "gitops")
    namespace = f"pfgit-{short_id()}"
    core = client.CoreV1Api(api_client(e2e))
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=namespace)))
    try:
        secrets = {
            "promoflow-webhooks": {"github": WEBHOOK_SECRET},
            "config-git-report": {"token": TOKEN},
            "config-git": {"token": e2e.git_token},
        }
        for name, data in secrets.items():
            meta = client.V1ObjectMeta(name=name)
            core.create_namespaced_secret(
                namespace, client.V1Secret(metadata=meta, string_data=data)
            )
        port, reporters = free_port(), free_port()
        values = tmp_path / "values.yaml"
        values.write_text(yaml.safe_dump(_values(e2e, repo, image, port, reporters)))
        repo.commit({f"{FOLDER}/base.yaml": _base(repo, "first")}, "the first product")
        started = time.monotonic()
        done = helm(e2e, "install", "promoflow", str(CHART), "-n", namespace, "-f", str(values),
                    "--wait", "--timeout", "5m")  # fmt: skip
        seconds = time.monotonic() - started
        assert done.returncode == 0, done.stdout + done.stderr
        print(f"helm install to Ready (first configuration applied): {seconds:.1f} s")
        yield GitRelease(
            e2e, namespace, repo, f"http://127.0.0.1:{port}", seconds,
            f"http://127.0.0.1:{reporters}",
        )  # fmt: skip
    finally:
        helm(e2e, "uninstall", "promoflow", "-n", namespace, "--wait")
        core.delete_namespace(namespace)
        repo.remove()


def test_a_pushed_product_is_applied_and_a_broken_push_refused(
    e2e: E2ESettings, release: GitRelease
) -> None:
    repo = release.repo
    assert release.template("first") is not None, release.logs()  # no apply job: the service
    jobs = client.BatchV1Api(api_client(e2e)).list_namespaced_job(release.namespace).items
    assert jobs == []
    first = release.readyz().json()["config"]
    assert first["products"] == ["first"]

    # a new product, in a folder, pushed and delivered: its template within 30 s
    before = repo.head()
    product = f"{FOLDER}/products/second.yaml"
    second = repo.commit({product: yaml.safe_dump(_product(repo, "second", "chain"))}, "add")
    pushed = time.monotonic()
    answer = release.deliver(before, second, [product])
    assert answer.status_code == 200, answer.text
    wait_until("the second product's template", lambda: release.template("second"), 30, 0.2)
    applied = time.monotonic() - pushed
    print(f"push to the new product's WorkflowTemplate: {applied:.1f} s")
    wait_until(
        "the second configuration serving",
        lambda: release.readyz().json()["config"].get("revision") == second or None,
        10,
    )

    # a broken push, not delivered: refused at the next look, the old one keeps serving,
    # and the reporters' stream tells it
    stream = Stream(release.reporters, TOKEN)
    broken_product = f"{FOLDER}/products/third.yaml"
    broken = repo.commit(
        {broken_product: yaml.safe_dump(_product(repo, "third", "chian"), sort_keys=False)},
        "a typo",
    )
    pushed = time.monotonic()

    def refused() -> dict[str, Any] | None:
        config: dict[str, Any] = release.readyz().json()["config"]
        return config if config.get("refused", {}).get("revision") == broken else None

    shown = wait_until("the broken configuration refused", refused, 3 * INTERVAL, 0.5)
    print(f"broken push to its refusal on /readyz: {time.monotonic() - pushed:.1f} s")
    ready = release.readyz()
    assert ready.status_code == 200
    assert shown["revision"] == second
    assert shown["products"] == ["first", "second"]
    problems = "\n".join(shown["refused"]["problems"])
    assert f"{broken_product}:9:3: error: unknown PromotionFlow 'chian'" in problems, problems
    assert release.template("third") is None
    metrics = release.metrics()
    assert "promoflow_config_problems 1.0" in metrics, metrics
    assert f'promoflow_config_revision_info{{revision="{second}"}} 1.0' in metrics
    events = client.CoreV1Api(api_client(e2e)).list_namespaced_event(
        release.namespace, field_selector="reason=ConfigRefused"
    )
    messages = [e.message or "" for e in events.items]
    assert any(f"{broken_product}:9:3" in m for m in messages), messages

    def told() -> dict[str, Any] | None:
        found = [e for e in stream.events if e.get("type") == "config.refused"]
        return found[-1] if found else None

    try:
        event = wait_until("config.refused in the reporters' stream", told, 30, 0.5)
    finally:
        stream.close()
    assert event["data"]["revision"] == broken and event["data"]["serving"] == second
    assert any(f"{broken_product}:9:3" in p for p in event["data"]["problems"]), event

    # the configuration that serves still promotes: the product added through Git
    before = repo.head()
    version_file = "envs/dev/second/configmap.yaml"
    after = repo.commit({version_file: configmap("second-dev", "1.0.1")}, "Release 1.0.1")
    answer = release.deliver(before, after, [version_file])
    assert answer.status_code == 202, answer.text
    [run] = answer.json()["promotions"]
    assert (run["product"], run["version"], run["status"]) == ("second", "1.0.1", "submitted")
    with argo_http(e2e) as http:  # not run further: the namespace goes with the release
        http.delete(f"/workflows/{release.namespace}/{run['run']}")

    # the pod restarted while the tip is broken: the new one walks back through the
    # branch, serves the newest revision that passes, and is Ready
    core = client.CoreV1Api(api_client(e2e))
    selector = "app.kubernetes.io/component=webhooks"
    [old] = core.list_namespaced_pod(release.namespace, label_selector=selector).items
    core.delete_namespaced_pod(old.metadata.name, release.namespace, grace_period_seconds=1)
    restarted = time.monotonic()

    def new_pod_ready() -> bool | None:
        pods = core.list_namespaced_pod(release.namespace, label_selector=selector).items
        return (
            any(
                p.metadata.name != old.metadata.name
                and any(c.type == "Ready" and c.status == "True" for c in p.status.conditions or [])
                for p in pods
            )
            or None
        )

    wait_until("a new webhook pod Ready on the broken tip", new_pod_ready, 180, 1)
    print(f"pod deleted to a new one Ready on a broken tip: {time.monotonic() - restarted:.1f} s")
    shown = release.readyz().json()["config"]
    # the tip is the version commit, whose folder is the broken one; before the broken
    # commit, the folder was as at the second product's commit
    assert shown["revision"] == second, shown
    assert shown["refused"]["revision"] == after and "fallback" in shown, shown
    assert release.template("third") is None
