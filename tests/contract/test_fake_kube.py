"""The fake Kubernetes API serves Applications the way the real API server does, as read
by the official ``kubernetes`` client (the one KubeSource uses) over real HTTP.

Objects are checked against the Application CRD schema (tests/refdata/argo-cd); errors
must be ``v1.Status`` bodies the client turns into ``ApiException`` with the right status.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from kubernetes import client, watch
from kubernetes.client.exceptions import ApiException

from orchestrator.gates.appsource import SourceError
from orchestrator.gates.sources import KubeSource
from orchestrator.simulator.argocd import REFRESH_ANNOTATION, ArgoCDSimulator
from orchestrator.simulator.serve import ServerThread
from tests.contract.argocd_support import SHA, check_app, on_next_request, populate
from tests.fakes.kube import FakeKubeAPI, merge_patch, parse_field_selector

TOKEN = "fake-kube-token"
GROUP, VERSION, NS, PLURAL = "argoproj.io", "v1alpha1", "argocd", "applications"


@pytest.fixture
def sim() -> ArgoCDSimulator:
    simulator = ArgoCDSimulator()
    populate(simulator)
    return simulator


@pytest.fixture
def kube(sim: ArgoCDSimulator) -> FakeKubeAPI:
    return FakeKubeAPI(sim, token=TOKEN)


@pytest.fixture
def server(kube: FakeKubeAPI) -> Iterator[ServerThread]:
    with kube.serve() as served:
        yield served


def custom_objects(url: str, token: str | None = TOKEN) -> Any:
    configuration = client.Configuration()
    configuration.host = url
    if token is not None:
        configuration.api_key = {"authorization": f"Bearer {token}"}
    return client.CustomObjectsApi(client.ApiClient(configuration))


@pytest.fixture
def api(server: ServerThread) -> Any:
    return custom_objects(server.url)


def on_watch(kube: FakeKubeAPI, *actions: Callable[[], object]) -> threading.Thread:
    """Run ``actions`` once the next watch is open."""
    return on_next_request(kube.requests, "watch=true", *actions)


def watch_events(api: Any, stopper: list[Any] | None = None, **kwargs: Any) -> Iterator[Any]:
    """``kubernetes.watch.Watch().stream`` over the namespace's Applications; the Watch is
    appended to ``stopper`` so a test can ``stop()`` it."""
    stream = watch.Watch()  # type: ignore[no-untyped-call]
    if stopper is not None:
        stopper.append(stream)
    events: Iterator[Any] = stream.stream(  # type: ignore[no-untyped-call]
        api.list_namespaced_custom_object, GROUP, VERSION, NS, PLURAL, **kwargs
    )
    return events


def status_of(exc: ApiException) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(exc.body or "{}")
    assert body["kind"] == "Status" and body["apiVersion"] == "v1"
    assert body["status"] == "Failure" and body["code"] == exc.status
    return body


def test_get_and_list(sim: ArgoCDSimulator, api: Any) -> None:
    app = api.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "shop-prod")
    assert check_app(app) == sim.app("shop-prod")
    listing = api.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
    assert listing["kind"] == "ApplicationList" and listing["apiVersion"] == f"{GROUP}/{VERSION}"
    assert listing["metadata"]["resourceVersion"] == str(sim.resource_version)
    assert [check_app(a)["metadata"]["name"] for a in listing["items"]] == sim.names()
    everywhere = api.list_cluster_custom_object(GROUP, VERSION, PLURAL)
    assert len(everywhere["items"]) == 3
    elsewhere = api.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL)
    assert elsewhere["items"] == []


def test_list_selectors(api: Any) -> None:
    def names(**kwargs: str) -> list[str]:
        listing = api.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, **kwargs)
        return [a["metadata"]["name"] for a in listing["items"]]

    assert names(label_selector="promoflow.dev/product=shop") == ["shop-dev", "shop-prod"]
    assert names(label_selector="promoflow.dev/environment notin (prod)") == [
        "cart-dev",
        "shop-dev",
    ]
    assert names(field_selector="metadata.name=cart-dev") == ["cart-dev"]
    assert names(field_selector="metadata.name!=cart-dev,metadata.namespace==argocd") == [
        "shop-dev",
        "shop-prod",
    ]
    with pytest.raises(ApiException) as bad:
        names(field_selector="spec.project=default")
    assert bad.value.status == 400 and "not supported" in status_of(bad.value)["message"]


def test_missing_is_404_status(api: Any) -> None:
    with pytest.raises(ApiException) as missing:
        api.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "nope")
    body = status_of(missing.value)
    assert missing.value.status == 404 and body["reason"] == "NotFound"
    assert body["details"] == {"name": "nope", "group": GROUP, "kind": PLURAL}
    with pytest.raises(ApiException) as elsewhere:
        api.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "shop-dev")
    assert elsewhere.value.status == 404


@pytest.mark.parametrize("token", [None, "wrong"])
def test_bad_token_is_401(server: ServerThread, token: str | None) -> None:
    api = custom_objects(server.url, token)
    with pytest.raises(ApiException) as refused:
        api.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
    assert refused.value.status == 401 and status_of(refused.value)["reason"] == "Unauthorized"


def test_faults_answer_a_status(kube: FakeKubeAPI, api: Any) -> None:
    kube.fail_next(1)
    with pytest.raises(ApiException) as failed:
        api.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "shop-dev")
    assert failed.value.status == 503
    assert status_of(failed.value)["reason"] == "ServiceUnavailable"
    assert api.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "shop-dev")


def test_watch_gets_added_then_modified(sim: ArgoCDSimulator, kube: FakeKubeAPI, api: Any) -> None:
    on_watch(kube, lambda: sim.set_sync("shop-dev", "OutOfSync", SHA))
    events: list[tuple[str, str]] = []
    stopper: list[Any] = []
    for event in watch_events(api, stopper, timeout_seconds=5):
        app = check_app(event["object"])
        events.append((event["type"], app["metadata"]["name"]))
        if event["type"] == "MODIFIED":
            stopper[0].stop()
    assert events == [
        ("ADDED", "cart-dev"),
        ("ADDED", "shop-dev"),
        ("ADDED", "shop-prod"),
        ("MODIFIED", "shop-dev"),
    ]
    assert stopper[0].resource_version == str(sim.resource_version)


def test_watch_from_a_resource_version_sends_later_changes(
    sim: ArgoCDSimulator, kube: FakeKubeAPI, api: Any
) -> None:
    listing = api.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
    sim.set_health("cart-dev", "Progressing")  # between list and watch: must not be lost
    on_watch(kube, lambda: sim.delete_app("cart-dev"))
    events = []
    stopper: list[Any] = []
    for event in watch_events(
        api,
        stopper,
        resource_version=listing["metadata"]["resourceVersion"],
        field_selector="metadata.name=cart-dev",
        timeout_seconds=5,
    ):
        events.append((event["type"], check_app(event["object"])["status"]["health"]["status"]))
        if event["type"] == "DELETED":
            stopper[0].stop()
    assert events == [("MODIFIED", "Progressing"), ("DELETED", "Progressing")]


def test_watch_ends_after_timeout_seconds(api: Any) -> None:
    started = time.monotonic()
    events = list(watch_events(api, resource_version="3", timeout_seconds=1))
    assert events == [] and 0.9 < time.monotonic() - started < 3


def test_expired_resource_version_is_410(sim: ArgoCDSimulator, kube: FakeKubeAPI, api: Any) -> None:
    listing = api.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
    sim.set_health("shop-dev", "Progressing")
    kube.expire_watch_history()

    def watch_from(version: str) -> list[Any]:
        return list(watch_events(api, resource_version=version, timeout_seconds=1))

    with pytest.raises(ApiException) as gone:
        watch_from(listing["metadata"]["resourceVersion"])
    assert gone.value.status == 410 and "Expired" in str(gone.value.reason)
    assert watch_from(str(sim.resource_version)) == []  # a fresh list's version works
    kube.gone_next(1)
    with pytest.raises(ApiException) as forced:
        watch_from(str(sim.resource_version))
    assert forced.value.status == 410


def test_history_limit_expires_old_versions() -> None:
    small = ArgoCDSimulator(history=2)
    populate(small)  # resourceVersions 1..3
    small.set_health("shop-dev", "Progressing")
    small.set_health("shop-dev", "Healthy")  # the history keeps 4 and 5
    assert small.compacted == 3

    def watch_from(api: Any, version: int) -> list[Any]:
        return list(watch_events(api, resource_version=str(version), timeout_seconds=1))

    with FakeKubeAPI(small).serve() as served:
        unauthenticated = custom_objects(served.url, None)
        assert [e["type"] for e in watch_from(unauthenticated, 3)] == ["MODIFIED"] * 2
        with pytest.raises(ApiException) as gone:
            watch_from(unauthenticated, 2)
    assert gone.value.status == 410


def test_patch_merges_and_keeps_identity(sim: ArgoCDSimulator, api: Any) -> None:
    before = sim.app("shop-dev")
    assert before is not None
    patch = {
        "metadata": {"name": "renamed", "uid": "x", "labels": {"team": "web"}},
        "spec": {"syncPolicy": None},
    }
    patched = api.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "shop-dev", patch)
    check_app(patched)
    meta = patched["metadata"]
    assert meta["name"] == "shop-dev" and meta["uid"] == before["metadata"]["uid"]
    assert meta["labels"]["team"] == "web" and "syncPolicy" not in patched["spec"]
    assert meta["generation"] == before["metadata"]["generation"] + 1


def test_patch_refresh_annotation_reaches_the_controller(sim: ArgoCDSimulator, api: Any) -> None:
    seen: list[tuple[str, str]] = []
    sim.on_refresh = lambda name, kind: seen.append((name, kind))
    patch = {"metadata": {"annotations": {REFRESH_ANNOTATION: "hard"}}}
    api.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "shop-dev", patch)
    assert seen == sim.refreshes == [("shop-dev", "hard")]


def test_patched_operation_is_picked_up_and_can_finish(sim: ArgoCDSimulator, api: Any) -> None:
    """A sync through Kubernetes is the ``operation`` field; the controller starts it."""
    started: list[str] = []
    sim.on_sync = lambda name, operation: started.append(operation["sync"]["revision"])
    patch = {"operation": {"initiatedBy": {"username": "promoflow"}, "sync": {"revision": SHA}}}
    app = api.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "shop-prod", patch)
    assert check_app(app)["status"]["operationState"]["phase"] == "Running"
    assert started == [SHA] and sim.syncs == [("shop-prod", {"revision": SHA})]
    sim.finish_operation("shop-prod", revisions=[SHA, SHA])
    done = check_app(sim.app("shop-prod"))
    assert "operation" not in done and done["status"]["sync"]["revisions"] == [SHA, SHA]


def test_patch_needs_merge_patch_json(server: ServerThread) -> None:
    url = f"{server.url}/apis/{GROUP}/{VERSION}/namespaces/{NS}/{PLURAL}/shop-dev"
    auth = {"Authorization": f"Bearer {TOKEN}"}
    wrong = httpx.patch(url, json=[{"op": "add"}], headers=auth)
    assert wrong.status_code == 415 and wrong.json()["kind"] == "Status"
    merge = {**auth, "Content-Type": "application/merge-patch+json"}
    assert httpx.patch(url, content=b"[1]", headers=merge).status_code == 422
    assert httpx.patch(url, content=b"{", headers=merge).status_code == 400


def test_merge_patch_and_field_selector_helpers() -> None:
    assert merge_patch({"a": {"b": 1, "c": 2}}, {"a": {"b": None, "d": 3}}) == {
        "a": {"c": 2, "d": 3}
    }
    assert merge_patch({"a": [1]}, {"a": [2]}) == {"a": [2]}
    match = parse_field_selector("metadata.name=x")
    assert match({"metadata": {"name": "x"}}) and not match({"metadata": {"name": "y"}})
    with pytest.raises(ValueError):
        parse_field_selector("status.phase=Running")


def test_serve_stops_with_watches_open(sim: ArgoCDSimulator, kube: FakeKubeAPI) -> None:
    """Leaving ``serve`` ends its open watches, so the server stops at once; streams of
    the Argo CD API on the same state are not this server's to close."""
    done = threading.Event()
    with kube.serve() as served:
        api = custom_objects(served.url)

        def run() -> None:
            list(watch_events(api, resource_version=str(sim.resource_version), timeout_seconds=30))
            done.set()

        threading.Thread(target=run, daemon=True).start()
        time.sleep(0.3)
        started = time.monotonic()
    assert time.monotonic() - started < 3 and done.wait(3)


