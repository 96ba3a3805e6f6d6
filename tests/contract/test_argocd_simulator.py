"""The Argo CD simulator answers like the Argo CD API server, and promoflow's client reads it.

Shapes are checked against the upstream references (tests/refdata/argo-cd): every
Application served (get, list items, stream events) against the CRD schema with no field
either the CRD or the swagger leaves undeclared; every error body against the swagger's
``runtimeError``. Then :class:`~orchestrator.adapters.argocd.ArgoCDClient` is run against the
served simulator over real HTTP.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from orchestrator.adapters.argocd import ArgoCDClient, ArgoCDError
from orchestrator.settings import ArgoCDSettings
from orchestrator.simulator.argocd import parse_selector
from orchestrator.simulator.serve import ServerThread
from tests.contract.argocd_schema import (
    TYPE_META,
    response_errors,
    swagger,
    swagger_unknown_fields,
)
from tests.contract.argocd_support import (
    APP_PATH,
    LIST_PATH,
    OLD,
    SHA,
    STREAM_PATH,
    SYNC_PATH,
    StreamReader,
    app_problems,
    check_app,
    check_error,
    on_next_request,
    populate,
    tour,
)
from tests.fakes.argocd import FaultyArgoCD

TOKEN = "argocd-simulator-token"


@pytest.fixture
def sim() -> FaultyArgoCD:
    simulator = FaultyArgoCD(token=TOKEN)
    populate(simulator)
    return simulator


@pytest.fixture
def server(sim: FaultyArgoCD) -> Iterator[ServerThread]:
    with sim.serve() as served:
        yield served


@pytest.fixture
def http(server: ServerThread) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        yield c


def settings(server: ServerThread, token: str = TOKEN) -> ArgoCDSettings:
    host = server.url.removeprefix("http://")
    return ArgoCDSettings(server=host, auth_token=token, opts="--plaintext")


@pytest.fixture
def client(server: ServerThread) -> Iterator[ArgoCDClient]:
    with ArgoCDClient(settings(server)) as argocd:
        yield argocd


def on_stream(sim: FaultyArgoCD, *actions: Callable[[], object]) -> threading.Thread:
    """Run ``actions`` once the next stream is open."""
    return on_next_request(sim.requests, STREAM_PATH, *actions)


def later(delay: float, *actions: object) -> threading.Thread:
    """Run ``actions`` (callables) one after another, ``delay`` seconds apart."""

    def run() -> None:
        for action in actions:
            time.sleep(delay)
            assert callable(action)
            action()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


# --- shapes ------------------------------------------------------------------------------


def test_served_routes_exist_in_the_swagger(sim: FaultyArgoCD) -> None:
    """Parameters are compared by place, not name: Starlette's cannot hold a dot, as the
    swagger's ``{source.repoURL}`` does, and one holding slashes is written ``{x:path}``."""

    def shape(path: str) -> str:
        return re.sub(r"\{[^}]*\}", "{}", path)

    paths = {shape(p): operations for p, operations in swagger()["paths"].items()}
    for route in sim.asgi().routes:
        path = shape(getattr(route, "path", ""))
        assert path in paths, path
        methods = {m.lower() for m in getattr(route, "methods", None) or ()} - {"head"}
        assert methods <= set(paths[path]), (path, methods)


def test_every_state_and_event_validates(sim: FaultyArgoCD) -> None:
    """Each change the scenario helpers make is stored as one event; every one of them
    (the object right after the change) is a valid Application."""
    tour(sim)
    events = sim.history()
    assert {e.type for e in events} == {"ADDED", "MODIFIED", "DELETED"}
    for event in events:
        assert app_problems(event.app) == [], (event.resource_version, event.type)
    assert [e.resource_version for e in events] == list(range(1, len(events) + 1))


def test_get_and_list_validate(sim: FaultyArgoCD, http: httpx.Client) -> None:
    tour(sim)
    for name in sim.names():
        response = http.get(f"/api/v1/applications/{name}")
        assert response.status_code == 200
        body = check_app(response.json())
        assert response_errors(APP_PATH, "GET", 200, body) == []
        # Argo CD's API server sends typed objects: no apiVersion/kind (as seen on v3.2)
        assert body == {k: v for k, v in (sim.app(name) or {}).items() if k not in TYPE_META}
    listed = http.get(LIST_PATH)
    body = listed.json()
    assert response_errors(LIST_PATH, "GET", 200, body) == []
    assert swagger_unknown_fields("v1alpha1ApplicationList", body, type_meta=True) == []
    assert [check_app(a)["metadata"]["name"] for a in body["items"]] == sim.names()
    assert body["metadata"]["resourceVersion"] == str(sim.resource_version)


