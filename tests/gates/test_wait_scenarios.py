"""``promoflow step wait-argocd`` end to end: the real command, as a subprocess, against the
Argo CD simulator served over real HTTP, through both access paths.

- ``api``: the Argo CD API server (``ARGOCD_SERVER`` host:port, ``--plaintext``, token);
- ``kubernetes``: Application objects through the Kubernetes API (the fake API server on
  the same state, ``PROMOFLOW_KUBE_API`` + ``PROMOFLOW_KUBE_TOKEN``).

A background thread moves the apps along once the step is watching (it has opened its
stream, or made its first request when polling), a few tenths of a second apart. Every run
checks the exit code, the one JSON line on stdout, that stderr explains the outcome, that
no token is ever printed and that nothing ended in a traceback.
"""

from __future__ import annotations

import time

import pytest

from tests.contract.argocd_support import NEXT, OLD, SHA
from tests.support.wait_scenarios import (
    GAP,
    MID,
    SHORT,
    Harness,
    harness,
    log_of,
    servers,
)

__all__ = ["harness", "servers"]  # fixtures, used by name


def test_synced_to_an_older_revision_first_then_to_sha(harness: Harness) -> None:
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[
            lambda: sim.set_sync("shop-dev", "OutOfSync", NEXT),
            lambda: sim.deploy("shop-dev", NEXT),  # another commit lands first: not ours
            lambda: sim.set_sync("shop-dev", "OutOfSync", SHA),
            lambda: sim.start_operation("shop-dev", SHA),
            lambda: sim.finish_operation("shop-dev"),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert run.result["state"] == "deployed" and run.result["revision"] == SHA
    assert run.result["apps"] == [
        {"app": "shop-dev", "state": "deployed", "reason": f"Synced at {SHORT} and Healthy"}
    ]
    log = log_of(run)
    assert f"shop-dev: waiting: Synced at {MID}, waiting for {SHORT}" in log
    assert "shop-dev: waiting: sync operation in progress (Running)" in log
    assert (run.outputs / "revision").read_text() == SHA
    assert run.termination.read_text() == f"shop-dev: Synced at {SHORT} and Healthy"


def test_a_sync_argocd_keeps_retrying_times_out_with_its_reason(harness: Harness) -> None:
    """Argo CD retries a failed sync with backoff; the operation stays Running and its
    message says why. The gate's timeout comes first: its reason must carry that message."""
    sim = harness.sim
    said = (
        'one or more objects failed to apply, reason: ConfigMap "Not_A_Valid_Name" is '
        "invalid: metadata.name: Invalid value. Retrying attempt #2 at 10:03AM."
    )

    def retrying() -> None:
        sim.start_operation("shop-dev", SHA)
        sim.update("shop-dev", lambda a: a["status"]["operationState"].update(message=said))

    run = harness.run("--app", "shop-dev", "--revision", SHA, "--timeout", "2s",
                      script=[retrying])  # fmt: skip
    assert run.code == 1
    reason = run.result["apps"][0]["reason"]
    assert reason == f"sync operation in progress (Running: {said})"


def test_stale_reconcile_after_the_sync_keeps_waiting(harness: Harness) -> None:
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[
            lambda: sim.start_operation("shop-dev", SHA),
            lambda: sim.finish_operation("shop-dev", reconcile=False),
            lambda: sim.set_sync("shop-dev", "Synced", SHA, reconcile=False),
            lambda: time.sleep(0.3),
            lambda: sim.reconcile("shop-dev"),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    log = log_of(run)
    stale = "shop-dev: waiting: status not reconciled since the sync finished"
    assert stale in log
    assert log.index(stale) < log.index(f"shop-dev: deployed: Synced at {SHORT} and Healthy")


def test_failed_sync_operation_fails_with_its_message(harness: Harness) -> None:
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[
            lambda: sim.start_operation("shop-dev", SHA),
            lambda: sim.finish_operation(
                "shop-dev", "Failed", "one or more objects failed to apply"
            ),
        ],
    )  # fmt: skip
    assert run.code == 1
    reason = f"shop-dev: sync of {SHORT} failed: one or more objects failed to apply"
    assert run.result["state"] == "failed"
    assert run.message == reason == run.termination.read_text()


def reported(harness: Harness, message: str) -> str:
    """Why an app is Degraded or Suspended, in the gate's final report on Argo CD 3, whose
    apps carry no health message: through the API, from the workload's node in the
    resource tree; through the Kubernetes API (no tree), where to find it."""
    if harness.mode == "api":
        return f"Deployment shop-dev/shop-dev: {message}"
    return (
        "the reason is in Argo CD's resource tree, which the Kubernetes API does not serve "
        "(see the app in Argo CD, or give the gate ARGOCD_SERVER)"
    )


def while_waiting(harness: Harness, message: str) -> str:
    """The same in progress lines: from the tree through the API, nothing otherwise."""
    return f": Deployment shop-dev/shop-dev: {message}" if harness.mode == "api" else ""


def test_healthy_app_turning_degraded_with_the_new_revision_fails(harness: Harness) -> None:
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[
            lambda: sim.deploy(
                "shop-dev", SHA, health="Degraded", message="Deployment exceeded its deadline"
            )
        ],
    )  # fmt: skip
    assert run.code == 1
    assert run.message == (
        f"shop-dev: Degraded after {SHORT} was applied: "
        + reported(harness, "Deployment exceeded its deadline")
    )


