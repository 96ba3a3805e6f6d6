"""``promoflow step wait-argocd --image``: the real command against the Argo CD simulator over
real HTTP, through the Argo CD API and through the Kubernetes API (the harness of
test_wait_scenarios.py).

Once the app is Synced at the commit and Healthy it must run the promoted image: shown in
``status.summary.images``, or, when Argo CD lists no pod running it, in its workload's pod
template (the API's managed resources; the Kubernetes API's Deployment).
"""

from __future__ import annotations

import pytest

from tests.contract.argocd_support import SHA
from tests.support.wait_scenarios import SHORT, Action, Harness, Run, harness, log_of, servers

__all__ = ["harness", "servers"]  # the fixtures, shared

WEB = "registry.example.com/shop"
SOURCE = "values.yaml image.tag"


def _run(harness: Harness, image: str, *script: Action) -> Run:
    return harness.run(
        "--app", "shop-dev", "--revision", SHA, "--image", image, "--image-source", SOURCE,
        script=list(script),
    )  # fmt: skip


def test_the_promoted_image_in_the_summary_passes(harness: Harness) -> None:
    sim = harness.sim
    run = _run(
        harness,
        f"{WEB}:2.0.0",
        lambda: sim.set_images("shop-dev", [f"{WEB}:2.0.0", "docker.io/library/busybox:1.36"]),
        lambda: sim.deploy("shop-dev", SHA),
    )
    assert run.code == 0, run.stderr
    result = run.result
    assert result["image"] == f"{WEB}:2.0.0"
    assert result["apps"][0]["reason"] == f"Synced at {SHORT} and Healthy, runs {WEB}:2.0.0"
    assert not any("managed-resources" in r or "/deployments/" in r for r in harness.requests())


def test_a_chart_that_ignores_the_promoted_value_fails_the_gate(harness: Harness) -> None:
    """Healthy at the commit, but the pods (and the Deployment) still run the old tag."""
    sim = harness.sim
    run = _run(harness, f"{WEB}:2.0.0", lambda: sim.deploy("shop-dev", SHA))
    assert run.code == 1
    message = f"shop-dev reports Healthy but runs {WEB}:1.0.0, not :2.0.0 ({SOURCE})"
    assert run.message == message
    assert run.result["state"] == "failed"
    assert run.termination.read_text() == message
    read = "managed-resources" if harness.mode == "api" else "/deployments/shop-dev"
    assert any(read in r for r in harness.requests())  # the workload was asked too
    assert "shop-dev: deployed" not in "\n".join(log_of(run))


def test_pods_argocd_does_not_list_yet_are_found_in_the_workload(harness: Harness) -> None:
    sim = harness.sim
    run = _run(
        harness,
        f"{WEB}:2.0.0",
        lambda: sim.set_images("shop-dev", [f"{WEB}:2.0.0"], pods=False),
        lambda: sim.deploy("shop-dev", SHA),
    )
    assert run.code == 0, run.stderr
    reason = run.result["apps"][0]["reason"]
    assert reason.endswith(f"runs {WEB}:2.0.0")


def test_the_rollout_that_shows_the_image_after_healthy_passes(harness: Harness) -> None:
    """Reported Healthy while the previous pods are still listed, then the new ones."""
    sim = harness.sim
    run = _run(
        harness,
        f"{WEB}:2.0.0",
        lambda: sim.deploy("shop-dev", SHA),
        lambda: sim.set_images("shop-dev", [f"{WEB}:2.0.0"]),
    )
    assert run.code == 0, run.stderr


@pytest.mark.parametrize("image", ["not an image", "ghcr.io/acme/web:"])
def test_an_image_that_is_no_reference_is_a_usage_error(harness: Harness, image: str) -> None:
    run = _run(harness, image)
    assert run.code == 2
    assert "--image" in run.stderr and "is not an image reference" in run.stderr


def test_an_app_in_another_cluster_says_its_workloads_were_not_read(harness: Harness) -> None:
    """Through the Kubernetes API the gate reads only its own cluster's workloads."""
    sim = harness.sim

    def elsewhere() -> None:
        sim.update(
            "shop-dev",
            lambda a: a["spec"]["destination"].update(server="https://prod.example.com"),
        )
        sim.deploy("shop-dev", SHA)

    run = _run(harness, f"{WEB}:2.0.0", elsewhere)
    assert run.code == 1
    message = run.message
    assert message.startswith(f"shop-dev reports Healthy but runs {WEB}:1.0.0, not :2.0.0")
    if harness.mode == "kubernetes":
        assert message.endswith(
            "; its workloads could not be read: shop-dev deploys to https://prod.example.com, "
            "and the gate reads this cluster's Kubernetes API (give it ARGOCD_SERVER)"
        )
