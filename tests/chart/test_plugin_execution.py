"""``workflows.execution: plugin``: the chart installs the plugin steps and the plugin.

Rendered by the real ``helm``: the step templates are plugin templates; the executor
plugin's ConfigMap is one the workflow-controller accepts, with the release's image and
every step's environment as the step containers get it (the release's Argo CD server and
Secret names); the workflow account may read its run's task set and has the token
Secret Argo v4 mounts into the agent pod.
"""

from __future__ import annotations

import yaml

from orchestrator.compiler.executor_plugin import CONFIGMAP, PLUGIN_NAME
from tests.chart.rendering import NAMESPACE, objects


def test_the_steps_are_plugin_templates() -> None:
    templates = objects("plugin", "WorkflowTemplate")
    assert len(templates) >= 7
    for template in templates:
        (body,) = template["spec"]["templates"]
        assert "promoflow" in body["plugin"] and "container" not in body
        assert template["metadata"]["namespace"] == NAMESPACE
        assert template["spec"]["serviceAccountName"] == "promoflow-workflow"


def test_pod_steps_install_no_plugin() -> None:
    assert not [c for c in objects("defaults", "ConfigMap") if c["metadata"]["name"] == CONFIGMAP]
    for template in objects("defaults", "WorkflowTemplate"):
        assert "container" in template["spec"]["templates"][0]


def test_the_plugin_s_configmap_has_the_release_s_image_and_environment() -> None:
    (configmap,) = [c for c in objects("plugin", "ConfigMap") if c["metadata"]["name"] == CONFIGMAP]
    assert (
        configmap["metadata"]["labels"]["workflows.argoproj.io/configmap-type"] == "ExecutorPlugin"
    )
    assert configmap["metadata"]["namespace"] == NAMESPACE
    container = yaml.safe_load(configmap["data"]["sidecar.container"])
    assert container["name"] == PLUGIN_NAME
    assert container["image"].endswith(":9.9.9")
    assert container["resources"]["requests"]
    env = {e["name"]: e for e in container["env"]}
    assert env["ARGOCD_SERVER"]["value"] == "cd.example:443"
    assert env["GIT_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == "team-git"
    assert env["ARGOCD_AUTH_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == "team-argocd"
    assert not any("value" in e and "TOKEN" in e["name"] for e in container["env"])


def test_the_agent_may_read_its_task_set_and_has_its_token() -> None:
    (role,) = [
        r for r in objects("plugin", "Role") if r["metadata"]["name"] == "promoflow-workflow"
    ]
    rules = {(tuple(r["resources"]), tuple(r["verbs"])) for r in role["rules"]}
    assert (("workflowtasksets",), ("list", "watch")) in rules
    assert (("workflowtasksets/status",), ("patch",)) in rules
    (default_role,) = [
        r for r in objects("defaults", "Role") if r["metadata"]["name"] == "promoflow-workflow"
    ]
    assert all("workflowtasksets" not in r["resources"] for r in default_role["rules"])
    (token,) = [
        s for s in objects("plugin", "Secret")
        if s["metadata"]["name"] == "promoflow-workflow.service-account-token"
    ]  # fmt: skip
    assert token["type"] == "kubernetes.io/service-account-token"
    assert token["metadata"]["annotations"] == {
        "kubernetes.io/service-account.name": "promoflow-workflow"
    }
