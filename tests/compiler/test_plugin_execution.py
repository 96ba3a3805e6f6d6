"""Steps compiled for promoflow's executor plugin: the same step, no pod.

Each step's plugin template keeps what its container template promises (inputs, outputs,
retries, mutex, deadline, the program's arguments) and drops only what a pod needs; its
ConfigMap gives the sidecar every step's environment, credentials by Secret reference.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from orchestrator.compiler.compile import library_templates
from orchestrator.compiler.executor_plugin import (
    CONFIGMAP,
    PLUGIN_NAME,
    configmap,
    problems,
    sidecar,
)
from orchestrator.plugin.protocol import PLUGIN, PORT
from orchestrator.settings import StepSettings
from tests.compiler.helpers import EXAMPLES, SETTINGS
from tests.support.argo_schema import schema_errors, unknown_fields

PLUGINS = SETTINGS.model_copy(update={"execution": "plugin"})


def pairs() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    pods = [m["spec"]["templates"][0] for m in library_templates(SETTINGS)]
    plugins = [m["spec"]["templates"][0] for m in library_templates(PLUGINS)]
    return list(zip(pods, plugins, strict=True))


def test_every_step_template_is_a_plugin_template_that_validates() -> None:
    for manifest in library_templates(PLUGINS):
        assert schema_errors(manifest) == []
        assert unknown_fields(manifest) == []
        (template,) = manifest["spec"]["templates"]
        assert set(template["plugin"]) == {PLUGIN}
        assert "container" not in template


@pytest.mark.parametrize("index", range(len(pairs())))
def test_a_plugin_step_promises_what_its_pod_did(index: int) -> None:
    pod, plugin = pairs()[index]
    body = plugin["plugin"][PLUGIN]
    assert plugin["name"] == pod["name"]
    assert plugin["inputs"] == pod["inputs"]
    assert plugin.get("retryStrategy") == pod.get("retryStrategy")
    assert plugin.get("synchronization") == pod.get("synchronization")
    # the same program and arguments; the server picks the outputs directory
    args = pod["container"]["args"]
    assert body["args"] == args[: args.index("--outputs")]
    assert body["node"] == "{{node.name}}"
    assert body.get("deadline") == pod.get("activeDeadlineSeconds")
    declared = [p["name"] for p in (pod.get("outputs") or {}).get("parameters", [])]
    assert body["outputs"] == declared
    assert [p["name"] for p in (plugin.get("outputs") or {}).get("parameters", [])] == declared
    for parameter in (plugin.get("outputs") or {}).get("parameters", []):
        assert parameter["valueFrom"] == {"supplied": {}, "default": ""}
    for pod_only in ("activeDeadlineSeconds", "podSpecPatch", "securityContext", "volumes"):
        assert pod_only not in plugin


def test_the_configmap_is_what_the_controller_accepts() -> None:
    """``plugin.FromConfigMap``: the label, ``<name>-executor-plugin``, a container named
    for the plugin with a port (the agent calls ``ports[0]``) and resource requests
    (``Plugin.Validate`` refuses a sidecar without them)."""
    made = configmap(PLUGINS, "promotions")
    assert made["metadata"]["name"] == CONFIGMAP == f"{PLUGIN_NAME}-executor-plugin"
    assert made["metadata"]["namespace"] == "promotions"
    assert made["metadata"]["labels"]["workflows.argoproj.io/configmap-type"] == "ExecutorPlugin"
    container = yaml.safe_load(made["data"]["sidecar.container"])
    assert container["name"] == PLUGIN_NAME
    assert container["ports"][0]["containerPort"] == PORT
    assert container["resources"]["requests"]["cpu"]
    assert container["resources"]["requests"]["memory"]
    assert container["args"] == ["plugin", "serve", "--port", str(PORT)]
    assert container["image"] == PLUGINS.step_image
    assert made["data"]["sidecar.automountServiceAccountToken"] in ("true", "false")


def test_the_sidecar_has_every_step_s_environment_and_no_secret_value() -> None:
    settings = PLUGINS.model_copy(update={"report_url": "http://reporter:8080/reports"})
    env = {e["name"]: e for e in sidecar(settings)["env"]}
    assert env["ARGOCD_SERVER"]["value"] == settings.argocd_server
    assert env["PROMOFLOW_REPORT_URL"]["value"] == "http://reporter:8080/reports"
    for name, secret in (
        ("GIT_TOKEN", settings.git_secret),
        ("ARGOCD_AUTH_TOKEN", settings.argocd_secret),
        ("PROMOFLOW_REPORT_TOKEN", settings.report_secret),
    ):
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == secret
        assert "value" not in env[name]
    assert "PROMOFLOW_OUTPUTS" not in env  # each step's own directory, set by the server


def test_a_token_is_mounted_only_where_a_step_reads_the_kubernetes_api() -> None:
    with_server = configmap(PLUGINS)
    without = configmap(PLUGINS.model_copy(update={"argocd_server": ""}))
    assert with_server["data"]["sidecar.automountServiceAccountToken"] == "false"
    assert without["data"]["sidecar.automountServiceAccountToken"] == "true"


def test_the_setting_is_checked() -> None:
    with pytest.raises(ValueError, match="execution"):
        StepSettings(execution="container")  # type: ignore[arg-type]


def test_a_configmap_made_here_has_no_problem() -> None:
    assert problems(configmap(PLUGINS), PLUGINS) == []


def test_each_problem_of_a_found_configmap_is_named_with_its_fix() -> None:
    assert problems(None, PLUGINS) == [
        "no ConfigMap promoflow-executor-plugin: install the chart with workflows.execution=plugin"
    ]
    made = configmap(PLUGINS)
    container = yaml.safe_load(made["data"]["sidecar.container"])
    del container["resources"]
    container["env"] = [e for e in container["env"] if e["name"] != "GIT_TOKEN"]
    container["image"] = "ghcr.io/promoflow/promoflow:0.0.1"
    made["data"]["sidecar.container"] = yaml.safe_dump(container)
    del made["metadata"]["labels"]["workflows.argoproj.io/configmap-type"]
    found = problems(made, PLUGINS)
    assert len(found) == 4
    assert "the controller ignores it" in found[0]
    assert "no resource requests" in found[1]
    assert "upgrade both together" in found[2]
    assert found[3] == "the sidecar lacks the steps' environment: GIT_TOKEN"


def compiled_names(tmp_path: Path, execution: str) -> list[str]:
    ran = subprocess.run(
        [sys.executable, "-m", "orchestrator.entry", "compile", "-c", str(EXAMPLES),
         "-p", "shop", "--library", "-o", "name"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PROMOFLOW_EXECUTION": execution}, cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.split()


def test_compile_library_prints_the_plugin_with_its_steps(tmp_path: Path) -> None:
    """Without the chart: ``compile --library`` gives what ``kubectl apply`` needs."""
    names = compiled_names(tmp_path, "plugin")
    assert f"configmap/{CONFIGMAP}" in names
    assert "workflowtemplate/promoflow-promote" in names
    assert f"configmap/{CONFIGMAP}" not in compiled_names(tmp_path, "pod")
