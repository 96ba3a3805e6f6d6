"""The chart with ``config.git``: the webhook service follows the configuration in Git and
applies the templates itself (so no apply job, no ConfigMap, and the rights to apply and
to record Events); with ``config.files``, the ConfigMap it makes carries the manifest the
loader checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.loading import load_config
from tests.chart.rendering import objects, render
from tests.chart.test_chart import APPLY, REPORTERS, REVIEWS, WEBHOOKS, WORKFLOW, grants, table


def _webhooks(case: str) -> dict[str, Any]:
    (deployment,) = [d for d in objects(case, "Deployment") if "webhooks" in d["metadata"]["name"]]
    spec: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return spec


def test_the_service_follows_git_and_applies_the_templates_itself() -> None:
    assert objects("config-git", "Job") == []
    spec = _webhooks("config-git")
    (container,) = spec["containers"]
    assert not [a for a in container["args"] if a.startswith("--config")]
    env = {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}
    assert env["PROMOFLOW_CONFIG_GIT_URL"] == "https://git.example.com/acme/gitops.git"
    assert env["PROMOFLOW_CONFIG_GIT_BRANCH"] == "main"
    assert env["PROMOFLOW_CONFIG_GIT_PATH"] == "promoflow"
    assert env["PROMOFLOW_CONFIG_GIT_INTERVAL"] == "15"
    assert env["PROMOFLOW_CONFIG_GIT_TOKEN"] == {
        "secretKeyRef": {"name": "gitops-reader", "key": "token"}
    }
    assert env["POD_NAME"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert "config" not in volumes
    assert volumes["kube-ca"]["configMap"]["name"] == "kube-root-ca.crt"
    mounted = {m["mountPath"] for m in container["volumeMounts"]}
    assert Path(env["PROMOFLOW_KUBE_CA_FILE"]).parent.as_posix() in mounted
    assert Path(env["PROMOFLOW_KUBE_TOKEN_FILE"]).parent.as_posix() in mounted


def test_with_git_the_service_may_apply_templates_and_record_events_and_no_more() -> None:
    assert grants("config-git") == table(
        (WEBHOOKS, "promoflow", "argoproj.io", "workflows", "create get list watch update patch"),
        (WEBHOOKS, "promoflow", "argoproj.io", "workflowtemplates", "get list create update"),
        (WEBHOOKS, "promoflow", "", "events", "create"),
        (REPORTERS, "argocd", "argoproj.io", "applications", "get list watch"),
        (REPORTERS, "promoflow", "argoproj.io", "workflows", "get list watch patch"),
        (WORKFLOW, "promoflow", "argoproj.io", "workflowtaskresults", "create patch"),
        *REVIEWS,
        (WORKFLOW, "promoflow", "promoflow.dev", "reporters/reports", "create"),
    )
    assert not any(account == APPLY for account, *_ in grants("config-git"))


def test_the_configmap_of_config_files_carries_the_manifest_the_loader_checks(
    tmp_path: Path,
) -> None:
    (configmap,) = [c for c in render("config-files") if c["kind"] == "ConfigMap"]
    data = configmap["data"]
    assert set(data) == {"promoflow.yaml", "promoflow-manifest.json"}
    for key, text in data.items():
        (tmp_path / key).write_text(text)
    _, problems = load_config(tmp_path)
    assert not [p for p in problems if "manifest" in p.message], problems
    (tmp_path / "promoflow.yaml").write_text("kind: Product\n# changed\n")
    _, problems = load_config(tmp_path)
    assert any("changed since it was packed" in p.message for p in problems)
