"""The restricted Pod Security Standard, enforced by the real API server: every pod the
chart renders and every step pod its WorkflowTemplates (and the compiled step templates)
make Argo create is admitted, as a server-side dry-run create, in a namespace labelled
``pod-security.kubernetes.io/enforce: restricted``; a step pod without the templates'
settings is refused there, so the namespace does enforce.

Step pods are built as Argo's controller builds them (tests/support/argopod.py), with the
template's podSpecPatch applied by kubectl's own strategic merge (``kubectl patch
--local``), which must agree with the helper's.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from orchestrator.compiler.compile import library_templates
from orchestrator.settings import StepSettings
from tests.chart.readme import CHART
from tests.chart.rendering import IMAGE
from tests.e2e.k8s import api_client, short_id
from tests.e2e.settings import E2ESettings
from tests.support.argopod import as_pod, step_pod
from tests.tools.binaries import ensure

pytestmark = pytest.mark.e2e

WORKFLOW_ACCOUNT = "promoflow-workflow"
PSA = {
    "pod-security.kubernetes.io/enforce": "restricted",
    "pod-security.kubernetes.io/enforce-version": "latest",
}


@pytest.fixture
def namespace(e2e: E2ESettings) -> Iterator[str]:
    """A namespace of the test's own that enforces the restricted standard."""
    core = client.CoreV1Api(api_client(e2e))
    name = f"pfpsa-{short_id()}"
    core.create_namespace({"metadata": {"name": name, "labels": PSA}})
    try:
        yield name
    finally:
        core.delete_namespace(name)