def test_degraded_without_a_message_says_which_resource_and_why(harness: Harness) -> None:
    """Argo CD 3 leaves the app's health without a message: the reason is in the resource
    tree (API) or, on older servers and through Kubernetes, on ``status.resources``."""
    sim = harness.sim
    reason = 'Deployment "web" exceeded its progress deadline'
    sim.set_resource_health("shop-dev", "Deployment", "shop/web", "Degraded", reason)
    sim.set_resource_health("shop-dev", "Service", "shop/web", "Healthy")

    def degrade() -> None:
        if harness.mode == "kubernetes":  # no resource tree through the Kubernetes API
            resources = sim.resource_tree("shop-dev")["nodes"]
            sim.update("shop-dev", lambda a: a["status"].update(resources=resources))
        sim.deploy("shop-dev", SHA, health="Degraded")

    run = harness.run("--app", "shop-dev", "--revision", SHA, script=[degrade])
    assert run.code == 1
    assert run.message == (
        f"shop-dev: Degraded after {SHORT} was applied: Deployment shop/web: {reason}"
    )


def test_progressing_then_degraded_fails(harness: Harness) -> None:
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[
            lambda: sim.deploy("shop-dev", SHA, health="Progressing"),
            lambda: sim.set_health("shop-dev", "Degraded", "CrashLoopBackOff"),
        ],
    )  # fmt: skip
    assert run.code == 1 and run.result["state"] == "failed"
    assert "shop-dev: waiting: Progressing" in log_of(run)
    assert run.message.endswith("was applied: " + reported(harness, "CrashLoopBackOff"))


def test_progressing_then_healthy_passes(harness: Harness) -> None:
    progressing_then_healthy(harness, stream=True)


@pytest.mark.parametrize("harness", ["api"], indirect=True)  # the same loop for any source
def test_progressing_then_healthy_passes_when_polling(harness: Harness) -> None:
    progressing_then_healthy(harness, stream=False)


