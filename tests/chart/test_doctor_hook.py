"""The chart's test (``helm test``): ``promoflow doctor`` in a Pod with the webhook
service's settings, and a Role that may read only what the doctor checks, by name."""

from __future__ import annotations

from typing import Any

import yaml

from tests.chart.readme import CHART
from tests.chart.rendering import BASE, NAMESPACE, RELEASE, helm


def _doctor(*values: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    sets = [arg for value in values for arg in ("--set", value)]
    out = helm("template", RELEASE, str(CHART), "-n", NAMESPACE, *sets).stdout
    rendered = [d for d in yaml.safe_load_all(out) if d]
    pods = [o for o in rendered if o["kind"] == "Pod" and o["metadata"]["name"].endswith("doctor")]
    roles = [
        o for o in rendered if o["kind"] == "Role" and o["metadata"]["name"].endswith("doctor")
    ]
    return (pods[0] if pods else None), (roles[0] if roles else None)


def _env(pod: dict[str, Any]) -> dict[str, Any]:
    return {
        e["name"]: e.get("value", e.get("valueFrom")) for e in pod["spec"]["containers"][0]["env"]
    }


def test_the_doctor_runs_as_a_test_hook_with_the_services_settings() -> None:
    pod, role = _doctor(
        *BASE, "secrets.reportToken=team-report", "webhooks.providers={github,gitlab}"
    )
    assert pod is not None and role is not None
    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    container = pod["spec"]["containers"][0]
    assert container["args"] == ["doctor", "--config=/etc/promoflow/config"]
    env = _env(pod)
    assert env["PROMOFLOW_WEBHOOK_PROVIDERS"] == "github,gitlab"
    assert env["PROMOFLOW_WEBHOOK_GITLAB_SECRET_FILE"] == "/etc/promoflow/webhooks/gitlab"
    assert env["ARGOCD_AUTH_TOKEN"]["secretKeyRef"]["name"] == "promoflow-argocd"
    assert env["GIT_TOKEN"]["secretKeyRef"]["name"] == "promoflow-git"
    assert env["PROMOFLOW_REPORT_SECRET"] == "team-report"
    assert env["ARGO_TOKEN_FILE"] == "/var/run/secrets/kubernetes.io/serviceaccount/token"
    secrets = next(r for r in role["rules"] if r["resources"] == ["secrets"])
    assert secrets["resourceNames"] == ["promoflow-git", "promoflow-argocd", "team-report"]
    assert secrets["verbs"] == ["get"]
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    assert volumes["config"]["configMap"]["name"] == "promoflow-config"


def test_the_doctor_can_be_turned_off_and_follows_the_webhooks() -> None:
    assert _doctor(*BASE, "doctor.enabled=false") == (None, None)
    pod, _ = _doctor(*BASE, "webhooks.enabled=false")
    assert pod is not None
    assert "PROMOFLOW_WEBHOOK_PROVIDERS" not in _env(pod)


def test_the_doctor_is_placed_by_its_own_node_selector_and_tolerations() -> None:
    """Where the services' pods need a particular node (``hostNetwork`` on a node that
    reaches the servers), the test Pod does too; unset, it is placed anywhere."""
    pod, _ = _doctor(*BASE)
    assert pod is not None
    assert "nodeSelector" not in pod["spec"] and "tolerations" not in pod["spec"]
    pod, _ = _doctor(
        *BASE,
        "doctor.nodeSelector.pool=tools",
        "doctor.tolerations[0].key=pool",
        "doctor.tolerations[0].operator=Exists",
        "doctor.tolerations[0].effect=NoSchedule",
    )
    assert pod is not None
    assert pod["spec"]["nodeSelector"] == {"pool": "tools"}
    assert pod["spec"]["tolerations"] == [
        {"key": "pool", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_the_schema_refuses_a_node_selector_that_is_not_strings() -> None:
    done = helm(
        "template", RELEASE, str(CHART), "-n", NAMESPACE,
        *[a for v in BASE for a in ("--set", v)],
        "--set-json", 'doctor.nodeSelector={"pool":1}', check=False,
    )  # fmt: skip
    assert done.returncode != 0
    assert "/doctor/nodeSelector/pool" in done.stderr, done.stderr
