"""The deploy gate (``promoflow step wait-argocd``) against a real Argo CD, both ways in.

Every scenario runs twice: through the Argo CD API server (``ARGOCD_SERVER``, the event
stream) and through the Kubernetes API (``PROMOFLOW_ARGOCD_ACCESS=kubernetes``, a watch on
the Application objects). The README promises the same decisions either way; here the
real application controller produces the states instead of a simulator: a pushed commit it
has not noticed yet, a status that stays Healthy at an older commit, a sync the API server
refuses, and a Deployment whose pods never turn Ready.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from kubernetes import client

from tests.e2e.conftest import DeployedApp
from tests.e2e.k8s import Apps, api_client, configmap, deployment, wait_until
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import Ran, api_env, kube_env, run

pytestmark = pytest.mark.e2e

ACCESS = ["api", "kubernetes"]


def gate_env(e2e: E2ESettings, access: str) -> dict[str, str]:
    return api_env(e2e) if access == "api" else kube_env(e2e)


def wait_argocd(e2e: E2ESettings, access: str, app: str, revision: str, *args: str) -> Ran:
    return run(
        "step", "wait-argocd", "--app", app, "--revision", revision, *args,
        env=gate_env(e2e, access), timeout=e2e.timeout + 120,
    )  # fmt: skip


@pytest.mark.parametrize("access", ACCESS)
def test_returns_once_argocd_runs_the_pushed_commit(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp], access: str
) -> None:
    """Pushed, then waited for at once: Argo CD has not looked yet, the gate must wait
    for the sync of exactly this commit and return only when it is Healthy."""
    app = deployed()
    new = app.commit(
        {"configmap.yaml": configmap(app.name, "2"), "deployment.yaml": deployment(app.name, "2")}
    )
    before = apps.status(app.name)
    assert before["sync"]["revision"] == app.first  # the gate starts on the old state

    done = wait_argocd(e2e, access, app.name, new, "--timeout", "3m")

    assert done.code == 0, done
    assert "Traceback" not in done.stderr
    result = done.json()
    assert result["state"] == "deployed" and result["revision"] == new
    status = apps.status(app.name)
    assert status["sync"] == {**status["sync"], "status": "Synced", "revision": new}
    assert status["health"]["status"] == "Healthy"
    operation = status["operationState"]
    assert operation["phase"] == "Succeeded" and operation["syncResult"]["revision"] == new
    deployed_now = client.AppsV1Api(api_client(e2e)).read_namespaced_deployment(
        app.name, app.namespace
    )
    assert deployed_now.spec.template.metadata.annotations["version"] == "2"


@pytest.mark.parametrize("access", ACCESS)
def test_healthy_at_the_previous_commit_is_not_deployed(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp], access: str
) -> None:
    """A status that says Synced and Healthy, but at the commit before the promoted one
    (the app is pinned there, so Argo CD will never run the new one): the gate must time
    out naming both commits, never pass on the old commit's health."""
    app = deployed(with_deployment=False)
    apps.api.patch_namespaced_custom_object(
        "argoproj.io", "v1alpha1", e2e.argocd_namespace, "applications", app.name,
        {"spec": {"source": {"targetRevision": app.first}}},
    )  # fmt: skip
    new = app.commit({"configmap.yaml": configmap(app.name, "2")})

    done = wait_argocd(e2e, access, app.name, new, "--sync-timeout", "20s")

    assert done.code == 1, done
    result = done.json()
    assert result["state"] == "timeout"
    reason = result["apps"][0]["reason"]
    assert f"Synced at {app.first[:12]}" in reason and f"waiting for {new[:12]}" in reason
    assert "timed out" in done.stderr
    status = apps.status(app.name)
    assert status["sync"]["revision"] == app.first and status["health"]["status"] == "Healthy"


@pytest.mark.parametrize("access", ACCESS)
def test_a_manual_app_is_synced_by_the_gate(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp], access: str
) -> None:
    """No automated sync policy: the gate starts the sync of the promoted commit itself
    (API: ``POST .../sync``; Kubernetes: the ``operation`` field) and waits for it."""
    app = deployed(automated=False, with_deployment=False)
    new = app.commit({"configmap.yaml": configmap(app.name, "2")})

    done = wait_argocd(e2e, access, app.name, new, "--timeout", "90s")

    operation = apps.status(app.name).get("operationState") or {}
    assert done.code == 0, done
    assert operation["operation"]["sync"]["revision"] == new
    assert operation["phase"] == "Succeeded" and operation["syncResult"]["revision"] == new
    initiated = operation["operation"]["initiatedBy"]
    assert initiated.get("username") and not initiated.get("automated")


