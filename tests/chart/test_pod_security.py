"""Every pod the chart renders, and every step pod its WorkflowTemplates make Argo create,
meets the "restricted" Pod Security Standard, and holds a ServiceAccount token only where
it is used, a short-lived projected one (``helm template``; the real API server's
admission is asked in tests/e2e/test_pod_security_admission.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from orchestrator.compiler.executor_plugin import CONFIGMAP
from tests.chart.rendering import CASES, objects, render
from tests.support.argopod import agent_pod, step_pod
from tests.support.restricted import violations

TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def chart_pods(case: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for obj in render(case):
        if obj["kind"] in ("Deployment", "StatefulSet", "Job"):
            yield f"{obj['kind']}/{obj['metadata']['name']}", obj["spec"]["template"]["spec"]


def step_pods(case: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The pod of each container step, and the agent pod of a run of plugin steps."""
    plugin = [c for c in objects(case, "ConfigMap") if c["metadata"]["name"] == CONFIGMAP]
    for template in objects(case, "WorkflowTemplate"):
        account = template["spec"]["serviceAccountName"]
        for step in template["spec"]["templates"]:
            where = f"WorkflowTemplate/{template['metadata']['name']}"
            if "container" in step:
                yield where, step_pod(step, service_account=account)
            elif "plugin" in step and plugin:
                data = plugin[0]["data"]
                sidecar = yaml.safe_load(data["sidecar.container"])
                automount = data["sidecar.automountServiceAccountToken"] == "true"
                yield f"{where} (agent pod)", agent_pod(sidecar, account, automount)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_pod_meets_the_restricted_standard(case: str) -> None:
    pods = [*chart_pods(case), *step_pods(case)]
    assert len(pods) > 7  # the chart's workloads and every step
    found = {where: violations(pod) for where, pod in pods}
    if case == "host-network":
        # the local cluster's setting: the chart's own pods share the node's network,
        # which the baseline standard already forbids; nothing else is given up
        assert {w: v for w, v in found.items() if v} == {
            w: ["host namespaces (hostNetwork)"] for w, _ in chart_pods(case)
        }
    else:
        assert {w: v for w, v in found.items() if v} == {}


def test_the_check_finds_what_argo_adds_without_the_templates_settings() -> None:
    """The same steps without their securityContext and podSpecPatch: Argo's containers
    and the step's break the standard, so the check above can fail."""
    for where, _ in step_pods("defaults"):
        [template] = [
            t
            for t in objects("defaults", "WorkflowTemplate")
            if where.endswith(t["metadata"]["name"])
        ]
        step = {
            k: v
            for k, v in template["spec"]["templates"][0].items()
            if k not in ("securityContext", "podSpecPatch")
        }
        step["container"] = {k: v for k, v in step["container"].items() if k != "securityContext"}
        found = violations(step_pod(step, service_account="promoflow-workflow"))
        assert "wait: allowPrivilegeEscalation != false" in found, where
        assert "init: runAsNonRoot != true" in found, where
        assert "main: seccompProfile None" in found, where


@pytest.mark.parametrize("case", sorted(CASES))
def test_tokens_are_projected_and_only_where_used(case: str) -> None:
    for where, pod in step_pods(case):
        assert pod["automountServiceAccountToken"] is False, where
        mounted = {
            c["name"]
            for c in pod["initContainers"] + pod["containers"]
            if any(m["mountPath"] == TOKEN_PATH for m in c.get("volumeMounts", []))
        }
        if where.endswith("(agent pod)"):
            # argoexec's agent reads and reports its task set; the plugin, which talks
            # to Argo CD's API here (argocd.server is always set), gets none
            assert mounted == {"init", "main"}, where
        else:
            assert mounted == {"init", "wait"}, where  # the executor's WorkflowTaskResults
    for where, pod in chart_pods(case):
        if where.startswith("StatefulSet/"):
            continue  # the reporters watch the Kubernetes API: the automounted token
        assert pod["automountServiceAccountToken"] is False, where
        [container] = pod["containers"]
        env = {e["name"]: e for e in container["env"]}
        assert "ARGO_TOKEN" not in env, where
        path = env["ARGO_TOKEN_FILE"]["value"]
        [mount] = [m for m in container["volumeMounts"] if path.startswith(m["mountPath"] + "/")]
        [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
        [source] = volume["projected"]["sources"]
        assert source["serviceAccountToken"] == {"path": "token", "expirationSeconds": 3600}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_long_lived_token_secret_but_argos_sso_one(case: str) -> None:
    tokens = [
        (s["metadata"]["namespace"], s["metadata"]["name"])
        for s in objects(case, "Secret")
        if s["type"] == "kubernetes.io/service-account-token"
    ]
    if case == "approvals":
        # Argo v4's SSO RBAC reads the account's token from ACCOUNT.service-account-token
        assert tokens == [("argo", "promoflow-approver.service-account-token")]
    elif case == "plugin":
        # and its agent pod mounts the workflow account's from the same kind of Secret
        assert tokens == [("promoflow", "promoflow-workflow.service-account-token")]
    else:
        assert tokens == []