# --- KubeSource (the gate's Kubernetes path) against the fake ---------------------------


def test_kube_source_reads_refreshes_and_lists(sim: ArgoCDSimulator, api: Any) -> None:
    source = KubeSource(api, NS)
    app = source.get("shop-dev", refresh=True)
    assert app is not None and check_app(app)["metadata"]["annotations"][REFRESH_ANNOTATION]
    assert sim.refreshes == [("shop-dev", "hard")]
    assert source.get("nope") is None
    assert source.names("promoflow.dev/product=shop") == ["shop-dev", "shop-prod"]


def test_kube_source_sync_carries_the_apps_sync_options_and_retry(
    sim: ArgoCDSimulator, api: Any
) -> None:
    """As Argo CD's API server does (``argocd app sync``, the UI): the operation written takes
    the app's syncOptions and retry, or CreateNamespace=true and the like would not apply."""
    retry = {"limit": 2, "backoff": {"duration": "5s"}}
    policy = {"syncOptions": ["CreateNamespace=true"], "retry": retry}
    sim.update("cart-dev", lambda a: a["spec"].update(syncPolicy=policy))
    KubeSource(api, NS).sync("cart-dev", SHA)
    operation = sim.app("cart-dev")["operation"]
    assert operation["sync"] == {"revision": SHA, "syncOptions": ["CreateNamespace=true"]}
    assert operation["retry"] == retry
    assert operation["initiatedBy"] == {"username": "promoflow"}


