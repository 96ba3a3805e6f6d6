"""The fakes the rest of the suite trusts, asked the same question as the real servers.

tests/ exercises promoflow against stand-ins: the Argo CD simulator
(orchestrator/simulator/argocd/), its Kubernetes API (tests/fakes/kube.py) and
a fake Argo Server (tests/fakes/argo_server.py). Each test here sends one request to the
stand-in and to the real server and compares what promoflow (or its tests) depend on: the
HTTP status, the gRPC code, the shape of the body, what a watch sends. A failure names both
answers: the fake (or the code written against it) has to change, not this test.

Wording of messages is compared only where promoflow reads it (``permission denied``,
``in progress``, ``not found``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from kubernetes import client

from orchestrator.simulator.argocd import ArgoCDSimulator
from tests.contract.argocd_support import app_problems
from tests.e2e.flows import argo_http
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import GROUP, VERSION, Apps, api_client, configmap, short_id, wait_until
from tests.e2e.settings import E2ESettings
from tests.fakes.argo_server import FakeArgoServer
from tests.fakes.kube import FakeKubeAPI

pytestmark = pytest.mark.e2e

TOKEN = "fake-token"


@dataclass(frozen=True)
class Answer:
    """What a client can tell apart: status, gRPC code, keys of the body."""

    status: int
    code: int | None
    keys: tuple[str, ...]

    @classmethod
    def of(cls, response: httpx.Response) -> Answer:
        try:
            body = response.json()
        except ValueError:
            return cls(response.status_code, None, ("<not JSON>",))
        code = body.get("code") if isinstance(body, dict) else None
        keys = tuple(sorted(body)) if isinstance(body, dict) else ()
        return cls(response.status_code, code, keys)


# --- Argo CD API server vs the simulator ---------------------------------------------------


@dataclass
class ArgoCDPair:
    real: httpx.Client
    fake: httpx.Client
    sim: ArgoCDSimulator
    app: str
    first: str


@pytest.fixture(scope="module")
def real_app(e2e: E2ESettings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One automated app, deployed, shared by the module (its name; also in the fake)."""
    repo = GitopsRepo(e2e, tmp_path_factory.mktemp("parity"))
    apps = Apps.connect(e2e)
    name = f"pfe2e-{short_id()}"
    first = repo.commit({"app/configmap.yaml": configmap(name, "1")})
    apps.create(name, repo.url, "app", repo.branch, name)
    try:
        apps.wait_deployed(name, first, e2e.timeout)
        yield name
    finally:
        apps.delete_all()
        repo.remove()


@pytest.fixture
def argocd(e2e: E2ESettings, real_app: str) -> Iterator[ArgoCDPair]:
    sim = ArgoCDSimulator(token=TOKEN)
    status = Apps.connect(e2e).status(real_app)
    sim.add_app(
        real_app, repo_url="https://git.example.com/x.git", path="app",
        revision=status["sync"]["revision"],
    )  # fmt: skip
    scheme = "http" if "--plaintext" in e2e.argocd_opts else "https"
    server = e2e.argocd_server if "://" in e2e.argocd_server else f"{scheme}://{e2e.argocd_server}"
    with (
        sim.serve() as served,
        httpx.Client(
            base_url=server, headers={"Authorization": f"Bearer {e2e.argocd_token}"}, verify=False
        ) as real,
        httpx.Client(base_url=served.url, headers={"Authorization": f"Bearer {TOKEN}"}) as fake,
    ):
        yield ArgoCDPair(real, fake, sim, real_app, status["sync"]["revision"])


def same(fake: Any, real: Any) -> None:
    assert fake == real, f"\nfake: {fake}\nreal: {real}"


def test_argocd_missing_app(argocd: ArgoCDPair) -> None:
    """Argo CD >= 2.6.7 answers 403 ``permission denied`` for an app that does not exist
    (to hide which exist); the simulator answers 404 unless built with deny_missing."""
    path = "/api/v1/applications/pfe2e-no-such-app"
    same(Answer.of(argocd.fake.get(path)), Answer.of(argocd.real.get(path)))