def test_a_manual_app_argocd_already_compared_is_synced(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp]
) -> None:
    """Argo CD may compare the new commit before the gate starts (a Git webhook, or its
    own resync): the app then reads OutOfSync *at the promoted commit*, which is still not
    deployed. The gate must sync it all the same (Kubernetes access; through the API
    server the gate's own hard refresh always gets it into this state)."""
    app = deployed(automated=False, with_deployment=False)
    new = app.commit({"configmap.yaml": configmap(app.name, "2")})
    apps.api.patch_namespaced_custom_object(
        "argoproj.io", "v1alpha1", e2e.argocd_namespace, "applications", app.name,
        {"metadata": {"annotations": {"argocd.argoproj.io/refresh": "hard"}}},
    )  # fmt: skip

    def compared() -> bool:
        sync = apps.status(app.name).get("sync") or {}
        return sync.get("revision") == new and sync.get("status") == "OutOfSync"

    wait_until("Argo CD compared the new commit", compared, 60)
    assert apps.status(app.name)["operationState"]["syncResult"]["revision"] == app.first

    done = wait_argocd(e2e, "kubernetes", app.name, new, "--timeout", "90s")

    operation = apps.status(app.name)["operationState"]
    assert operation["syncResult"]["revision"] == new, done
    assert done.code == 0, done


def test_the_sync_the_gate_starts_is_the_one_argocd_would_start(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp]
) -> None:
    """Through Kubernetes the gate writes the ``operation`` field itself; the README says
    it writes what the argocd CLI's core mode writes. That mode runs the API server's own
    Sync, which copies the app's current ``syncPolicy.syncOptions`` (and ``retry``) into
    the operation (server/application/application.go). The gate writes only the revision,
    and Argo CD's controller then reuses the options of the app's *previous* sync: options
    added since are ignored, and an app never synced before gets none at all (its first
    promotion with ``CreateNamespace=true`` fails: ``namespaces "..." not found``)."""
    app = deployed(automated=False, with_deployment=False)
    options = ["CreateNamespace=true", "PruneLast=true"]
    apps.api.patch_namespaced_custom_object(
        "argoproj.io", "v1alpha1", e2e.argocd_namespace, "applications", app.name,
        {"spec": {"syncPolicy": {"syncOptions": options}}},
    )  # fmt: skip
    new = app.commit({"configmap.yaml": configmap(app.name, "2")})

    done = wait_argocd(e2e, "kubernetes", app.name, new, "--timeout", "90s")

    assert done.code == 0, done
    operation = apps.status(app.name)["operationState"]["operation"]
    assert operation["sync"]["revision"] == new
    assert operation["sync"].get("syncOptions") == options, operation


@pytest.mark.parametrize("access", ACCESS)
def test_a_sync_argocd_gives_up_on_fails_the_gate_with_the_reason(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp], access: str
) -> None:
    """The promoted commit holds a manifest the Kubernetes API server rejects; Argo CD's
    automated sync of it fails (one retry, then it gives up), and the gate exits 1 with
    Argo CD's reason as soon as that happens, not at its timeout."""
    app = deployed(with_deployment=False)
    apps.api.patch_namespaced_custom_object(
        "argoproj.io", "v1alpha1", e2e.argocd_namespace, "applications", app.name,
        {"spec": {"syncPolicy": {"retry": {"limit": 1, "backoff": {"duration": "1s"}}}}},
    )  # fmt: skip
    bad = configmap(app.name, "2").replace(f"name: {app.name}", "name: Not_A_Valid_Name")
    new = app.commit({"configmap.yaml": bad})

    done = wait_argocd(e2e, access, app.name, new, "--timeout", "3m")

    assert done.code == 1, done
    result = done.json()
    assert result["state"] == "failed", done
    reason = result["apps"][0]["reason"]
    assert reason.startswith(f"sync of {new[:12]} failed"), reason
    assert "Not_A_Valid_Name" in reason and "is invalid" in reason, reason
    assert done.seconds < 90, done
    assert apps.status(app.name)["operationState"]["phase"] == "Failed"


@pytest.mark.parametrize("access", ACCESS)
def test_a_sync_argocd_keeps_retrying_is_reported_with_its_reason(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp], access: str
) -> None:
    """Argo CD 3 retries a failed automated sync (``retry.limit`` 5 by default, backing
    off for minutes); meanwhile the operation stays Running and its message carries the
    reason ("one or more objects failed to apply, reason: ... Retrying attempt #N"). A gate
    that ends before Argo CD gives up must still say why nothing was deployed."""
    app = deployed(with_deployment=False)
    bad = configmap(app.name, "2").replace(f"name: {app.name}", "name: Not_A_Valid_Name")
    new = app.commit({"configmap.yaml": bad})

    done = wait_argocd(e2e, access, app.name, new, "--timeout", "45s")

    assert done.code == 1, done
    operation = apps.status(app.name)["operationState"]
    assert operation["phase"] == "Running" and "Retrying attempt" in operation["message"]
    reason = done.json()["apps"][0]["reason"]
    assert "Not_A_Valid_Name" in reason, reason


