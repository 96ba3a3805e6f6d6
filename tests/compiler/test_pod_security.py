"""Step pods run restricted, and hold a ServiceAccount token only where it is used."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from orchestrator.compiler import podsecurity
from orchestrator.compiler.compile import library_templates
from orchestrator.settings import StepSettings
from tests.compiler.helpers import ROOT, SETTINGS

KUBE_ACCESS = StepSettings.model_construct(argocd_server="")
"""No Argo CD server: the gate reads Application objects through the Kubernetes API."""


def _templates(settings: StepSettings) -> dict[str, dict[str, Any]]:
    return {m["spec"]["entrypoint"]: m["spec"]["templates"][0] for m in library_templates(settings)}


def _patch(template: dict[str, Any]) -> dict[str, Any]:
    # Argo reads podSpecPatch as YAML (ConvertYAMLToJSON), of which JSON is a part
    patch = yaml.safe_load(template["podSpecPatch"])
    assert isinstance(patch, dict)
    return patch


def _token_holders(patch: dict[str, Any]) -> set[str]:
    return {
        container["name"]
        for container in patch.get("initContainers", []) + patch.get("containers", [])
        if any(m["name"] == podsecurity.TOKEN_VOLUME for m in container.get("volumeMounts", []))
    }


@pytest.mark.parametrize("settings", [SETTINGS, KUBE_ACCESS], ids=["argocd-api", "kubernetes"])
def test_every_step_runs_restricted(settings: StepSettings) -> None:
    templates = _templates(settings)
    assert templates
    for name, template in templates.items():
        pod = template["securityContext"]
        assert pod["runAsNonRoot"] is True and pod["runAsUser"] == podsecurity.RUN_AS, name
        assert pod["seccompProfile"] == {"type": "RuntimeDefault"}, name
        container = template["container"]["securityContext"]
        assert container == {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
        }, name
        # the one writable place, where the outputs are written
        assert {"name": "tmp", "emptyDir": {}} in template["volumes"], name
        assert {"name": "tmp", "mountPath": "/tmp"} in template["container"]["volumeMounts"]
        for output in (template.get("outputs") or {}).get("parameters", []):
            assert output["valueFrom"]["path"].startswith("/tmp/"), (name, output)
        patch = _patch(template)
        for executor in patch["initContainers"] + patch["containers"]:
            if executor["name"] in podsecurity.EXECUTOR_CONTAINERS:
                context = executor["securityContext"]
                assert context["allowPrivilegeEscalation"] is False, (name, executor["name"])
                assert context["capabilities"] == {"drop": ["ALL"]}, (name, executor["name"])


@pytest.mark.parametrize("settings", [SETTINGS, KUBE_ACCESS], ids=["argocd-api", "kubernetes"])
def test_no_automounted_token_and_a_short_lived_one_for_argo(settings: StepSettings) -> None:
    for name, template in _templates(settings).items():
        assert "automountServiceAccountToken" not in template, name  # Argo would want a Secret
        patch = _patch(template)
        assert patch["automountServiceAccountToken"] is False, name
        (volume,) = patch["volumes"]
        sources = volume["projected"]["sources"]
        token = next(s["serviceAccountToken"] for s in sources if "serviceAccountToken" in s)
        assert token == {"path": "token", "expirationSeconds": 3600}, name
        # the executor writes the step's outputs as a WorkflowTaskResult
        assert {"init", "wait"} <= _token_holders(patch), name
        for holder in patch["initContainers"] + patch["containers"]:
            mounts = [m for m in holder["volumeMounts"] if m["name"] == podsecurity.TOKEN_VOLUME]
            assert mounts == [
                {"name": volume["name"], "mountPath": podsecurity.TOKEN_PATH, "readOnly": True}
            ]


def test_only_steps_that_call_the_kubernetes_api_get_the_token() -> None:
    with_server = {n: _token_holders(_patch(t)) for n, t in _templates(SETTINGS).items()}
    assert all("main" not in holders for holders in with_server.values()), with_server
    without = {n for n, t in _templates(KUBE_ACCESS).items() if "main" in _token_holders(_patch(t))}
    assert without == {"wait-argocd"}


def test_the_user_is_the_images() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(rf"useradd --uid {podsecurity.RUN_AS}\b", dockerfile)
    assert f"USER {podsecurity.RUN_AS}:{podsecurity.RUN_AS}" in dockerfile


def test_generated_yaml_keeps_the_patch_as_json_text() -> None:
    """The chart edits the patch with fromJson/toJson: it must stay one JSON document."""
    for template in _templates(SETTINGS).values():
        assert isinstance(json.loads(template["podSpecPatch"]), dict)