def test_resource_tree_validates(sim: FaultyArgoCD, http: httpx.Client) -> None:
    """Where Argo CD 3 says why a resource is Degraded: the gate reads it from here."""
    sim.set_resource_health("shop-dev", "Deployment", "shop/web", "Degraded", "deadline")
    path = "/api/v1/applications/{applicationName}/resource-tree"
    response = http.get(path.format(applicationName="shop-dev"))
    assert response.status_code == 200
    body = response.json()
    assert response_errors(path, "GET", 200, body) == []
    # ResourceNode embeds ResourceRef inline (Go ``json:",inline"``), which the generated
    # swagger leaves out: its fields are checked against ResourceRef instead.
    ref = set(swagger()["definitions"]["v1alpha1ResourceRef"]["properties"])
    assert {"kind", "namespace", "name"} <= ref
    own = {"nodes": [{k: v for k, v in n.items() if k not in ref} for n in body["nodes"]]}
    assert swagger_unknown_fields("v1alpha1ApplicationTree", own) == []
    [node] = [n for n in body["nodes"] if n["kind"] == "Deployment"]
    assert (node["kind"], node["namespace"], node["name"]) == ("Deployment", "shop", "web")
    assert node["health"] == {"status": "Degraded", "message": "deadline"}
    # the pods, with the images status.summary.images is made of (Argo CD: GetSummary)
    [pod] = [n for n in body["nodes"] if n["kind"] == "Pod"]
    assert pod["images"] == (sim.app("shop-dev") or {})["status"]["summary"]["images"]
    missing = http.get(path.format(applicationName="nope"))
    check_error(path, "GET", missing, 403)


def test_managed_resources_validate(sim: FaultyArgoCD, http: httpx.Client) -> None:
    """Where the gate reads what an app's workloads run when the summary lacks the image:
    each ResourceDiff's ``liveState`` is the live object as JSON text."""
    path = "/api/v1/applications/{applicationName}/managed-resources"
    sim.set_images("shop-dev", ["registry.example.com/shop:2.0.0"], pods=False)
    response = http.get(path.format(applicationName="shop-dev"))
    assert response.status_code == 200
    body = response.json()
    assert response_errors(path, "GET", 200, body) == []
    assert swagger_unknown_fields("applicationManagedResourcesResponse", body) == []
    [item] = body["items"]
    assert (item["group"], item["kind"], item["name"]) == ("apps", "Deployment", "shop-dev")
    live = json.loads(item["liveState"])
    containers = live["spec"]["template"]["spec"]["containers"]
    assert [c["image"] for c in containers] == ["registry.example.com/shop:2.0.0"]
    assert "images" not in (sim.app("shop-dev") or {})["status"]["summary"]
    # an app that runs nothing: Go's empty typed list
    assert http.get(path.format(applicationName="cart-dev")).json() == {"items": None}
    check_error(path, "GET", http.get(path.format(applicationName="nope")), 403)


def test_images_reach_summary_and_resources_as_argocd_writes_them(sim: FaultyArgoCD) -> None:
    """``status.summary.images`` sorted and unique, the workload in ``status.resources``;
    every change one valid Application."""
    sim.set_images("shop-dev", ["b.io/x:2", "a.io/y:1", "b.io/x:2"])
    app = sim.app("shop-dev") or {}
    assert app["status"]["summary"]["images"] == ["a.io/y:1", "b.io/x:2"]
    [ref] = [r for r in app["status"]["resources"] if r["kind"] == "Deployment"]
    assert ref == {"group": "apps", "version": "v1", "kind": "Deployment",
                   "namespace": "shop-dev", "name": "shop-dev", "status": "Synced",
                   "health": {"status": "Healthy"}}  # fmt: skip
    assert app_problems(app) == []


def test_list_filters(http: httpx.Client) -> None:
    def names(**params: str | list[str]) -> list[str]:
        response = http.get(LIST_PATH, params=params)
        assert response.status_code == 200, response.text
        return [a["metadata"]["name"] for a in response.json()["items"] or []]

    assert names(selector="promoflow.dev/product=shop") == ["shop-dev", "shop-prod"]
    assert names(selector="promoflow.dev/environment in (dev),promoflow.dev/product!=shop") == [
        "cart-dev"
    ]
    assert names(selector="!promoflow.dev/product") == []
    assert names(name=["shop-prod"]) == ["shop-prod"]
    assert names(repo="https://git.example.com/platform/deploy") == [
        "cart-dev",
        "shop-dev",
        "shop-prod",
    ]
    assert names(projects="other") == []


