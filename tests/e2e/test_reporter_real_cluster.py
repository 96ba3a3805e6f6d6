"""The reporter against the real Kubernetes API server and Argo CD.

What tests/reporters checks against the fake API server is checked here against the real
one, with the real Argo CD controller writing the Applications: a commit that Argo CD syncs
is reported as started, succeeded, synced and deployed at that commit, once each and in
that order; the controller's reconcile churn afterwards is not reported; and a reporter
restarted on the same store lists the apps again and reports nothing new.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from reporters.runtime import Reporter
from reporters.sinks.delivery import Policy
from reporters.state.store import Store
from reporters.watch.watcher import Watcher
from tests.e2e.conftest import DeployedApp
from tests.e2e.k8s import api_client, configmap, deployment, wait_until
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e


class Memory:
    name = "memory"

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def send(self, event: dict[str, Any]) -> None:
        with self.lock:
            self.events.append(event)

    def of(self, app: str) -> list[dict[str, Any]]:
        with self.lock:
            return [e for e in self.events if e["subject"].endswith(f"/{app}")]


@contextmanager
def reporting(
    e2e: E2ESettings, state: Path, sink: Memory, *, replicasets: bool = False
) -> Iterator[Reporter]:
    api = client.CustomObjectsApi(api_client(e2e))
    watcher = Watcher(api, e2e.argocd_namespace, watch_seconds=30)
    others = (
        [Watcher(api, "", ("apps", "v1", "replicasets"), "replicasets:", watch_seconds=30)]
        if replicasets
        else []
    )
    reporter = Reporter(watcher, Store(state), sinks=[sink], others=others)  # type: ignore[list-item]
    for delivery in reporter.deliveries:
        delivery.policy = Policy(base=0.05)
    runner = threading.Thread(target=reporter.run)
    runner.start()
    try:
        yield reporter
    finally:
        reporter.stop()
        runner.join(30)


def test_a_sync_is_reported_once_in_order_and_churn_and_restarts_add_nothing(
    e2e: E2ESettings, deployed: Callable[..., DeployedApp], tmp_path: Path
) -> None:
    app = deployed(with_deployment=False)
    sink = Memory()
    state = tmp_path / "state.db"
    with reporting(e2e, state, sink):
        wait_until("the app is listed", lambda: sink.of(app.name) or None, 60)
        second = app.commit({"configmap.yaml": configmap(app.name, "2")}, "second")

        def deployed_at_second() -> list[dict[str, Any]] | None:
            events = sink.of(app.name)
            done = [
                e for e in events if e["type"] == "app.deployed" and e["data"]["revision"] == second
            ]
            return events if done else None

        events = wait_until(
            f"{app.name} reported deployed at {second[:12]}", deployed_at_second, e2e.timeout
        )
        time.sleep(15)  # the controller reconciles the app meanwhile: nothing more to say
        after = sink.of(app.name)
    kinds = [
        e["type"]
        for e in after
        if e["data"].get("revision") == second or e["type"].startswith("app.sync")
    ]
    assert kinds.index("app.synced") < kinds.index("app.deployed")
    assert [k for k in kinds if k == "app.deployed"] == ["app.deployed"]
    assert after[len(events) :] == []  # reconcile churn reported nothing
    ids = [e["id"] for e in sink.events]
    assert len(ids) == len(set(ids))

    again = Memory()
    with reporting(e2e, state, again):
        time.sleep(5)  # listed, compared with the store
    assert again.of(app.name) == []


def test_replicasets_are_reported_as_their_apps_with_images_and_ready_counts(
    e2e: E2ESettings, deployed: Callable[..., DeployedApp], tmp_path: Path
) -> None:
    """The real Deployment controller makes the ReplicaSets; Argo CD lists the Deployment
    among the app's resources; the reporter joins the two."""
    app = deployed(with_deployment=True)
    sink = Memory()
    with reporting(e2e, tmp_path / "state.db", sink, replicasets=True):
        wait_until("the app is listed", lambda: sink.of(app.name) or None, 60)
        second = app.commit(
            {
                "deployment.yaml": deployment(app.name, "2"),
                "configmap.yaml": configmap(app.name, "2"),
            },
            "second",
        )

        def rolled_out() -> list[dict[str, Any]] | None:
            events = sink.of(app.name)
            ready = [
                e for e in events
                if e["type"] == "replicaset.ready"
                and [i["tag"] for i in e["data"]["images"]] == ["2"]
            ]  # fmt: skip
            deployed_ = [
                e for e in events
                if e["type"] == "app.deployed" and e["data"]["revision"] == second
            ]  # fmt: skip
            return events if ready and deployed_ else None

        events = wait_until(f"{app.name} rolled out at {second[:12]}", rolled_out, e2e.timeout)
    ready = [e for e in events if e["type"] == "replicaset.ready"][-1]
    assert ready["subject"] == f"{e2e.argocd_namespace}/{app.name}"
    assert ready["data"]["workload"] == f"Deployment/{app.name}"
    assert ready["data"]["ready"] == ready["data"]["replicas"] >= 1
    [image] = ready["data"]["images"]
    assert image["name"] == f"registry.invalid/{app.name}" and image["tag"] == "2"
    kinds = [e["type"] for e in events if e["type"].startswith("replicaset.")]
    assert "replicaset.scaled-down" in kinds  # the first version's set, emptied
    # pods become ready one at a time; the reporter says so once per state, not per pod
    assert kinds.count("replicaset.ready") <= 3


def test_a_watch_resumed_from_an_expired_version_relists_and_reports_what_went_meanwhile(
    e2e: E2ESettings, deployed: Callable[..., DeployedApp]
) -> None:
    """The real API server answers a watch from a version it no longer has with 410 Gone
    (an ERROR event, reason Expired): the watcher lists again and reports the app that
    went while it was away as deleted, and the one still there as it is now."""
    app = deployed(with_deployment=False)
    api = client.CustomObjectsApi(api_client(e2e))
    namespace = e2e.argocd_namespace
    ghost = f"{namespace}/pfe2e-deleted-while-away"
    watcher = Watcher(api, namespace, watch_seconds=5)
    watcher.informer.resource_version = "1"  # a version the API server no longer has
    watcher.informer.known = {ghost, f"{namespace}/{app.name}"}
    seen: dict[str, Any] = {}
    stopping = threading.Event()

    def read() -> None:
        for key, obj in watcher.changes(stop=stopping.is_set):
            seen[key] = obj

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_until(
            "the relist", lambda: (ghost in seen and f"{namespace}/{app.name}" in seen) or None, 60
        )
    finally:
        stopping.set()
        reader.join(30)
    assert seen[ghost] is None
    assert seen[f"{namespace}/{app.name}"]["metadata"]["name"] == app.name
    assert watcher.stats.relists == 1 and watcher.stats.errors == 0