def test_kube_source_errors(server: ServerThread, kube: FakeKubeAPI) -> None:
    with pytest.raises(SourceError, match="refused the credentials") as refused:
        KubeSource(custom_objects(server.url, "wrong"), NS).get("shop-dev")
    assert not refused.value.transient
    kube.fail_next(1)
    with pytest.raises(SourceError, match="503") as failed:
        KubeSource(custom_objects(server.url), NS).get("shop-dev")
    assert failed.value.transient


def test_kube_source_changes_relist_after_410(
    sim: ArgoCDSimulator, kube: FakeKubeAPI, api: Any
) -> None:
    source = KubeSource(api, NS)
    first = list(source.changes(["shop-dev"], timeout=1))
    assert [a["metadata"]["name"] for a in first] == ["shop-dev"]  # the initial list
    sim.set_health("shop-dev", "Progressing")
    kube.expire_watch_history()
    on_watch(kube, lambda: sim.set_health("shop-dev", "Healthy"))
    states = [a["status"]["health"]["status"] for a in source.changes(["shop-dev"], timeout=1)]
    # expired: listed again (Progressing), then the watch from there (Healthy)
    assert states == ["Progressing", "Healthy"]
    assert source.apps.resource_version == str(sim.resource_version)


def test_workloads_are_served_as_the_api_server_serves_them(sim: ArgoCDSimulator, api: Any) -> None:
    """The apps' Deployments (``apps/v1``), read by the gate's image check; anything else,
    or a Deployment of another namespace, is a 404 ``Status`` naming the resource."""
    deployment = api.get_namespaced_custom_object(
        "apps", "v1", "shop-dev", "deployments", "shop-dev"
    )
    assert (deployment["apiVersion"], deployment["kind"]) == ("apps/v1", "Deployment")
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "registry.example.com/shop:1.0.0"
    for group, version, namespace, plural, name in [
        ("apps", "v1", "default", "deployments", "shop-dev"),
        ("apps", "v1", "shop-dev", "statefulsets", "shop-dev"),
        ("argoproj.io", "v1alpha1", "shop-dev", "rollouts", "shop-dev"),
    ]:
        with pytest.raises(ApiException) as missing:
            api.get_namespaced_custom_object(group, version, namespace, plural, name)
        body = status_of(missing.value)
        assert missing.value.status == 404 and body["reason"] == "NotFound"
        assert body["message"] == f'{plural}.{group} "{name}" not found'
        assert body["details"] == {"name": name, "group": group, "kind": plural}


def test_kube_source_reads_the_workloads_an_app_lists(sim: ArgoCDSimulator, api: Any) -> None:
    source = KubeSource(api, NS)
    sim.set_images("shop-dev", ["registry.example.com/shop:2.0.0"], pods=False)
    app = source.get("shop-dev") or {}
    assert source.workloads("shop-dev", app).images == ("registry.example.com/shop:2.0.0",)
    assert source.workloads("cart-dev", source.get("cart-dev") or {}).images == ()
