"""The fake Argo Server answers like the real one: shapes from the swagger, real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.contract.swagger import response_errors, swagger
from tests.fakes.argo_server import ROUTES, FakeArgoServer

TOKEN = "fake-argo-token"
WF = "/api/v1/workflows/{namespace}"
WF_ONE = "/api/v1/workflows/{namespace}/{name}"
WT = "/api/v1/workflow-templates/{namespace}"
WT_ONE = "/api/v1/workflow-templates/{namespace}/{name}"


def workflow(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"workflowTemplateRef": {"name": "promoflow-shop"}},
    }


def template(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {
            "entrypoint": "main",
            "templates": [{"name": "main", "suspend": {"duration": "5m"}}],
        },
    }


@pytest.fixture
def server() -> Iterator[FakeArgoServer]:
    with FakeArgoServer(token=TOKEN) as fake:
        yield fake


@pytest.fixture
def http(server: FakeArgoServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        c.post("/api/v1/workflow-templates/argo", json={"template": template("promoflow-shop")})
        yield c


def check(path: str, method: str, response: httpx.Response) -> Any:
    body = response.json()
    assert response_errors(path, method, response.status_code, body) == []
    return body


def test_served_paths_exist_in_the_swagger() -> None:
    paths = swagger()["paths"]
    for path, methods in ROUTES.items():
        assert path in paths
        assert {m.lower() for m in methods} <= set(paths[path])


def test_create_get_list_round_trip(http: httpx.Client) -> None:
    created = check(
        WF, "POST", http.post("/api/v1/workflows/argo", json={"workflow": workflow("a")})
    )
    assert created["metadata"]["namespace"] == "argo" and created["metadata"]["uid"]
    got = check(WF_ONE, "GET", http.get("/api/v1/workflows/argo/a"))
    # stored as Go serialises it: the empty Arguments struct is written out
    assert got["spec"] == {**workflow("a")["spec"], "arguments": {}}
    assert "apiVersion" not in got and "kind" not in got  # typed objects, as Argo answers
    listed = check(WF, "GET", http.get("/api/v1/workflows/argo"))
    assert [w["metadata"]["name"] for w in listed["items"]] == ["a"]


def test_workflow_needs_its_template(http: httpx.Client) -> None:
    orphan = workflow("orphan")
    orphan["spec"]["workflowTemplateRef"]["name"] = "missing"
    response = http.post("/api/v1/workflows/argo", json={"workflow": orphan})
    assert response.status_code == 404 and response.json()["code"] == 5
    assert response.json()["message"] == 'workflowtemplates.argoproj.io "missing" not found'


def test_an_empty_list_has_null_items(http: httpx.Client) -> None:
    """Go marshals an empty typed list as null, which the swagger's ``array`` does not
    allow: clients (Hera's models, promoflow) must take ``null`` as no items."""
    listed = http.get("/api/v1/workflows/argo")
    assert listed.status_code == 200 and listed.json()["items"] is None


def test_what_a_caller_writes_is_labelled_with_who_they_are(
    server: FakeArgoServer, http: httpx.Client
) -> None:
    server.userinfo = {"subject": "system:serviceaccount:argo:ci", "email": "ci@example.com"}
    created = check(
        WT, "POST", http.post("/api/v1/workflow-templates/argo", json={"template": template("t")})
    )
    assert created["metadata"]["labels"] == {
        "workflows.argoproj.io/creator": "system-serviceaccount-argo-ci",
        "workflows.argoproj.io/creator-email": "ci.at.example.com",
    }
    updated = template("t")
    updated["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    put = http.put("/api/v1/workflow-templates/argo/t", json={"template": updated})
    assert check(WT_ONE, "PUT", put)["metadata"]["labels"] == {  # creator not repeated: gone
        "workflows.argoproj.io/actor": "system-serviceaccount-argo-ci",
        "workflows.argoproj.io/actor-email": "ci.at.example.com",
        "workflows.argoproj.io/action": "Update",
    }


def test_duplicate_name_is_409_and_missing_is_404(http: httpx.Client) -> None:
    http.post("/api/v1/workflows/argo", json={"workflow": workflow("a")})
    again = http.post("/api/v1/workflows/argo", json={"workflow": workflow("a")})
    assert again.status_code == 409
    assert check(WF, "POST", again)["code"] == 6
    missing = http.get("/api/v1/workflows/argo/nope")
    assert missing.status_code == 404 and check(WF_ONE, "GET", missing)["code"] == 5


def test_invalid_object_is_400_and_not_stored(server: FakeArgoServer, http: httpx.Client) -> None:
    bad = workflow("bad")
    bad["spec"]["parallelism"] = "lots"
    response = http.post("/api/v1/workflows/argo", json={"workflow": bad})
    assert response.status_code == 400 and "parallelism" in response.json()["message"]
    assert server.store.list("Workflow", "argo") == []


def test_label_selector_filters(http: httpx.Client) -> None:
    http.post("/api/v1/workflows/argo", json={"workflow": workflow("a", {"p": "shop"})})
    http.post("/api/v1/workflows/argo", json={"workflow": workflow("b", {"p": "cart"})})
    listed = http.get("/api/v1/workflows/argo", params={"listOptions.labelSelector": "p=shop"})
    assert [w["metadata"]["name"] for w in check(WF, "GET", listed)["items"]] == ["a"]


def test_template_update_needs_current_version(http: httpx.Client) -> None:
    created = check(
        WT, "POST", http.post("/api/v1/workflow-templates/argo", json={"template": template("t")})
    )
    updated = template("t")
    updated["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    updated["spec"]["entrypoint"] = "main"
    ok = http.put("/api/v1/workflow-templates/argo/t", json={"template": updated})
    assert (
        check(WT_ONE, "PUT", ok)["metadata"]["resourceVersion"]
        != created["metadata"]["resourceVersion"]
    )
    stale = http.put("/api/v1/workflow-templates/argo/t", json={"template": updated})
    assert stale.status_code == 409


def test_set_updates_a_suspend_node(server: FakeArgoServer, http: httpx.Client) -> None:
    http.post("/api/v1/workflows/argo", json={"workflow": workflow("run")})
    wf = server.store.get("Workflow", "argo", "run")
    wf["status"] = {
        "phase": "Running",
        "nodes": {
            "n1": {"id": "n1", "name": "run.approve-prod", "displayName": "approve-prod",
                   "type": "Suspend", "phase": "Running",
                   "outputs": {"parameters": [{"name": "approve", "valueFrom": {"supplied": {}}}]}},
        },
    }  # fmt: skip
    server.store.put("Workflow", "argo", wf)
    undeclared = {"nodeFieldSelector": "displayName=approve-prod",
                  "outputParameters": json.dumps({"other": "x"}), "phase": "Succeeded"}  # fmt: skip
    refused = http.put("/api/v1/workflows/argo/run/set", json=undeclared)
    assert (refused.status_code, refused.json()["code"]) == (500, 13)
    assert refused.json()["message"] == "node is not expecting output parameter 'other'"
    assert server.store.get("Workflow", "argo", "run")["status"] == wf["status"]  # unchanged
    body = {
        "nodeFieldSelector": "displayName=approve-prod",
        "outputParameters": json.dumps({"approve": "YES"}),
        "message": "approved by alice",
        "phase": "Succeeded",
    }
    result = check("/api/v1/workflows/{namespace}/{name}/set", "PUT",
                   http.put("/api/v1/workflows/argo/run/set", json=body))  # fmt: skip
    node = result["status"]["nodes"]["n1"]
    assert node["outputs"]["parameters"] == [{"name": "approve", "value": "YES"}]
    assert node["phase"] == "Succeeded" and node["message"] == "approved by alice"
    node["phase"] = "Running"  # supplied once: a second answer is refused
    server.store.put("Workflow", "argo", result)
    again = http.put("/api/v1/workflows/argo/run/set", json=body)
    assert again.status_code == 500 and "already set" in again.json()["message"]


def test_token_is_required(server: FakeArgoServer) -> None:
    response = httpx.get(f"{server.url}/api/v1/workflows/argo")
    assert response.status_code == 401
    assert response_errors(WF, "GET", 401, response.json()) == []
    wrong = httpx.get(f"{server.url}/api/v1/workflows/argo", headers={"Authorization": "Bearer x"})
    assert wrong.status_code == 401


def test_submit_from_template(http: httpx.Client) -> None:
    body = {
        "namespace": "argo",
        "resourceKind": "WorkflowTemplate",
        "resourceName": "promoflow-shop",
        "submitOptions": {"parameters": ["version=1.2.3"], "labels": "promoflow.dev/product=shop"},
    }
    created = check(
        "/api/v1/workflows/{namespace}/submit", "POST",
        http.post("/api/v1/workflows/argo/submit", json=body),
    )  # fmt: skip
    assert created["metadata"]["name"].startswith("promoflow-shop-")
    assert created["spec"]["workflowTemplateRef"] == {"name": "promoflow-shop"}
    assert created["spec"]["arguments"]["parameters"] == [{"name": "version", "value": "1.2.3"}]
    assert created["metadata"]["labels"] == {"promoflow.dev/product": "shop"}
    missing = http.post("/api/v1/workflows/argo/submit", json={**body, "resourceName": "nope"})
    assert missing.status_code == 404
