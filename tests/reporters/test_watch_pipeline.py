"""The reporter's watch and pipeline against the fake Kubernetes API over real HTTP,
driven by the real kubernetes client: a burst with a dropped connection and a 410 in the
middle loses no final state, deletions made while compacted are still told, and only
real transitions come out."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from orchestrator.adapters import informer
from orchestrator.adapters.informer import Informer
from orchestrator.simulator.argocd import ArgoCDSimulator
from reporters.pipeline import Event, Pipeline
from reporters.queue import CoalescingQueue
from reporters.state.store import Store
from reporters.watch.watcher import Watcher
from tests.fakes.kube import FakeKubeAPI

REPO = "https://git.example.com/acme/gitops.git"
NEW = "c" * 40


@contextmanager
def reporting(
    sim: ArgoCDSimulator, kube: FakeKubeAPI, **watch: object
) -> Iterator[tuple[list[Event], Watcher, Pipeline]]:
    """Watch thread -> coalescing queue -> pipeline thread -> a list sink."""
    delivered: list[Event] = []
    queue: CoalescingQueue[dict | None] = CoalescingQueue(capacity=50)  # type: ignore[type-arg]
    done = threading.Event()
    with kube.serve() as served:
        configuration = client.Configuration()
        configuration.host = served.url
        api = client.CustomObjectsApi(client.ApiClient(configuration))
        watcher = Watcher(api, watch_seconds=1, sleep=lambda s: time.sleep(min(s, 0.05)), **watch)  # type: ignore[arg-type]
        pipeline = Pipeline(Store(), [], on_events=delivered.extend)

        def produce() -> None:
            for key, app in watcher.changes(stop=done.is_set):
                queue.put(key, app)

        def consume() -> None:
            while not done.is_set() or len(queue):
                item = queue.get(timeout=0.05)
                if item is not None:
                    pipeline.handle(*item)

        threads = [threading.Thread(target=produce), threading.Thread(target=consume)]
        for thread in threads:
            thread.start()
        try:
            yield delivered, watcher, pipeline
        finally:
            done.set()
            for thread in threads:
                thread.join(timeout=10)


def _until(check, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _last(delivered: list[Event], app: str, kind: str) -> Event | None:
    return next(
        (e for e in reversed(delivered) if e.change.app == app and e.change.type == kind), None
    )


def test_a_burst_with_a_drop_and_a_410_loses_no_final_state() -> None:
    sim = ArgoCDSimulator()
    names = [f"app-{i}" for i in range(20)]
    for name in names:
        sim.add_app(name, repo_url=REPO, path=name)
    kube = FakeKubeAPI(sim, bookmark_interval=0.2)
    with reporting(sim, kube) as (delivered, watcher, _):
        _until(
            lambda: len({e.change.app for e in delivered if e.change.type == "app.created"}) == 20
        )
        for i, name in enumerate(names):
            sim.deploy(name, NEW)
            time.sleep(0.15)  # the burst spans several watches (each lasts a second)
            if i == 7:
                kube.fail_next(1, 500)  # a dropped watch in the middle of the burst
            if i == 13:
                kube.expire_watch_history()
                kube.gone_next(1)
        sim.delete_app("app-19")
        _until(lambda: watcher.stats.relists >= 2 and watcher.stats.errors >= 1)
        _until(lambda: all(_last(delivered, f"argocd/{n}", "app.deployed") for n in names[:19]))
        _until(lambda: _last(delivered, "argocd/app-19", "app.deleted") is not None)
    for name in names[:19]:
        deployed = _last(delivered, f"argocd/{name}", "app.deployed")
        assert deployed is not None and deployed.change.revision == NEW
    ids = [e.id for e in delivered]
    assert len(ids) == len(set(ids))  # never the same change twice


def test_reconcile_churn_through_the_watch_emits_nothing() -> None:
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url=REPO, path="dev")
    kube = FakeKubeAPI(sim)
    with reporting(sim, kube) as (delivered, _, pipeline):
        _until(lambda: any(e.change.type == "app.created" for e in delivered))
        before = len(delivered)
        for _ in range(10):
            sim.reconcile("shop-dev")
        time.sleep(0.5)
        assert len(delivered) == before
        assert len(pipeline.seen) == 1


def test_only_the_owned_shard_is_reported() -> None:
    sim = ArgoCDSimulator()
    for i in range(30):
        sim.add_app(f"app-{i}", repo_url=REPO, path=f"p{i}")
    from reporters.watch.shards import owner

    mine = {f"argocd/app-{i}" for i in range(30) if owner(f"argocd/app-{i}", 3) == 1}
    kube = FakeKubeAPI(sim)
    with reporting(sim, kube, shard=1, replicas=3) as (delivered, _, _):
        _until(lambda: {e.change.app for e in delivered} == mine)
    assert 0 < len(mine) < 30


def test_a_watch_that_cannot_reach_the_api_says_why_once_per_reason() -> None:
    from kubernetes import client

    from orchestrator.simulator.serve import free_port

    configuration = client.Configuration()
    configuration.host = f"http://127.0.0.1:{free_port()}"  # nothing listens
    api = client.CustomObjectsApi(client.ApiClient(configuration))
    told: list[str] = []
    tries = iter(range(4))
    watcher = Watcher(api, "argocd", sleep=lambda s: None, log=told.append)
    for _ in watcher.changes(stop=lambda: next(tries, None) is None):
        pass
    assert watcher.stats.errors >= 3
    assert len(told) == 1  # the same reason again and again is said once
    assert told[0].startswith("watch of applications.argoproj.io in argocd failed: ")
    assert "Connection refused" in told[0] and "retrying with backoff" in told[0]


def test_the_list_is_read_a_page_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every app of a list longer than a page is reported, asked for page by page (a
    list of 10,000 whole apps decoded at once is what made the reporter's memory peak)."""
    monkeypatch.setattr(informer, "PAGE", 3)
    sim = ArgoCDSimulator()
    for i in range(8):
        sim.add_app(f"app-{i}", repo_url=REPO, path=f"p{i}")
    kube = FakeKubeAPI(sim)
    with reporting(sim, kube) as (delivered, watcher, _):
        _until(lambda: len({e.change.app for e in delivered}) == 8)
        _until(lambda: watcher.resource_version is not None)
    lists = [r for r in kube.requests if r.startswith("GET") and "watch=true" not in r]
    assert len(lists) == 3, lists
    assert all("limit=3" in r for r in lists) and all("continue=" in r for r in lists[1:])


