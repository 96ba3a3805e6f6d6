"""Namespaces and cluster names are Kubernetes names, wherever they are given: in the
configuration (with the position), in ``--namespace`` flags and in the environment.

``\\t`` and ``$(id)`` used to be accepted: namespaces go into API paths, Workflow
parameters and commands, where such a value is at best a confusing failure later.
"""

from __future__ import annotations

import json

import pytest

from orchestrator.settings import GateSettings, SettingsError, load
from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke

RULE = (
    "use lowercase letters, digits and '-', starting and ending with a letter or digit "
    "(RFC 1123 label)"
)
SETTING_RULE = (
    "not a valid namespace: lowercase letters, digits and '-', starting and ending with a "
    "letter or digit, at most 63 characters (RFC 1123 label)"
)
BAD = ["\t", "$(id)", "Shop", "a_b", "-shop", "x" * 64, ""]


def _environment(cluster: str) -> str:
    return f"""
    apiVersion: promoflow.dev/v1alpha1
    kind: Environment
    metadata: {{name: dev}}
    spec:
      clusters:
        - {cluster}
    """


@pytest.mark.parametrize("namespace", ["\t", "$(id)", "Shop", "a_b", "-shop"])
def test_a_namespace_in_an_environment_must_be_a_kubernetes_name(
    ws: Workspace, namespace: str
) -> None:
    ws.write(
        "env.yaml", _environment(f"{{name: in-cluster, namespaces: [{json.dumps(namespace)}]}}")
    )
    shown = repr(namespace)
    assert ws.problems() == [
        f"env.yaml:6:39: error: spec.clusters[0].namespaces[0]: {shown} is not a valid "
        f"namespace: {RULE}"
    ]


def test_a_long_namespace_names_the_limit(ws: Workspace) -> None:
    ws.write("env.yaml", _environment(f"{{name: in-cluster, namespaces: [{'x' * 64}]}}"))
    [problem] = ws.problems()
    assert problem.endswith("is not a valid namespace: at most 63 characters (has 64)")


@pytest.mark.parametrize("cluster", ["$(id)", "prod eu", "Prod", "prod_eu", "-prod", "a" * 254])
def test_a_cluster_name_must_be_a_kubernetes_name(ws: Workspace, cluster: str) -> None:
    ws.write("env.yaml", _environment(f"{{name: {json.dumps(cluster)}}}"))
    [problem] = ws.problems()
    assert problem.startswith("env.yaml:6:8: error: spec.clusters[0].name: ")
    assert problem.endswith(
        "is not a valid cluster name: lowercase letters, digits, '-' and '.', starting and "
        "ending with a letter or digit, at most 253 characters (RFC 1123 subdomain)"
    )


def test_valid_cluster_names_and_namespaces_are_accepted(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        _environment(f"{{name: eks.prod-eu-1, namespaces: [shop, a-1, {'n' * 63}]}}"),
    )
    assert ws.problems() == []


def test_a_namespace_of_an_application_must_be_a_kubernetes_name(ws: Workspace) -> None:
    ws.write_base(product=False)
    ws.write(
        "product.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Product
        metadata: {name: shop}
        spec:
          repo: {url: https://git.example.com/gitops.git}
          flow: standard
          template: helm
          applications:
            - {environment: dev, namespace: "$(id)"}
        """,
    )
    assert ws.problems() == [
        "product.yaml:9:26: error: spec.applications[0].namespace: '$(id)' is not a valid "
        f"namespace: {RULE}"
    ]


@pytest.mark.parametrize("namespace", ["\t", "$(id)", "Argo"])
def test_the_namespace_flag_must_be_a_kubernetes_name(namespace: str) -> None:
    result = invoke("runs", "-n", namespace, env={"ARGO_SERVER": "localhost:1"})
    assert_clean_failure(result, 2)
    assert result.lines == [f"error: --namespace: {namespace!r} is not a valid namespace: {RULE}"]


@pytest.mark.parametrize("namespace", BAD[:-1])
def test_argo_namespace_from_the_environment_must_be_a_kubernetes_name(namespace: str) -> None:
    result = invoke("runs", env={"ARGO_SERVER": "localhost:1", "ARGO_NAMESPACE": namespace})
    assert_clean_failure(result, 2)
    assert result.lines == [f"error: ARGO_NAMESPACE: {SETTING_RULE}"]


def test_the_argocd_namespace_setting_must_be_a_kubernetes_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PROMOFLOW_ARGOCD_NAMESPACE", "$(id)")
    with pytest.raises(SettingsError) as refused:
        load(GateSettings)
    assert str(refused.value) == f"PROMOFLOW_ARGOCD_NAMESPACE: {SETTING_RULE}"


@pytest.mark.parametrize("flag", ["--namespace", "--workload-namespaces", "--workflows-namespace"])
def test_the_reporters_namespace_flags_must_be_kubernetes_names(flag: str) -> None:
    result = invoke("reporter", flag, "argocd,$(id)")
    assert result.code == 2
    last = result.stderr.splitlines()[-1]
    assert last == f"error: Invalid value for {flag}: '$(id)' is not a valid namespace: {RULE}"
