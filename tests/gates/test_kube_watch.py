"""The gate's Kubernetes watch keeps its place on a quiet namespace.

etcd's resourceVersion is global: while the gate watches a quiet Argo CD namespace, other
namespaces move the version on and compaction drops the old ones. A watch that resumes from
the version of its first list then gets ``410 Gone`` and has to list again; with bookmarks
(``allowWatchBookmarks``, as the real API server sends them, checked against it in
tests/e2e/test_fakes_match_real_servers.py) it resumes from a version the server still has.
"""

from __future__ import annotations

import threading
import time

from kubernetes import client

from orchestrator.adapters.kube import KubeApplications
from orchestrator.simulator.argocd import ArgoCDSimulator
from tests.fakes.kube import FakeKubeAPI


def test_a_quiet_watch_resumes_from_its_last_bookmark_after_compaction() -> None:
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url="https://git.example.com/x.git", path="dev")
    sim.add_app("elsewhere", repo_url="https://git.example.com/x.git", path="other")
    sim.update("elsewhere", lambda app: app["metadata"].update(namespace="team-b"))
    kube = FakeKubeAPI(sim, bookmark_interval=0.2)

    def churn() -> None:  # another namespace changes (none sent to the gate), then rests
        for i in range(20):
            sim.set_health("elsewhere", ["Progressing", "Healthy"][i % 2])
            time.sleep(0.02)

    with kube.serve() as served:
        configuration = client.Configuration()
        configuration.host = served.url
        apps = KubeApplications(client.CustomObjectsApi(client.ApiClient(configuration)), "argocd")
        worker = threading.Thread(target=churn)
        worker.start()
        try:
            first = [a["metadata"]["name"] for a in apps.changes(["shop-dev"], timeout=2)]
        finally:
            worker.join()
        kube.expire_watch_history()  # every version before now is compacted
        again = list(apps.changes(["shop-dev"], timeout=1))
    assert first == ["shop-dev"] and again == []
    assert apps.resource_version == str(sim.resource_version)
    lists = [r for r in kube.requests if r.startswith("GET") and "watch=true" not in r]
    assert len(lists) == 1, kube.requests  # no 410, so no second list
    assert all("allowWatchBookmarks=true" in r for r in kube.requests if "watch=true" in r)


def test_an_app_deleted_while_the_watch_had_expired_is_reported_deleted() -> None:
    """The informer lists again after a 410 and compares with what it had seen: the
    gate hears of an app that went meanwhile instead of waiting for it until its
    deadline."""
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url="https://git.example.com/x.git", path="dev")
    kube = FakeKubeAPI(sim, bookmark_interval=0.2)
    with kube.serve() as served:
        configuration = client.Configuration()
        configuration.host = served.url
        apps = KubeApplications(client.CustomObjectsApi(client.ApiClient(configuration)), "argocd")
        first = list(apps.changes(["shop-dev"], timeout=1))
        sim.delete_app("shop-dev")
        kube.expire_watch_history()
        again = list(apps.changes(["shop-dev"], timeout=1))
    assert [a["metadata"]["name"] for a in first] == ["shop-dev"]
    assert again == [{"metadata": {"name": "shop-dev", "namespace": "argocd"}, "_deleted": True}]
