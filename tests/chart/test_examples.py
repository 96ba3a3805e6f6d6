"""The example values files docs/install.md points at: each renders with the real
``helm`` (lint, strict schema) into valid objects, and each is what its name promises."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.chart.readme import CHART
from tests.chart.rendering import NAMESPACE, RELEASE, helm
from tests.chart.schemas import validate

EXAMPLES = CHART / "examples"


def _render(name: str) -> list[dict[str, Any]]:
    values = str(EXAMPLES / name)
    linted = helm("lint", "--strict", str(CHART), "-f", values, check=False)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    out = helm("template", RELEASE, str(CHART), "-n", NAMESPACE, "-f", values).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def _one(objects: list[dict[str, Any]], kind: str, component: str) -> dict[str, Any]:
    [found] = [
        o
        for o in objects
        if o["kind"] == kind and o["metadata"]["labels"]["app.kubernetes.io/component"] == component
    ]
    return found


@pytest.mark.parametrize("name", ["values-minimal.yaml", "values-ha.yaml"])
def test_each_example_renders_valid_objects_with_your_image(name: str) -> None:
    objects = _render(name)
    assert [p for o in objects for p in validate(o)] == []
    images = {
        c["image"]
        for o in objects
        if o["kind"] in ("Deployment", "StatefulSet", "Job")
        for c in o["spec"]["template"]["spec"]["containers"]
    }
    assert images == {"registry.example.com/platform/promoflow:0.1.0"}
    assert _one(objects, "Pod", "doctor")["metadata"]["annotations"]["helm.sh/hook"] == "test"


def test_the_minimal_example_runs_one_of_each() -> None:
    objects = _render("values-minimal.yaml")
    assert _one(objects, "Deployment", "webhooks")["spec"]["replicas"] == 1
    assert _one(objects, "StatefulSet", "reporters")["spec"]["replicas"] == 1


def test_the_ha_example_spreads_replicas_and_keeps_the_stores() -> None:
    objects = _render("values-ha.yaml")
    webhooks = _one(objects, "Deployment", "webhooks")
    reporters = _one(objects, "StatefulSet", "reporters")
    assert webhooks["spec"]["replicas"] >= 2 and reporters["spec"]["replicas"] >= 2
    for workload in (webhooks, reporters):
        spec = workload["spec"]
        term = spec["template"]["spec"]["affinity"]["podAntiAffinity"][
            "preferredDuringSchedulingIgnoredDuringExecution"
        ][0]["podAffinityTerm"]
        # the anti-affinity selects the workload's own pods
        assert (
            term["labelSelector"]["matchLabels"].items() <= spec["selector"]["matchLabels"].items()
        )
    assert reporters["spec"]["volumeClaimTemplates"]
    assert _one(objects, "PodDisruptionBudget", "reporters")["spec"]["maxUnavailable"] == 1
    assert _one(objects, "Ingress", "webhooks")["spec"]["tls"]