def test_selector_parsing() -> None:
    match = parse_selector("a=1, b in (x, y), !c, d, e!=2")
    assert match({"a": "1", "b": "y", "d": ""})
    assert not match({"a": "1", "b": "z", "d": ""})
    assert not match({"a": "1", "b": "x", "c": "", "d": ""})
    assert not match({"a": "1", "b": "x", "d": "", "e": "2"})
    assert parse_selector(None)({})
    with pytest.raises(ValueError, match="unable to parse"):
        parse_selector("a=(")


def test_stream_events_validate(sim: FaultyArgoCD, server: ServerThread) -> None:
    with StreamReader(server.url, TOKEN) as stream:
        assert stream.status == 200
        initial = [stream.take() for _ in sim.names()]
        later(0.05, lambda: tour(sim), sim.drop_streams)
        lines = [*initial, *stream.until_end()]
    changes = len(sim.history()) - len(initial)
    assert len(lines) == len(initial) + changes
    for line in lines:
        assert line is not None
        assert response_errors(STREAM_PATH, "GET", 200, line) == []
        assert set(line) == {"result"}
        result = line["result"]
        assert swagger_unknown_fields("v1alpha1ApplicationWatchEvent", result, type_meta=True) == []
        check_app(result["application"])
    assert [line and line["result"]["type"] for line in initial] == ["ADDED"] * len(initial)
    assert lines[-1] and lines[-1]["result"]["type"] == "DELETED"


def test_stream_filters_by_name_and_resumes_without_replay(
    sim: FaultyArgoCD, server: ServerThread
) -> None:
    params = {"name": "shop-dev", "resourceVersion": str(sim.resource_version)}
    with StreamReader(server.url, TOKEN, params, lambda: sim.open_streams > 0) as stream:
        later(0.05, lambda: sim.set_health("cart-dev", "Progressing"),
              lambda: sim.set_health("shop-dev", "Progressing"), sim.drop_streams)  # fmt: skip
        lines = list(stream.until_end())
    assert [
        (x["result"]["type"], x["result"]["application"]["metadata"]["name"]) for x in lines
    ] == [("MODIFIED", "shop-dev")]


def test_stream_error_line_matches_the_swagger(sim: FaultyArgoCD, server: ServerThread) -> None:
    with StreamReader(server.url, TOKEN, {"name": "none"}, lambda: sim.open_streams > 0) as stream:
        later(0.05, lambda: sim.drop_streams("transport is closing"))
        lines = list(stream.until_end())
    assert len(lines) == 1 and set(lines[0]) == {"error"}
    assert response_errors(STREAM_PATH, "GET", 200, lines[0]) == []
    assert swagger_unknown_fields("runtimeStreamError", lines[0]["error"]) == []
    assert lines[0]["error"]["message"] == "transport is closing"


def test_error_bodies_match_the_runtime_error(sim: FaultyArgoCD, server: ServerThread) -> None:
    anonymous = httpx.get(f"{server.url}/api/v1/applications/shop-dev")
    assert check_error(APP_PATH, "GET", anonymous, 401)["code"] == 16
    wrong = httpx.get(f"{server.url}/api/v1/applications", headers={"Authorization": "Bearer nope"})
    assert check_error(LIST_PATH, "GET", wrong, 401)["code"] == 16
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=server.url, headers=auth) as http:
        # Argo CD >= 2.6.7 hides which apps exist from a caller that names no project
        missing = check_error(APP_PATH, "GET", http.get("/api/v1/applications/nope"), 403)
        assert missing["code"] == 7 and missing["message"] == "permission denied"
        named = http.get("/api/v1/applications/nope", params={"project": "default"})
        assert check_error(APP_PATH, "GET", named, 404)["code"] == 5
        # a selector Argo CD cannot parse is its 500 / Unknown (seen on v3.2), not a 400
        bad = check_error(LIST_PATH, "GET", http.get(LIST_PATH, params={"selector": "a=("}), 500)
        assert bad["code"] == 2
        sim.fail_next(1)
        unavailable = check_error(APP_PATH, "GET", http.get("/api/v1/applications/shop-dev"), 503)
        assert unavailable["code"] == 14
        sim.fail_next(1, 500)
        internal = check_error(APP_PATH, "GET", http.get("/api/v1/applications/shop-dev"), 500)
        assert internal["code"] == 13
        body = {"name": "shop-prod", "revision": SHA}
        sim.start_operation("shop-prod", OLD)
        busy = check_error(SYNC_PATH, "POST", http.post("/api/v1/applications/shop-prod/sync",
                                                        json=body), 400)  # fmt: skip
        assert busy["code"] == 9 and "in progress" in busy["message"]
        not_json = http.post("/api/v1/applications/shop-prod/sync", content=b"{")
        check_error(SYNC_PATH, "POST", not_json, 400)
        gone = http.post("/api/v1/applications/nope/sync", json={"name": "nope"})
        check_error(SYNC_PATH, "POST", gone, 403)
        stream = http.get(STREAM_PATH, params={"selector": "in in in"})
        check_error(STREAM_PATH, "GET", stream, 500)
    assert httpx.get(f"{server.url}/api/version").json()["Version"]