def test_argocd_sync_of_a_missing_app(argocd: ArgoCDPair) -> None:
    path = "/api/v1/applications/pfe2e-no-such-app/sync"
    body = {"name": "pfe2e-no-such-app"}
    same(Answer.of(argocd.fake.post(path, json=body)), Answer.of(argocd.real.post(path, json=body)))


def test_argocd_token_it_did_not_sign(argocd: ArgoCDPair, e2e: E2ESettings) -> None:
    head, payload, _ = e2e.argocd_token.split(".")
    forged = f"{head}.{payload}.{base64.urlsafe_b64encode(b'x' * 32).decode().rstrip('=')}"
    path = f"/api/v1/applications/{argocd.app}"
    auth = {"Authorization": f"Bearer {forged}"}
    real = Answer.of(argocd.real.get(path, headers=auth))
    same(Answer.of(argocd.fake.get(path, headers=auth)), real)


def test_argocd_can_i_and_session_userinfo(argocd: ArgoCDPair, e2e: E2ESettings) -> None:
    """What ``promoflow doctor`` asks: the token's account, the account's rights on an app
    (``yes``), an action Argo CD's RBAC does not know (400), and a caller without a token
    (``{}`` from userinfo, 401 from can-i)."""
    paths = [
        "/api/v1/session/userinfo",
        f"/api/v1/account/can-i/applications/sync/default/{argocd.app}",
        f"/api/v1/account/can-i/applications/get/*/{argocd.app}",
        f"/api/v1/account/can-i/applications/bogus/default/{argocd.app}",
    ]
    for path in paths:
        fake, real = argocd.fake.get(path), argocd.real.get(path)
        same(
            (Answer.of(fake), fake.json().get("value")), (Answer.of(real), real.json().get("value"))
        )
    anonymous = {"Authorization": ""}
    for path in paths[:2]:
        fake, real = (
            argocd.fake.get(path, headers=anonymous),
            argocd.real.get(path, headers=anonymous),
        )
        same((Answer.of(fake), fake.json()), (Answer.of(real), real.json()))
    assert argocd.real.get(paths[0]).json()["username"] == argocd.sim.account


def test_argocd_list_that_matches_nothing(argocd: ArgoCDPair) -> None:
    """An empty list: the real server sends ``"items": null``, not ``[]``."""
    params = {"selector": "promoflow.dev/none=here"}
    fake = argocd.fake.get("/api/v1/applications", params=params).json()
    real = argocd.real.get("/api/v1/applications", params=params).json()
    same(fake.get("items"), real.get("items"))


def test_argocd_selector_that_does_not_parse(argocd: ArgoCDPair) -> None:
    """promoflow treats 5xx as transient (exit 75, retried): a 500 for a typo in
    ``--selector`` is retried as if Argo CD were down."""
    params = {"selector": "a in ("}
    same(
        Answer.of(argocd.fake.get("/api/v1/applications", params=params)),
        Answer.of(argocd.real.get("/api/v1/applications", params=params)),
    )


def test_argocd_sync_to_a_commit_of_an_automated_app(argocd: ArgoCDPair) -> None:
    path = f"/api/v1/applications/{argocd.app}/sync"
    body = {"name": argocd.app, "revision": "0" * 40}
    fake, real = argocd.fake.post(path, json=body), argocd.real.post(path, json=body)
    same(Answer.of(fake), Answer.of(real))
    assert "auto-sync currently set to" in real.json()["message"]


def test_argocd_stream_sends_the_app_first(argocd: ArgoCDPair) -> None:
    def first_line(http: httpx.Client) -> dict[str, Any]:
        params = {"name": argocd.app}
        with http.stream("GET", "/api/v1/stream/applications", params=params, timeout=10) as r:
            for line in r.iter_lines():
                if line.strip():
                    data: dict[str, Any] = json.loads(line)
                    return data
        return {}

    fake, real = first_line(argocd.fake), first_line(argocd.real)
    same(list(fake), list(real))
    same(fake["result"]["type"], real["result"]["type"])
    same(sorted(fake["result"]["application"]), sorted(real["result"]["application"]))