def _render(namespace: str, *values: str) -> list[dict[str, Any]]:
    sets = [
        arg
        for value in (
            "config.configMap=promoflow-config",
            f"image.repository={IMAGE}",
            f"workflows.namespace={namespace}",
            *values,
        )
        for arg in ("--set", value)
    ]
    out = subprocess.run(
        [str(ensure("helm")), "template", "promoflow", str(CHART), "-n", namespace, *sets],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    return [d for d in yaml.safe_load_all(out) if d]


def _accounts(core: client.CoreV1Api, namespace: str, rendered: list[dict[str, Any]]) -> None:
    """The chart's ServiceAccounts, made for real: the ServiceAccount admission plugin
    refuses a pod whose account does not exist, before PodSecurity is asked."""
    for obj in rendered:
        if obj["kind"] == "ServiceAccount" and obj["metadata"]["namespace"] == namespace:
            core.create_namespaced_service_account(namespace, obj)


def _dry_run(core: client.CoreV1Api, pod: dict[str, Any]) -> str:
    """The API server's verdict on creating ``pod``: "" when admitted, else its reason."""
    try:
        core.create_namespaced_pod(pod["metadata"]["namespace"], pod, dry_run="All")
    except ApiException as exc:
        return str(json.loads(exc.body or "{}").get("message") or exc.reason)
    return ""


def _kubectl_patched(e2e: E2ESettings, template: dict[str, Any], pod: dict[str, Any]) -> Any:
    """``pod`` with the template's podSpecPatch applied by kubectl's strategic merge."""
    result = subprocess.run(
        [str(ensure("kubectl")), f"--kubeconfig={e2e.kubeconfig}", "patch", "--local",
         "-f", "-", "--type=strategic", "-o", "json",
         "-p", json.dumps({"spec": yaml.safe_load(template["podSpecPatch"])})],
        input=json.dumps(pod), capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(result.stdout)


def _ordered(value: Any) -> Any:
    """Lists of named items in name order: kubectl's merge puts new items first."""
    if isinstance(value, dict):
        return {k: _ordered(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_ordered(v) for v in value]
        if all(isinstance(v, dict) for v in items):
            return sorted(items, key=lambda v: str(v.get("name", "")) + str(v.get("mountPath", "")))
        return items
    return value


def _step_pods(
    e2e: E2ESettings, templates: list[dict[str, Any]], namespace: str
) -> Iterator[tuple[str, dict[str, Any]]]:
    for manifest in templates:
        for template in manifest["spec"]["templates"]:
            if "container" not in template:
                continue
            name = f"{template['name']}-{short_id()}"
            bare = {k: v for k, v in template.items() if k != "podSpecPatch"}
            unpatched = as_pod(step_pod(bare, service_account=WORKFLOW_ACCOUNT), name, namespace)
            patched = _kubectl_patched(e2e, template, unpatched)
            ours = as_pod(step_pod(template, service_account=WORKFLOW_ACCOUNT), name, namespace)
            assert _ordered(patched) == _ordered(ours), template["name"]
            yield template["name"], patched


def test_the_charts_pods_and_its_step_pods_are_admitted(e2e: E2ESettings, namespace: str) -> None:
    core = client.CoreV1Api(api_client(e2e))
    rendered = _render(namespace, "webhooks.ingress.enabled=true", "reporters.replicas=1")
    _accounts(core, namespace, rendered)
    refused = {}
    workloads = [o for o in rendered if o["kind"] in ("Deployment", "StatefulSet", "Job")]
    assert {o["kind"] for o in workloads} == {"Deployment", "StatefulSet", "Job"}
    for obj in workloads:
        template = obj["spec"]["template"]
        pod = as_pod(template["spec"], f"{obj['metadata']['name']}-{short_id()}", namespace)
        pod["metadata"]["labels"] = template["metadata"].get("labels", {})
        for claim in obj["spec"].get("volumeClaimTemplates", []):  # as the StatefulSet's pods
            claimed = f"{claim['metadata']['name']}-{pod['metadata']['name']}"
            pod["spec"].setdefault("volumes", []).append(
                {"name": claim["metadata"]["name"], "persistentVolumeClaim": {"claimName": claimed}}
            )
        refused[f"{obj['kind']}/{obj['metadata']['name']}"] = _dry_run(core, pod)
    templates = [o for o in rendered if o["kind"] == "WorkflowTemplate"]
    steps = list(_step_pods(e2e, templates, namespace))
    assert len(steps) == len(templates) >= 7
    for name, pod in steps:
        refused[f"step {name}"] = _dry_run(core, pod)
    assert {where: why for where, why in refused.items() if why} == {}


def test_compiled_step_pods_are_admitted_with_either_argo_cd_access(
    e2e: E2ESettings, namespace: str
) -> None:
    """The templates ``promoflow apply`` installs, with an Argo CD server and without one
    (the gate then reads the Kubernetes API and its own container gets the token)."""
    core = client.CoreV1Api(api_client(e2e))
    core.create_namespaced_service_account(namespace, {"metadata": {"name": WORKFLOW_ACCOUNT}})
    for settings in (StepSettings(), StepSettings.model_construct(argocd_server="")):
        for name, pod in _step_pods(e2e, library_templates(settings), namespace):
            assert _dry_run(core, pod) == "", name
            holders = {
                c["name"]
                for c in pod["spec"]["initContainers"] + pod["spec"]["containers"]
                for m in c.get("volumeMounts", [])
                if m["mountPath"] == "/var/run/secrets/kubernetes.io/serviceaccount"
            }
            kube = name == "wait-argocd" and not settings.argocd_server
            assert holders == ({"init", "wait", "main"} if kube else {"init", "wait"}), name


def test_a_step_pod_without_the_templates_settings_is_refused(
    e2e: E2ESettings, namespace: str
) -> None:
    core = client.CoreV1Api(api_client(e2e))
    core.create_namespaced_service_account(namespace, {"metadata": {"name": WORKFLOW_ACCOUNT}})
    [promote] = [
        m["spec"]["templates"][0]
        for m in library_templates(StepSettings())
        if m["spec"]["entrypoint"] == "promote"
    ]
    bare = {k: v for k, v in promote.items() if k not in ("securityContext", "podSpecPatch")}
    bare["container"] = {k: v for k, v in bare["container"].items() if k != "securityContext"}
    pod = as_pod(step_pod(bare, service_account=WORKFLOW_ACCOUNT), f"bare-{short_id()}", namespace)
    reason = _dry_run(core, pod)
    assert 'violates PodSecurity "restricted:latest"' in reason
    assert "allowPrivilegeEscalation != false" in reason