class _Pages:
    """A list method whose continue token has expired by the second page."""

    def __init__(self) -> None:
        self.calls: list[dict[str, object]] = []
        self.items = [{"metadata": {"namespace": "argocd", "name": f"app-{i}"}} for i in range(5)]

    def list_cluster_custom_object(self, *args: object, **kwargs: object) -> dict[str, object]:
        self.calls.append(kwargs)
        if kwargs.get("_continue"):
            raise ApiException(status=410, reason="Expired")
        if kwargs.get("limit"):
            meta = {"resourceVersion": "41", "continue": "t"}
            return {"metadata": meta, "items": self.items[:2]}
        return {"metadata": {"resourceVersion": "42"}, "items": self.items}


def test_an_expired_page_lists_again_whole() -> None:
    """As client-go's pager: the rest of a list whose token expired is not lost, the list
    is read again whole (what came already comes again, as an update would)."""
    api = _Pages()
    found = Informer(api, ("argoproj.io", "v1alpha1", "applications"), known={"argocd/gone"})
    listed = list(found._relist())
    assert [k for k, _ in listed] == [
        "argocd/app-0", "argocd/app-1", *(f"argocd/app-{i}" for i in range(5)), "argocd/gone"
    ]  # fmt: skip
    assert listed[-1][1] is None  # not in the list: deleted meanwhile
    assert found.resource_version == "42"
    assert found.known == {f"argocd/app-{i}" for i in range(5)}
    assert [c.get("_continue") for c in api.calls] == [None, "t", None]