def test_argocd_stream_of_nothing_still_answers(argocd: ArgoCDPair) -> None:
    """A stream whose filter matches no app: the simulator answers 200 at once; the real
    grpc-gateway sends no status line or header until the first event, so a client waits
    for its read timeout without even knowing the request was accepted."""

    def headers_within(http: httpx.Client, seconds: float) -> int | None:
        params = {"name": "pfe2e-no-such-app"}
        timeout = httpx.Timeout(5, read=seconds)
        try:
            with http.stream("GET", "/api/v1/stream/applications", params=params,
                             timeout=timeout) as response:  # fmt: skip
                return response.status_code
        except httpx.ReadTimeout:
            return None

    same(headers_within(argocd.fake, 3), headers_within(argocd.real, 3))


def test_argocd_app_fits_the_schemas_the_simulator_is_held_to(
    argocd: ArgoCDPair,
) -> None:
    """tests/contract checks every simulator answer against the Application CRD and the
    swagger in tests/refdata, and flags any field they do not declare; what the real Argo
    CD answers must pass the same check, or the reference data is from another version."""
    app = argocd.real.get(f"/api/v1/applications/{argocd.app}").json()
    same([], app_problems(app))


def test_argocd_health_of_a_degraded_app_carries_a_message(
    argocd: ArgoCDPair, e2e: E2ESettings, tmp_path: Path
) -> None:
    """The simulator's Degraded apps carry ``status.health.message`` (tests, the demo's
    ``--fail``); Argo CD 3 keeps resource health in its resource tree only
    (``status.resourceHealthSource: appTree``): the Application has no message."""
    from tests.e2e.k8s import deployment

    repo = GitopsRepo(e2e, tmp_path / "degraded")
    apps = Apps.connect(e2e)
    name = f"pfe2e-{short_id()}"
    repo.commit({"app/deployment.yaml": deployment(name, "1", unready=True, progress_deadline=5)})
    apps.create(name, repo.url, "app", repo.branch, name)
    try:
        health = wait_until(
            "Degraded",
            lambda: (
                (apps.status(name).get("health") or {}).get("status") == "Degraded"
                and apps.status(name)["health"]
            ),
            e2e.timeout,
        )
        argocd.sim.deploy(argocd.app, "1" * 40, health="Degraded", message="exceeded")
        fake = (argocd.sim.app(argocd.app) or {})["status"]["health"]
        same(sorted(fake), sorted(health))
    finally:
        apps.delete_all()
        repo.remove()