def test_missing_app_is_not_found_on_servers_before_2_6_7() -> None:
    lenient = FaultyArgoCD(token=TOKEN, deny_missing=False)
    with lenient.serve() as served:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        missing = httpx.get(f"{served.url}/api/v1/applications/nope", headers=auth)
        assert check_error(APP_PATH, "GET", missing, 404)["code"] == 5


# --- ArgoCDClient against the served simulator -------------------------------------------


def test_client_get_and_missing(sim: FaultyArgoCD, client: ArgoCDClient) -> None:
    app = client.get_app("shop-dev")
    served = {k: v for k, v in (sim.app("shop-dev") or {}).items() if k not in TYPE_META}
    assert app is not None and check_app(app) == served
    with pytest.raises(ArgoCDError, match="permission denied: the application does not exist"):
        client.get_app("nope")


@pytest.mark.parametrize("token", ["", "wrong-token"])
def test_client_refused_token(server: ServerThread, token: str) -> None:
    with ArgoCDClient(settings(server, token)) as argocd:
        with pytest.raises(ArgoCDError) as refused:
            argocd.get_app("shop-dev")
        assert not refused.value.transient
        assert "ARGOCD_AUTH_TOKEN" in str(refused.value)
        with pytest.raises(ArgoCDError):
            list(argocd.watch(["shop-dev"], timeout=2))
    assert TOKEN not in str(refused.value) and (not token or token not in str(refused.value))


def test_client_unavailable_then_recovers(sim: FaultyArgoCD, client: ArgoCDClient) -> None:
    sim.fail_next(2)
    for _ in range(2):
        with pytest.raises(ArgoCDError) as failed:
            client.get_app("shop-dev")
        assert failed.value.transient and "503" in str(failed.value)
    assert client.get_app("shop-dev") is not None


def test_client_unreachable_is_transient() -> None:
    from orchestrator.simulator.serve import free_port

    unreachable = ArgoCDSettings(server=f"127.0.0.1:{free_port()}", opts="--plaintext")
    with ArgoCDClient(unreachable) as argocd, pytest.raises(ArgoCDError) as failed:
        argocd.get_app("shop-dev")
    assert failed.value.transient and "cannot reach" in str(failed.value)


def test_client_list_with_selector(client: ArgoCDClient) -> None:
    apps = client.list_apps("promoflow.dev/product=shop")
    assert [check_app(a)["metadata"]["name"] for a in apps] == ["shop-dev", "shop-prod"]
    assert client.list_apps("promoflow.dev/product=none") == []
    with pytest.raises(ArgoCDError, match="500"):
        client.list_apps("a in (")


def test_client_refresh_is_recorded(sim: FaultyArgoCD, client: ArgoCDClient) -> None:
    seen: list[tuple[str, str]] = []

    def refreshed(name: str, kind: str) -> None:
        seen.append((name, kind))
        sim.reconcile(name)

    sim.on_refresh = refreshed
    before = sim.resource_version
    app = client.get_app("shop-dev", refresh="hard")
    assert sim.refreshes == seen == [("shop-dev", "hard")]
    assert app is not None and int(app["metadata"]["resourceVersion"]) == before + 1
    assert "GET /api/v1/applications/shop-dev?refresh=hard" in sim.requests


def test_client_sync(sim: FaultyArgoCD, client: ArgoCDClient) -> None:
    client.sync("cart-dev")
    assert sim.syncs == [("cart-dev", {"name": "cart-dev"})]
    app = sim.app("cart-dev")
    assert app is not None and check_app(app)["status"]["operationState"]["phase"] == "Running"
    assert app["operation"]["sync"]["revision"] == "main"
    with pytest.raises(ArgoCDError, match="in progress"):
        client.sync("cart-dev")
    with pytest.raises(ArgoCDError, match="auto-sync currently set to main"):
        client.sync("shop-dev", SHA)
    with pytest.raises(ArgoCDError, match="permission denied: the application does not exist"):
        client.sync("nope", SHA)
    sim.finish_operation("cart-dev")
    assert check_app(sim.app("cart-dev"))["status"]["history"][-1]["revision"] == "main"