def progressing_then_healthy(harness: Harness, stream: bool) -> None:
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        stream=stream,
        gap=GAP if stream else 0.6,  # each state outlives a poll
        script=[
            lambda: sim.deploy("shop-dev", SHA, health="Progressing", message="rolling out"),
            lambda: sim.set_health("shop-dev", "Healthy"),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    waiting = "shop-dev: waiting: Progressing"
    assert waiting + while_waiting(harness, "rolling out") in log_of(run)
    assert harness.streams() == (1 if stream else 0)


def test_multi_source_app_needs_every_source_at_sha(harness: Harness) -> None:
    sim = harness.sim
    sim.update("shop-prod", lambda a: a["spec"].update(syncPolicy={"automated": {}}))
    run = harness.run(
        "--app", "shop-prod", "--revision", SHA,
        script=[
            lambda: sim.deploy("shop-prod", SHA, revisions=[SHA, OLD]),
            lambda: sim.deploy("shop-prod", SHA, revisions=[SHA, SHA]),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert f"shop-prod: waiting: Synced at {SHORT}, {OLD[:12]}, waiting for {SHORT}" in log_of(run)
    assert sim.syncs == []  # automated: the step never asks for a sync


def test_manual_app_is_synced_by_the_step(harness: Harness) -> None:
    sim = harness.sim
    sim.update("cart-dev", lambda a: a["spec"].pop("syncPolicy"))
    run = harness.run(
        "--app", "cart-dev", "--revision", SHA,
        script=[
            lambda: sim.finish_operation("cart-dev"),
            lambda: sim.set_health("cart-dev", "Healthy"),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert [name for name, _ in sim.syncs] == ["cart-dev"]
    assert sim.syncs[0][1].get("revision") == SHA


def test_manual_app_compared_at_the_commit_is_still_synced(harness: Harness) -> None:
    """Argo CD's hard refresh compares a manual app with the new commit before it answers:
    ``sync.revision`` is the commit while the app is OutOfSync, nothing applied yet. That is
    behind, not deployed: the step must ask for the sync."""
    sim = harness.sim
    sim.update("cart-dev", lambda a: a["spec"].pop("syncPolicy"))
    sim.set_sync("cart-dev", "OutOfSync", SHA)
    run = harness.run(
        "--app", "cart-dev", "--revision", SHA,
        script=[
            lambda: sim.finish_operation("cart-dev"),
            lambda: sim.set_health("cart-dev", "Healthy"),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert [name for name, _ in sim.syncs] == ["cart-dev"]


def test_several_apps_by_selector(harness: Harness) -> None:
    sim = harness.sim
    run = harness.run(
        "--selector", "promoflow.dev/environment=dev", "--revision", SHA,
        script=[
            lambda: sim.deploy("shop-dev", SHA),
            lambda: sim.deploy("cart-dev", SHA, health="Progressing"),
            lambda: sim.set_health("cart-dev", "Healthy"),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert [a["app"] for a in run.result["apps"]] == ["cart-dev", "shop-dev"]
    assert "waiting for cart-dev, shop-dev to run" in run.stderr


def test_a_selector_that_does_not_parse_is_a_usage_error_before_any_request(
    harness: Harness,
) -> None:
    """A real Argo CD answers 500 to it, which would read as an outage and be retried until
    the deadline: the step refuses it first, as kubectl does."""
    run = harness.run("--selector", "promoflow.dev/product in shop", "--revision", SHA)
    assert run.code == 2, run.stderr
    assert "--selector" in run.stderr and "not a label selector" in run.stderr
    assert harness.requests() == []


def test_missing_app_fails_clearly(harness: Harness) -> None:
    run = harness.run("--app", "shop-qa", "--revision", SHA)
    assert run.code == 1
    assert run.message == (
        "application shop-qa: permission denied: the application does not exist, or the "
        "token's account may not do this (Argo CD answers 403 for both; check its RBAC)"
        if harness.mode == "api"
        else "shop-qa: application not found"
    )
    nothing = harness.run("--selector", "promoflow.dev/product=none", "--revision", SHA)
    assert nothing.code == 1 and "no applications match" in nothing.message


@pytest.mark.parametrize("token", ["", "not-the-token"], ids=["no-token", "wrong-token"])
def test_auth_failure_is_explained_without_the_token(harness: Harness, token: str) -> None:
    variable = "ARGOCD_AUTH_TOKEN" if harness.mode == "api" else "PROMOFLOW_KUBE_TOKEN"
    run = harness.run("--app", "shop-dev", "--revision", SHA, env={variable: token})
    assert run.code not in (0, 2)
    assert run.stdout == ""
    expected = "refused the token" if harness.mode == "api" else "refused the credentials"
    assert expected in run.message
    assert not token or token not in run.stderr


def test_server_errors_then_recovery(harness: Harness) -> None:
    harness.fail_next(3)
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[lambda: sim.deploy("shop-dev", SHA)],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert len(harness.requests()) >= 4


def test_server_that_keeps_failing_is_transient(harness: Harness) -> None:
    harness.fail_next(1000)
    run = harness.run("--app", "shop-dev", "--revision", SHA, timeout="500ms")
    assert run.code == 75
    assert "503" in run.message and run.stdout == ""


def test_stream_drop_mid_wait_resumes(harness: Harness) -> None:
    stream_drop(harness, None)


@pytest.mark.parametrize("harness", ["api"], indirect=True)  # an Argo CD API server thing
def test_stream_error_line_mid_wait_resumes(harness: Harness) -> None:
    stream_drop(harness, "transport is closing")


def stream_drop(harness: Harness, error: str | None) -> None:
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[
            lambda: sim.set_sync("shop-dev", "OutOfSync", SHA),
            lambda: sim.drop_streams(error),
            lambda: sim.start_operation("shop-dev", SHA),  # may happen while disconnected
            lambda: sim.finish_operation("shop-dev"),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert harness.streams() >= 2


@pytest.mark.parametrize("harness", ["kubernetes"], indirect=True)  # a Kubernetes watch thing
def test_watch_history_expired_mid_wait_resumes(harness: Harness) -> None:
    sim, kube = harness.sim, harness.kube

    def expire_and_drop() -> None:
        sim.set_sync("shop-dev", "OutOfSync", SHA)
        kube.gone_next(1)  # the version the step resumes from is compacted meanwhile
        sim.drop_streams()

    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[expire_and_drop, lambda: sim.deploy("shop-dev", SHA)],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    lists = [r for r in kube.requests if "watch=true" not in r and r.startswith("GET")]
    assert len(lists) >= 3  # get, first list, list again after 410


def test_suspended_is_waiting_then_healthy(harness: Harness) -> None:
    sim = harness.sim
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA,
        script=[
            lambda: sim.deploy("shop-dev", SHA, health="Suspended", message="Rollout is paused"),
            lambda: sim.set_health("shop-dev", "Healthy"),
        ],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    waiting = "shop-dev: waiting: Suspended"
    assert waiting + while_waiting(harness, "Rollout is paused") in log_of(run)


def test_suspended_until_the_health_timeout(harness: Harness) -> None:
    sim = harness.sim
    sim.deploy("shop-dev", SHA, health="Suspended", message="Rollout is paused")
    run = harness.run(
        "--app", "shop-dev", "--revision", SHA, "--health-timeout", "500ms", timeout=""
    )  # fmt: skip
    assert run.code == 1 and run.result["state"] == "timeout"
    assert run.message == "timed out: shop-dev: Suspended: " + reported(
        harness, "Rollout is paused"
    )
    assert 0.5 <= run.result["seconds"] < 5


def test_usage_errors_exit_2(harness: Harness) -> None:
    run = harness.run("--app", "shop-dev", "--selector", "a=b", "--revision", SHA)
    assert run.code == 2 and "either --app" in run.stderr