@pytest.fixture(scope="module")
def workload_app(e2e: E2ESettings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An app with a Deployment (its pods on the kwok node), deployed: what it runs shows
    in ``status.summary.images``, its managed resources and the Kubernetes API."""
    from tests.e2e.k8s import deployment

    repo = GitopsRepo(e2e, tmp_path_factory.mktemp("workload"))
    apps = Apps.connect(e2e)
    name = f"pfe2e-{short_id()}"
    first = repo.commit({"app/deployment.yaml": deployment(name, "1")})
    apps.create(name, repo.url, "app", repo.branch, name)
    try:
        apps.wait_deployed(name, first, e2e.timeout)
        wait_until(
            "its pod in the summary",
            lambda: (apps.status(name).get("summary") or {}).get("images") or None,
            e2e.timeout,
        )
        yield name
    finally:
        apps.delete_all()
        repo.remove()


def _workload_in_sim(argocd: ArgoCDPair, real: dict[str, Any], name: str) -> None:
    """The simulator's app of the same name, running what the real one runs."""
    argocd.sim.add_app(
        name, repo_url="https://git.example.com/x.git", path="app",
        revision=real["status"]["sync"]["revision"],
        images=list(real["status"]["summary"]["images"]),
    )  # fmt: skip


def test_argocd_summary_lists_the_pods_images(
    argocd: ArgoCDPair, e2e: E2ESettings, workload_app: str
) -> None:
    """``status.summary.images``: every image of the app's Pods, sorted (the image check
    reads it first)."""
    real = argocd.real.get(f"/api/v1/applications/{workload_app}").json()
    _workload_in_sim(argocd, real, workload_app)
    fake = argocd.fake.get(f"/api/v1/applications/{workload_app}").json()
    same(fake["status"]["summary"], real["status"]["summary"])
    assert real["status"]["summary"]["images"] == [f"registry.invalid/{workload_app}:1"]
    kinds = [(r.get("group", ""), r["kind"]) for r in real["status"]["resources"]]
    fake_kinds = [(r.get("group", ""), r["kind"]) for r in fake["status"]["resources"]]
    same(fake_kinds, kinds)
    same(sorted(fake["status"]["resources"][0]), sorted(real["status"]["resources"][0]))


def test_argocd_managed_resources_carry_the_live_workload(
    argocd: ArgoCDPair, workload_app: str
) -> None:
    """``/managed-resources``: where the gate reads the workloads' pod templates when the
    summary lacks the image; ``liveState`` is the live object as JSON text."""
    real_app = argocd.real.get(f"/api/v1/applications/{workload_app}").json()
    _workload_in_sim(argocd, real_app, workload_app)
    path = f"/api/v1/applications/{workload_app}/managed-resources"
    real, fake = argocd.real.get(path), argocd.fake.get(path)
    same(Answer.of(fake), Answer.of(real))
    [real_item] = [i for i in real.json()["items"] if i["kind"] == "Deployment"]
    [fake_item] = [i for i in fake.json()["items"] if i["kind"] == "Deployment"]
    same(sorted(fake_item), sorted(real_item))
    live = json.loads(real_item["liveState"])
    containers = live["spec"]["template"]["spec"]["containers"]
    assert [c["image"] for c in containers] == [f"registry.invalid/{workload_app}:1"]
    missing = "/api/v1/applications/pfe2e-no-such-app/managed-resources"
    same(Answer.of(argocd.fake.get(missing)), Answer.of(argocd.real.get(missing)))


def test_argocd_revision_metadata_of_the_deployed_commit(argocd: ArgoCDPair) -> None:
    """What ``repo.GetCommitMetadata`` reads (the reporter's notifications): author, date,
    message; ``tags`` only when the commit has some."""
    argocd.sim.add_commit(
        "https://git.example.com/x.git", argocd.first,
        author="promoflow e2e <e2e@example.com>", message="parity", date="2026-01-01T00:00:00Z",
    )  # fmt: skip
    path = f"/api/v1/applications/{argocd.app}/revisions/{argocd.first}/metadata"
    fake, real = argocd.fake.get(path), argocd.real.get(path)
    same(Answer.of(fake), Answer.of(real))
    assert real.json()["date"].endswith("Z")


@pytest.mark.parametrize("app", ["own", "pfe2e-no-such-app"])
def test_argocd_revision_metadata_refused(argocd: ArgoCDPair, app: str) -> None:
    """An unknown revision of the app, and any revision of a missing app."""
    name = argocd.app if app == "own" else app
    path = f"/api/v1/applications/{name}/revisions/{'0' * 40}/metadata"
    same(Answer.of(argocd.fake.get(path)), Answer.of(argocd.real.get(path)))


def _details(http: httpx.Client, app: str, project: str | None = None) -> httpx.Response:
    spec = http.get(f"/api/v1/applications/{app}").json()["spec"]
    source = spec["source"]
    body = {"source": source, "appName": app, "appProject": project or spec["project"]}
    repo = quote(source["repoURL"], safe="")
    return http.post(f"/api/v1/repositories/{repo}/appdetails", json=body)


def test_argocd_app_details_of_the_app_source(argocd: ArgoCDPair) -> None:
    """What ``repo.GetAppDetails`` reads: the app's (plain directory) source."""
    fake, real = _details(argocd.fake, argocd.app), _details(argocd.real, argocd.app)
    same(Answer.of(fake), Answer.of(real))
    same(fake.json().get("type"), real.json().get("type"))


def test_argocd_app_details_for_another_project(argocd: ArgoCDPair) -> None:
    fake = _details(argocd.fake, argocd.app, "pfe2e-other")
    same(Answer.of(fake), Answer.of(_details(argocd.real, argocd.app, "pfe2e-other")))


# --- Kubernetes API vs the simulator's FakeKubeAPI -------------------------------------------


@dataclass
class KubePair:
    real: client.CustomObjectsApi
    fake: client.CustomObjectsApi
    kube: FakeKubeAPI
    namespace: str
    app: str


@pytest.fixture
def kube(e2e: E2ESettings, real_app: str) -> Iterator[KubePair]:
    sim = ArgoCDSimulator(namespace=e2e.argocd_namespace)
    sim.add_app(real_app, repo_url="https://git.example.com/x.git", path="app", revision="1" * 40)
    fake_kube = FakeKubeAPI(sim)
    with fake_kube.serve() as served:
        configuration = client.Configuration()
        configuration.host = served.url
        fake = client.CustomObjectsApi(client.ApiClient(configuration))
        yield KubePair(
            client.CustomObjectsApi(api_client(e2e)), fake, fake_kube, e2e.argocd_namespace,
            real_app,
        )  # fmt: skip


def raw_watch(api: client.CustomObjectsApi, namespace: str, **params: Any) -> list[dict[str, Any]]:
    response = api.list_namespaced_custom_object(
        GROUP, VERSION, namespace, "applications", watch=True, _preload_content=False, **params
    )
    return [json.loads(line) for line in response.read().splitlines() if line.strip()]


def test_kube_watch_from_an_expired_resource_version(kube: KubePair) -> None:
    kube.kube.sim.set_health(kube.app, "Progressing")  # history moves past version 1
    kube.kube.expire_watch_history()
    fake = raw_watch(kube.fake, kube.namespace, resource_version="1", timeout_seconds=2)
    real = raw_watch(kube.real, kube.namespace, resource_version="1", timeout_seconds=2)
    same([e["type"] for e in fake], [e["type"] for e in real])
    f, r = fake[0]["object"], real[0]["object"]
    same(sorted(f), sorted(r))
    same((f["code"], f["reason"], f["kind"]), (r["code"], r["reason"], r["kind"]))
    assert r["message"].startswith("too old resource version: 1 (")
    assert f["message"].startswith("too old resource version: 1 (")


def test_kube_watch_sends_bookmarks_when_asked(kube: KubePair) -> None:
    """``allowWatchBookmarks=true``: the real API server sends BOOKMARK events (here
    before the watch times out), as the fake does.

    The server schedules that bookmark two seconds before the watch's deadline and sends
    it from a timer that ticks about once a second (the cacher's ``nextBookmarkTime`` and
    ``dispatchEvents``); on a loaded control plane the deadline can win that race, so the
    real side gets three watches to show one."""

    def bookmarks(api: client.CustomObjectsApi) -> int:
        rv = api.list_namespaced_custom_object(GROUP, VERSION, kube.namespace, "applications")
        events = raw_watch(
            api, kube.namespace, resource_version=rv["metadata"]["resourceVersion"],
            allow_watch_bookmarks=True, timeout_seconds=15, label_selector="none=here",
        )  # fmt: skip
        return sum(e["type"] == "BOOKMARK" for e in events)

    real = any(bookmarks(kube.real) > 0 for _ in range(3))
    same(bookmarks(kube.fake) > 0, real)


def test_kube_missing_application(kube: KubePair) -> None:
    def status(api: client.CustomObjectsApi) -> dict[str, Any]:
        try:
            api.get_namespaced_custom_object(GROUP, VERSION, kube.namespace, "applications", "x-no")
        except client.ApiException as exc:
            data: dict[str, Any] = json.loads(exc.body)
            return data
        raise AssertionError("no error")

    same(status(kube.fake), status(kube.real))


@pytest.mark.parametrize(
    "content_type",
    ["application/merge-patch+json", "application/json-patch+json",
     "application/strategic-merge-patch+json"],
)  # fmt: skip
def test_kube_patch_content_types(kube: KubePair, e2e: E2ESettings, content_type: str) -> None:
    """Which patch formats an Application accepts (custom resources: merge and JSON
    patch, not strategic merge)."""
    label = {"metadata": {"labels": {"promoflow.dev/parity": "x"}}}
    bodies = {
        "application/json-patch+json": [
            {"op": "add", "path": "/metadata/labels/promoflow.dev~1parity", "value": "x"}
        ]
    }
    body = bodies.get(content_type, label)

    def answer(api: client.CustomObjectsApi) -> int:
        base = api.api_client
        path = f"/apis/{GROUP}/{VERSION}/namespaces/{kube.namespace}/applications/{kube.app}"
        headers = {"Content-Type": content_type, "Accept": "application/json"}
        base.update_params_for_auth(headers, None, ["BearerToken"], path, "PATCH", body)
        response = base.call_api("PATCH", base.configuration.host + path, headers, body)
        response.read()
        return int(response.status)

    same(answer(kube.fake), answer(kube.real))


# --- the Argo Server vs tests/fakes/argo_server.py -------------------------------------------


@dataclass
class ArgoPair:
    real: httpx.Client
    fake: httpx.Client
    server: FakeArgoServer
    namespace: str
    made: list[str]


@pytest.fixture
def argo(e2e: E2ESettings) -> Iterator[ArgoPair]:
    with (
        FakeArgoServer(token=TOKEN) as server,
        httpx.Client(
            base_url=f"{server.url}/api/v1", headers={"Authorization": f"Bearer {TOKEN}"}
        ) as fake,  # fmt: skip
        argo_http(e2e) as real,
    ):
        # the fake knows its caller from what it is told; the real one from the token
        server.userinfo = real.get("/userinfo").json()
        pair = ArgoPair(real, fake, server, e2e.argo_namespace, [])
        yield pair
        for path in pair.made:
            real.delete(path)


def suspend_template(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {"entrypoint": "main", "templates": [{"name": "main", "suspend": {}}]},
    }


def both(pair: ArgoPair, method: str, path: str, body: Any = None) -> tuple[httpx.Response, ...]:
    out = []
    for http in (pair.fake, pair.real):
        out.append(http.request(method, path.format(ns=pair.namespace), json=body))
    return tuple(out)


def test_argo_workflow_naming_a_missing_template(argo: ArgoPair) -> None:
    wf = {"metadata": {"name": f"pfe2e-{short_id()}"},
          "spec": {"workflowTemplateRef": {"name": "pfe2e-no-such-template"}}}  # fmt: skip
    fake, real = both(argo, "POST", "/workflows/{ns}", {"workflow": wf})
    same(Answer.of(fake), Answer.of(real))


def test_argo_update_from_a_stale_resource_version(argo: ArgoPair) -> None:
    name = f"pfe2e-{short_id()}"
    argo.made.append(f"/workflow-templates/{argo.namespace}/{name}")
    answers = []
    for http in (argo.fake, argo.real):
        created = http.post(f"/workflow-templates/{argo.namespace}",
                            json={"template": suspend_template(name)}).json()  # fmt: skip
        update = suspend_template(name)
        update["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
        path = f"/workflow-templates/{argo.namespace}/{name}"
        assert http.put(path, json={"template": update}).status_code == 200
        answers.append(Answer.of(http.put(path, json={"template": update})))
    same(*answers)


def test_argo_stores_a_template_as_sent(argo: ArgoPair) -> None:
    """promoflow apply compares what it would send with what the server holds."""
    name = f"pfe2e-{short_id()}"
    argo.made.append(f"/workflow-templates/{argo.namespace}/{name}")
    sent = suspend_template(name)
    stored = []
    for http in (argo.fake, argo.real):
        http.post(f"/workflow-templates/{argo.namespace}", json={"template": sent})
        stored.append(http.get(f"/workflow-templates/{argo.namespace}/{name}").json()["spec"])
    same(*stored)


def test_argo_labels_who_wrote(argo: ArgoPair) -> None:
    """The Argo Server labels what a user creates or changes with who did it
    (``workflows.argoproj.io/creator``, ``actor``...): the approver check reads them."""
    name = f"pfe2e-{short_id()}"
    argo.made.append(f"/workflow-templates/{argo.namespace}/{name}")
    labels = []
    for http in (argo.fake, argo.real):
        created = http.post(f"/workflow-templates/{argo.namespace}",
                            json={"template": suspend_template(name)}).json()  # fmt: skip
        labels.append(created["metadata"].get("labels") or {})
    same(*labels)


def test_argo_list_that_matches_nothing(argo: ArgoPair) -> None:
    params = {"listOptions.labelSelector": "promoflow.dev/none=here"}
    fake = argo.fake.get(f"/workflows/{argo.namespace}", params=params).json()
    real = argo.real.get(f"/workflows/{argo.namespace}", params=params).json()
    same(fake.get("items"), real.get("items"))


def test_argo_set_outputs_of_a_node_that_takes_none(argo: ArgoPair, e2e: E2ESettings) -> None:
    """``set`` with output parameters on a suspend node whose template declares no
    ``supplied`` outputs: the real server refuses it."""
    name = f"pfe2e-{short_id()}"
    _suspended(argo, name)
    body = {"nodeFieldSelector": f"displayName={name}",
            "outputParameters": json.dumps({"approve": "YES"}), "phase": "Succeeded"}  # fmt: skip
    fake, real = both(argo, "PUT", f"/workflows/{{ns}}/{name}/set", body)
    same(Answer.of(fake), Answer.of(real))


def test_argo_version_answers_what_readiness_reads(argo: ArgoPair) -> None:
    """``promoflow serve``'s /readyz asks /api/v1/version: the same status and fields."""
    fake, real = both(argo, "GET", "/version")
    assert fake.status_code == real.status_code == 200
    same(sorted(fake.json()), sorted(real.json()))


def test_argo_version_and_userinfo_answer_a_refused_token(argo: ArgoPair) -> None:
    """``/version`` answers anyone, ``/userinfo`` a refused token with ``{}``; a request
    that needs the token (what ``promoflow version`` asks) is refused with 401."""
    wrong = {"Authorization": "Bearer pfe2e-refused-token"}
    answers = []
    for http in (argo.fake, argo.real):
        version = http.get("/version", headers=wrong)
        userinfo = http.get("/userinfo", headers=wrong)
        listed = http.get(
            f"/workflows/{argo.namespace}", params={"listOptions.limit": "1"}, headers=wrong
        )
        answers.append(
            (Answer.of(version), Answer.of(userinfo), userinfo.json(), listed.status_code)
        )
    same(*answers)


def log_answer(response: httpx.Response) -> tuple[int, str, Any]:
    """Status, media type, and the shape of each streamed line (or of the error)."""
    kind = response.headers.get("content-type", "").split(";")[0]
    lines = [json.loads(line) for line in response.text.splitlines() if line.strip()]
    shapes: list[Any] = []
    for line in lines:
        inner = line.get("result") or line.get("error") or {}
        shapes.append((sorted(line), sorted(inner)))
    return response.status_code, kind, shapes


def test_argo_log_of_a_workflow_without_pods(argo: ArgoPair) -> None:
    """``promoflow logs``: a stream of JSON lines; a run with no pod streams none."""
    name = f"pfe2e-{short_id()}"
    _suspended(argo, name)
    params = {"logOptions.container": "main"}
    fake, real = (
        http.get(f"/workflows/{argo.namespace}/{name}/log", params=params, timeout=30)
        for http in (argo.fake, argo.real)
    )
    same(log_answer(fake), log_answer(real))
    assert log_answer(real) == (200, "application/json", [])


@pytest.mark.parametrize("case", ["missing workflow", "refused token"])
def test_argo_log_refused_before_the_stream(argo: ArgoPair, case: str) -> None:
    """A streaming call that fails before its first line: grpc-gateway's wrapped error
    (``{"error": {"grpc_code", "http_code", "message", "http_status"}}``), not the
    ``{"code", "message"}`` of the other calls."""
    name = "pfe2e-no-such-run" if case == "missing workflow" else f"pfe2e-{short_id()}"
    if case == "refused token":
        _suspended(argo, name)
    headers = {"Authorization": "Bearer pfe2e-refused-token"} if case == "refused token" else {}
    params = {"logOptions.container": "main"}
    fake, real = (
        http.get(f"/workflows/{argo.namespace}/{name}/log", params=params, headers=headers)
        for http in (argo.fake, argo.real)
    )
    same(log_answer(fake), log_answer(real))
    same(fake.json()["error"]["grpc_code"], real.json()["error"]["grpc_code"])
    if case == "missing workflow":
        same(fake.json()["error"]["message"], real.json()["error"]["message"])


def _suspended(argo: ArgoPair, name: str) -> None:
    """The same suspended workflow on both servers (the fake told what the controller
    would have made of it)."""
    argo.made.append(f"/workflows/{argo.namespace}/{name}")
    wf = {"metadata": {"name": name}, "spec": suspend_template(name)["spec"]}
    argo.real.post(f"/workflows/{argo.namespace}", json={"workflow": wf})
    argo.fake.post(f"/workflows/{argo.namespace}", json={"workflow": wf})
    stored = argo.server.store.get("Workflow", argo.namespace, name)
    node = {"id": name, "name": name, "displayName": name, "type": "Suspend", "phase": "Running"}
    stored["status"] = {"phase": "Running", "nodes": {name: node}}
    argo.server.store.put("Workflow", argo.namespace, stored)

    def running() -> bool:
        status = argo.real.get(f"/workflows/{argo.namespace}/{name}").json().get("status") or {}
        return (status.get("nodes") or {}).get(name, {}).get("phase") == "Running"

    wait_until("the real workflow is suspended", running, 60)


def test_argo_stop_a_waiting_node_with_a_message(argo: ArgoPair) -> None:
    """What ``concurrency: supersede`` does: the waiting node fails with the message."""
    name = f"pfe2e-{short_id()}"
    _suspended(argo, name)
    body = {"name": name, "nodeFieldSelector": f"displayName={name}", "message": "superseded"}
    fake, real = both(argo, "PUT", f"/workflows/{{ns}}/{name}/stop", body)
    same(Answer.of(fake), Answer.of(real))

    def node_of(http: httpx.Client) -> dict[str, Any] | None:
        status = http.get(f"/workflows/{argo.namespace}/{name}").json().get("status") or {}
        node = (status.get("nodes") or {}).get(name) or {}
        return node if node.get("phase") == "Failed" else None

    real_node = wait_until("the real node fails", lambda: node_of(argo.real), 60)
    fake_node = node_of(argo.fake)
    assert fake_node is not None
    same(
        (fake_node["phase"], fake_node.get("message")),
        (real_node["phase"], real_node.get("message")),
    )


def test_argo_stop_of_a_finished_workflow(argo: ArgoPair) -> None:
    """A run that ended meanwhile cannot be stopped: the supersede code expects this."""
    name = f"pfe2e-{short_id()}"
    _suspended(argo, name)
    body = {"name": name}
    for http in (argo.real, argo.fake):
        assert http.put(f"/workflows/{argo.namespace}/{name}/stop", json=body).status_code == 200

    def ended() -> bool:
        status = argo.real.get(f"/workflows/{argo.namespace}/{name}").json().get("status") or {}
        return status.get("phase") in ("Failed", "Succeeded", "Error")

    wait_until("the real workflow ends", ended, 60)
    fake, real = both(argo, "PUT", f"/workflows/{{ns}}/{name}/stop", body)
    same(Answer.of(fake), Answer.of(real))
    assert "cannot shutdown a completed workflow" in real.json()["message"]


def test_kube_workload_and_a_missing_one(
    kube: KubePair, e2e: E2ESettings, workload_app: str
) -> None:
    """What the gate's Kubernetes path reads of an app's workloads: the Deployment (its
    pod template), and the 404 ``Status`` of one that is not there."""
    real_apps = client.CustomObjectsApi(api_client(e2e))
    real = real_apps.get_namespaced_custom_object(
        "apps", "v1", workload_app, "deployments", workload_app
    )
    kube.kube.sim.add_app(
        workload_app, repo_url="https://git.example.com/x.git", path="app",
        images=[f"registry.invalid/{workload_app}:1"], destination_namespace=workload_app,
    )  # fmt: skip
    fake = kube.fake.get_namespaced_custom_object(
        "apps", "v1", workload_app, "deployments", workload_app
    )
    same((fake["apiVersion"], fake["kind"]), (real["apiVersion"], real["kind"]))
    same(
        [c["image"] for c in fake["spec"]["template"]["spec"]["containers"]],
        [c["image"] for c in real["spec"]["template"]["spec"]["containers"]],
    )

    def missing(api: client.CustomObjectsApi) -> dict[str, Any]:
        try:
            api.get_namespaced_custom_object("apps", "v1", workload_app, "deployments", "x-no")
        except client.ApiException as exc:
            data: dict[str, Any] = json.loads(exc.body)
            return data
        raise AssertionError("no error")

    same(missing(kube.fake), missing(real_apps))
