"""Approvals answered the way the Argo Workflows UI (v4.0.5) answers them, against the real
Argo Server: its own requests, with the exact body shapes it sends.

The UI is not built here (its ``argo-ui`` dependency comes from a git URL), so these tests
replay what it sends. The node's resume dialog shows every input of the suspend node as a
field and sends them all as outputs, then resumes the node by id::

    PUT /api/v1/workflows/NS/NAME/set
    {"nodeFieldSelector": "id=NODE-ID", "outputParameters": "{\\"approve\\":\\"YES\\"}"}
    PUT /api/v1/workflows/NS/NAME/resume   {"nodeFieldSelector": "id=NODE-ID"}

and the workflow's own RESUME button resumes every waiting node without an answer::

    PUT /api/v1/workflows/NS/NAME/resume   {"nodeFieldSelector": null}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.e2e.flows import (
    Flow,
    argo_client,
    argo_http,
    node_output,
    nodes,
    summary,
    wait_for_end,
    wait_for_node,
)
from tests.e2e.runs import flow_with_approvers, own_subject, second_identity, submit
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e


def dialog_answer(node: dict[str, Any], choice: str) -> dict[str, str]:
    """What the dialog sends: every input of the node, the chosen value for ``approve``
    and each other field as shown (its value, else its default)."""
    answer = {}
    for param in node.get("inputs", {}).get("parameters", []):
        shown = param.get("value", param.get("default", ""))
        answer[param["name"]] = choice if param["name"] == "approve" else shown
    return answer


def as_user(e2e: E2ESettings, token: str | None) -> httpx.Client:
    http = argo_http(e2e)
    if token:
        http.headers["Authorization"] = token
    return http


@pytest.mark.parametrize("who", ["listed", "other"])
def test_the_node_dialog_set_then_resume_promotes_a_listed_approver_only(
    e2e: E2ESettings, flows: Callable[..., Flow], who: str
) -> None:
    flow = flow_with_approvers(flows, [f"user:{own_subject(e2e)}"])
    name = submit(flow)
    client = argo_client(e2e)
    node = wait_for_node(client, name, "approve-prod", ("Running",), 60)
    token = second_identity(e2e) if who == "other" else None
    path = f"/workflows/{e2e.argo_namespace}/{name}"

    with as_user(e2e, token) as http:
        body = {
            "nodeFieldSelector": f"id={node['id']}",
            "outputParameters": json.dumps(dialog_answer(node, "YES"), separators=(",", ":")),
        }
        answered = http.put(f"{path}/set", json=body)
        assert answered.status_code == 200, answered.text
        resumed = http.put(f"{path}/resume", json={"nodeFieldSelector": f"id={node['id']}"})
        assert resumed.status_code == 200, resumed.text

    workflow = wait_for_end(client, name, e2e.timeout)
    approve, judged = nodes(workflow)["approve-prod"], nodes(workflow)["approver-prod"]
    assert node_output(approve, "approve") == "YES", approve
    if who == "listed":
        assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
        assert nodes(workflow)["soak-prod"]["phase"] == "Succeeded", summary(workflow)
    else:
        assert workflow["status"]["phase"] == "Failed", summary(workflow)
        assert judged["phase"] == "Failed" and "may not approve prod" in judged["message"]
        assert nodes(workflow).get("soak-prod", {}).get("phase") != "Succeeded"


def test_the_dialog_answering_no_stops_the_environment(
    e2e: E2ESettings, flows: Callable[..., Flow]
) -> None:
    flow = flow_with_approvers(flows, [f"user:{own_subject(e2e)}"])
    name = submit(flow)
    client = argo_client(e2e)
    node = wait_for_node(client, name, "approve-prod", ("Running",), 60)
    path = f"/workflows/{e2e.argo_namespace}/{name}"
    with argo_http(e2e) as http:
        body = {
            "nodeFieldSelector": f"id={node['id']}",
            "outputParameters": json.dumps(dialog_answer(node, "NO"), separators=(",", ":")),
        }
        assert http.put(f"{path}/set", json=body).status_code == 200
        selector = {"nodeFieldSelector": f"id={node['id']}"}
        assert http.put(f"{path}/resume", json=selector).status_code == 200

    workflow = wait_for_end(client, name, e2e.timeout)
    judged = nodes(workflow)["approver-prod"]
    assert workflow["status"]["phase"] == "Failed", summary(workflow)
    assert judged["phase"] == "Failed" and "prod rejected by " in judged["message"], judged
    assert nodes(workflow).get("soak-prod", {}).get("phase") != "Succeeded"


def test_the_workflow_resume_button_is_not_an_answer(
    e2e: E2ESettings, flows: Callable[..., Flow]
) -> None:
    """RESUME with no node selected gives the waiting approval its empty default: the
    environment stops, saying who resumed it and how to answer, and the run is not green."""
    flow = flow_with_approvers(flows, [])
    name = submit(flow)
    client = argo_client(e2e)
    wait_for_node(client, name, "approve-prod", ("Running",), 60)

    with argo_http(e2e) as http:
        path = f"/workflows/{e2e.argo_namespace}/{name}/resume"
        resumed = http.put(path, json={"nodeFieldSelector": None})
        assert resumed.status_code == 200, resumed.text

    workflow = wait_for_end(client, name, e2e.timeout)
    approve, judged = nodes(workflow)["approve-prod"], nodes(workflow)["approver-prod"]
    assert node_output(approve, "approve") == "", approve
    assert judged["phase"] == "Failed", summary(workflow)
    assert "resumed without an answer by " in judged["message"], judged
    assert judged["message"].endswith(": answer approve-prod with YES or NO"), judged
    assert nodes(workflow).get("soak-prod", {}).get("phase") != "Succeeded"
    assert workflow["status"]["phase"] == "Failed", summary(workflow)
