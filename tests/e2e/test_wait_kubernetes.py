"""The gate's Kubernetes access path against the real API server: watches that expire,
bookmarks, and credentials given as ``PROMOFLOW_KUBE_API`` + ``PROMOFLOW_KUBE_TOKEN``.

The fake API server (tests/fakes/kube.py) answers an expired watch with an
``ERROR`` event of status 410; here the real kube-apiserver does (its watch cache refuses a
resourceVersion older than its window: "too old resource version"), and
:class:`~orchestrator.gates.sources.KubeSource` must list again and carry on. A recording
wrapper around the client's ``CustomObjectsApi`` keeps the raw watch lines, so each test
shows what the server actually sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubernetes import client

from orchestrator.gates.sources import KubeSource
from orchestrator.gates.wait import Waiter, WaitOptions
from tests.e2e.conftest import DeployedApp
from tests.e2e.k8s import GROUP, VERSION, Apps, api_client, configmap, short_id
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import clean_env, run

pytestmark = pytest.mark.e2e


class RecordingResponse:
    """A watch response that keeps every line it hands to the client."""

    def __init__(self, response: Any, lines: list[dict[str, Any]]) -> None:
        self._response, self._lines, self._buffer = response, lines, b""
        self.status = response.status

    def stream(self, amt: int | None = None, decode_content: bool = False) -> Iterator[bytes]:
        for segment in self._response.stream(amt=amt, decode_content=decode_content):
            self._buffer += segment
            *complete, self._buffer = self._buffer.split(b"\n")
            self._lines.extend(json.loads(line) for line in complete if line.strip())
            yield segment

    def close(self) -> None:
        self._response.close()

    def release_conn(self) -> None:
        self._response.release_conn()


class RecordingApi:
    """``CustomObjectsApi`` as KubeSource uses it, recording every call and watch line;
    ``bookmarks`` asks the server for BOOKMARK events on every watch."""

    def __init__(self, api: client.CustomObjectsApi, bookmarks: bool = False) -> None:
        self.api, self.bookmarks = api, bookmarks
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.lines: list[dict[str, Any]] = []

    def get_namespaced_custom_object(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("get", kwargs))
        return self.api.get_namespaced_custom_object(*args, **kwargs)

    def patch_namespaced_custom_object(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("patch", kwargs))
        return self.api.patch_namespaced_custom_object(*args, **kwargs)

    def list_namespaced_custom_object(self, *args: Any, **kwargs: Any) -> Any:
        watching = bool(kwargs.get("watch"))
        if watching and self.bookmarks:
            kwargs["allow_watch_bookmarks"] = True
        self.calls.append(("watch" if watching else "list", dict(kwargs)))
        result = self.api.list_namespaced_custom_object(*args, **kwargs)
        return RecordingResponse(result, self.lines) if watching else result

    # the kubernetes client's Watch reads the return type from the docstring
    list_namespaced_custom_object.__doc__ = (
        client.CustomObjectsApi.list_namespaced_custom_object.__doc__
    )


def custom_objects(e2e: E2ESettings) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api_client(e2e))


def test_an_expired_watch_is_resumed_from_a_fresh_list(
    e2e: E2ESettings, deployed: Callable[..., DeployedApp]
) -> None:
    """The gate's watch resumes from a resourceVersion the API server no longer keeps
    (what a long-lived gate meets after etcd compaction or an API server restart): the
    server answers 410 Expired, KubeSource lists again and the wait still ends deployed."""
    app = deployed(with_deployment=False)
    new = app.commit({"configmap.yaml": configmap(app.name, "2")})
    api = RecordingApi(custom_objects(e2e))
    source = KubeSource(api, e2e.argocd_namespace)
    source.apps.resource_version = "1"  # held from long ago

    result = Waiter(
        source, [app.name], new, WaitOptions(sync_timeout=120, health_timeout=60, poll_interval=2)
    ).run()

    assert result.ok, result.reason
    errors = [line for line in api.lines if line["type"] == "ERROR"]
    assert errors, api.lines[:3]
    status = errors[0]["object"]
    assert status["code"] == 410 and status["reason"] == "Expired", status
    assert status["message"].startswith("too old resource version: 1 ("), status
    kinds = [kind for kind, _ in api.calls if kind in ("list", "watch")]
    assert kinds[:3] == ["watch", "list", "watch"], api.calls
    assert api.calls[[k for k, _ in api.calls].index("watch")][1]["resource_version"] == "1"
    assert int(source.apps.resource_version or 0) > 1


def test_bookmarks_move_the_resource_version_and_are_not_applications(
    e2e: E2ESettings, deployed: Callable[..., DeployedApp]
) -> None:
    """With ``allowWatchBookmarks`` the server may send BOOKMARK events (an object with
    only ``metadata.resourceVersion``) before a watch times out; the informer asks for them.
    It must keep the resourceVersion of every line it reads, bookmarks included (so its
    next watch starts where the last one ended), and never hand a bookmark to the gate as
    an application. Bookmarks are a hint the server need not send in any one watch (the
    API's own words), so up to four 15 s watches are read until one has come."""
    app = deployed(with_deployment=False)
    api = RecordingApi(custom_objects(e2e), bookmarks=True)
    source = KubeSource(api, e2e.argocd_namespace)
    source.apps.resource_version = api.list_namespaced_custom_object(
        GROUP, VERSION, e2e.argocd_namespace, "applications", label_selector="none=here"
    )["metadata"]["resourceVersion"]

    seen: list[dict[str, Any]] = []
    for _ in range(4):
        seen += source.changes([app.name], timeout=15)
        if any(line["type"] == "BOOKMARK" for line in api.lines):
            break

    bookmarks = [line for line in api.lines if line["type"] == "BOOKMARK"]
    assert bookmarks, [line["type"] for line in api.lines]
    assert set(bookmarks[-1]["object"]["metadata"]) == {"resourceVersion"}
    assert all(a["metadata"]["name"] == app.name and a.get("status") for a in seen), seen
    # other apps of the namespace change too: a line after the bookmark moves it further
    last = api.lines[-1]["object"]["metadata"]["resourceVersion"]
    assert source.apps.resource_version == last, (last, [line["type"] for line in api.lines])
    assert int(last) >= int(bookmarks[-1]["object"]["metadata"]["resourceVersion"])


def test_kube_api_url_and_token_reach_a_cluster_with_its_own_ca(
    e2e: E2ESettings, apps: Apps, deployed: Callable[..., DeployedApp]
) -> None:
    """``PROMOFLOW_KUBE_API`` + ``PROMOFLOW_KUBE_TOKEN`` (no kubeconfig, not in a pod):
    a ServiceAccount allowed to read and patch Applications, its token, the API server's
    URL. Clusters serve their API with a certificate of their own CA (this one, kind,
    kubeadm, EKS, GKE...); the gate has to be able to trust it."""
    app = deployed(with_deployment=False)
    base = api_client(e2e)
    core, rbac = client.CoreV1Api(base), client.RbacAuthorizationV1Api(base)
    ns, account = e2e.argocd_namespace, f"pfe2e-reader-{short_id()}"
    core.create_namespaced_service_account(ns, {"metadata": {"name": account}})
    rbac.create_namespaced_role(ns, {
        "metadata": {"name": account},
        "rules": [{"apiGroups": ["argoproj.io"], "resources": ["applications"],
                   "verbs": ["get", "list", "watch", "patch"]}],
    })  # fmt: skip
    rbac.create_namespaced_role_binding(ns, {
        "metadata": {"name": account},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": account},
        "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": ns}],
    })  # fmt: skip
    try:
        token = core.create_namespaced_service_account_token(
            account, ns, {"spec": {"expirationSeconds": 600}}
        ).status.token
        env = clean_env(
            PROMOFLOW_ARGOCD_ACCESS="kubernetes",
            PROMOFLOW_ARGOCD_NAMESPACE=ns,
            PROMOFLOW_KUBE_API=base.configuration.host,
            PROMOFLOW_KUBE_TOKEN=token,
            PROMOFLOW_KUBE_CA=str(base.configuration.ssl_ca_cert),
        )

        done = run(
            "step", "wait-argocd", "--app", app.name, "--revision", app.first,
            "--timeout", "30s", env=env, timeout=120,
        )  # fmt: skip

        assert done.code == 0, done
        assert done.json()["state"] == "deployed"
    finally:
        rbac.delete_namespaced_role_binding(account, ns)
        rbac.delete_namespaced_role(account, ns)
        core.delete_namespaced_service_account(account, ns)