@pytest.mark.parametrize("access", ACCESS)
def test_degraded_after_the_commit_fails_at_once(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp], access: str
) -> None:
    """The promoted commit's pods never turn Ready: the Deployment controller reports
    ProgressDeadlineExceeded after 10 s, Argo CD turns the app Degraded, and the gate
    fails then (README: "fails at once ... when health turns Degraded after the commit was
    applied"), well before its 3-minute health timeout."""
    app = deployed()
    unready = deployment(app.name, "2", unready=True, progress_deadline=10)
    new = app.commit({"deployment.yaml": unready})

    done = wait_argocd(e2e, access, app.name, new, "--timeout", "3m")

    assert done.code == 1, done
    result = done.json()
    assert result["state"] == "failed", result
    assert done.seconds < 90, done.seconds
    assert apps.status(app.name)["health"]["status"] == "Degraded"
    reason = result["apps"][0]["reason"]
    assert reason.startswith(f"Degraded after {new[:12]} was applied"), reason
    # The reason: Argo CD 3 keeps resource health in the resource tree only
    # (status.resourceHealthSource: appTree), so the app's status has no message. The API
    # serves the tree; the Kubernetes API does not, and the gate says where to look.
    if access == "api":
        assert f'Deployment "{app.name}" exceeded its progress deadline' in reason, reason
    else:
        assert "resource tree" in reason and "ARGOCD_SERVER" in reason, reason


@pytest.mark.parametrize("access", ACCESS)
def test_progressing_until_the_health_timeout(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp], access: str
) -> None:
    """Synced at the commit but never Healthy (pods unready, long progress deadline): the
    health timeout, which starts once the app is Synced, ends the wait with the health
    message Argo CD reports."""
    app = deployed()
    new = app.commit({"deployment.yaml": deployment(app.name, "2", unready=True)})
    started = time.monotonic()

    done = wait_argocd(
        e2e, access, app.name, new, "--sync-timeout", "2m", "--health-timeout", "15s"
    )

    assert done.code == 1, done
    result = done.json()
    assert result["state"] == "timeout"
    reason = result["apps"][0]["reason"]
    assert reason.startswith("Progressing"), reason
    assert 15 <= time.monotonic() - started < 120
    status = apps.status(app.name)
    assert status["sync"]["revision"] == new and status["health"]["status"] == "Progressing"


def test_selector_waits_for_every_matching_app(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp]
) -> None:
    """``--selector``: the gate lists the apps by label through the API server and waits
    until each of them runs the commit (two apps on one branch of one repository)."""
    first = deployed(with_deployment=False)
    label = f"promoflow.dev/e2e-group={first.name}"
    second_name = f"{first.name}-b"
    first.repo.commit({"b/configmap.yaml": configmap(second_name, "1")})
    apps.create(second_name, first.repo.url, "b", first.repo.branch, first.namespace)
    for name in (first.name, second_name):
        apps.api.patch_namespaced_custom_object(
            "argoproj.io", "v1alpha1", e2e.argocd_namespace, "applications", name,
            {"metadata": {"labels": {"promoflow.dev/e2e-group": first.name}}},
        )  # fmt: skip
    new = first.repo.commit(
        {"app/configmap.yaml": configmap(first.name, "2"), "b/configmap.yaml": configmap(
            second_name, "2")}
    )  # fmt: skip

    done = run(
        "step", "wait-argocd", "--selector", label, "--revision", new, "--timeout", "2m",
        env=api_env(e2e), timeout=e2e.timeout + 60,
    )  # fmt: skip

    assert done.code == 0, done
    assert sorted(a["app"] for a in done.json()["apps"]) == sorted([first.name, second_name])
    for name in (first.name, second_name):
        assert apps.status(name)["sync"]["revision"] == new
    assert json.loads(done.stdout)["state"] == "deployed"


def test_a_selector_argocd_cannot_parse_is_not_retried(e2e: E2ESettings) -> None:
    """A typo in ``--selector``: Argo CD answers 500 (gRPC Unknown, "error parsing the
    selector: ..."). Exit 75 would have the workflow retry a request that cannot succeed;
    the gate must fail (1, or 2 as a usage error) and say what Argo CD could not parse."""
    done = run(
        "step", "wait-argocd", "--selector", "promoflow.dev/product in (", "--revision", "0" * 40,
        "--timeout", "20s", env=api_env(e2e), timeout=120,
    )  # fmt: skip

    assert done.code in (1, 2), done
    assert "selector" in done.stderr and "pars" in done.stderr, done