def test_sync_of_a_multi_source_app_takes_revisions_per_source(
    sim: FaultyArgoCD, http: httpx.Client
) -> None:
    """Argo CD ignores ``revision`` for a multi-source app: each source syncs to its
    targetRevision unless ``revisions`` (at ``sourcePositions``) say otherwise."""
    http.post("/api/v1/applications/shop-prod/sync", json={"name": "shop-prod", "revision": SHA})
    app = sim.app("shop-prod")
    assert app is not None and app["operation"]["sync"]["revisions"] == ["main", "main"]
    sim.finish_operation("shop-prod")
    body = {"name": "shop-prod", "revisions": [SHA], "sourcePositions": [2]}
    assert http.post("/api/v1/applications/shop-prod/sync", json=body).status_code == 200
    app = sim.app("shop-prod")
    assert app is not None and app["operation"]["sync"]["revisions"] == ["main", SHA]
    check_app(app)


def test_client_watch_gets_events_and_survives_drops(
    sim: FaultyArgoCD, client: ArgoCDClient
) -> None:
    on_stream(sim, lambda: sim.set_sync("shop-dev", "OutOfSync", SHA),
          lambda: sim.set_sync("cart-dev", "OutOfSync", SHA), sim.drop_streams)  # fmt: skip
    first = [(kind, app["status"]["sync"]["status"]) for kind, app in client.watch(["shop-dev"])]
    assert first == [("ADDED", "Synced"), ("MODIFIED", "OutOfSync")]
    # a new watch after the drop sees what changed and what comes next
    on_stream(sim, lambda: sim.deploy("shop-dev", SHA), sim.drop_streams)
    second = [(kind, app["status"]["sync"]["revision"]) for kind, app in client.watch(["shop-dev"])]
    assert second == [("ADDED", SHA), ("MODIFIED", SHA)]
    # an in-stream error is a transient failure; the next watch works again
    on_stream(sim, lambda: sim.drop_streams("transport is closing"))
    with pytest.raises(ArgoCDError, match="transport is closing") as failed:
        list(client.watch(["shop-dev"]))
    assert failed.value.transient
    sim.fail_next(1)
    with pytest.raises(ArgoCDError) as unavailable:
        list(client.watch(["shop-dev"]))
    assert unavailable.value.transient
    on_stream(sim, lambda: sim.set_health("shop-dev", "Progressing"), sim.drop_streams)
    assert [kind for kind, _ in client.watch(["shop-dev"])] == ["ADDED", "MODIFIED"]


def test_client_watch_ends_quietly_after_its_timeout(client: ArgoCDClient) -> None:
    started = time.monotonic()
    assert [kind for kind, _ in client.watch(["shop-dev"], timeout=0.5)] == ["ADDED"]
    assert time.monotonic() - started < 3


def test_client_watch_sees_deletions(sim: FaultyArgoCD, client: ArgoCDClient) -> None:
    on_stream(sim, lambda: sim.delete_app("cart-dev"), sim.drop_streams)
    assert [kind for kind, _ in client.watch(["cart-dev"])] == ["ADDED", "DELETED"]


def test_client_watch_of_two_apps_against_argocds_query_parsing() -> None:
    sim = FaultyArgoCD(token=TOKEN, first_name_only=True)
    populate(sim)
    with sim.serve() as served, ArgoCDClient(settings(served)) as argocd:
        on_stream(sim, lambda: sim.set_health("cart-dev", "Progressing"), sim.drop_streams)
        names = [app["metadata"]["name"] for _, app in argocd.watch(["shop-dev", "cart-dev"])]
    assert "cart-dev" in names


def test_serve_stops_with_streams_open(sim: FaultyArgoCD) -> None:
    """Leaving ``serve`` ends the open streams first, so the server stops at once."""
    with sim.serve() as served:
        stream = StreamReader(served.url, TOKEN).__enter__()
        assert stream.take() is not None
        started = time.monotonic()
    assert time.monotonic() - started < 3
    assert [line["result"]["type"] for line in stream.until_end(timeout=1)] == ["ADDED"] * 2
    stream.__exit__()


def test_client_missing_app_on_a_current_argocd() -> None:
    strict = FaultyArgoCD(token=TOKEN, deny_missing=True)
    with strict.serve() as served, ArgoCDClient(settings(served)) as argocd:
        try:
            assert argocd.get_app("nope") is None
        except ArgoCDError as exc:
            assert "ARGOCD_AUTH_TOKEN" not in str(exc), str(exc)
