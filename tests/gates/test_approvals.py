"""promoflow approve / reject against the fake Argo Server, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from orchestrator.approvals import ApprovalError, Identity, answer, may_approve
from tests.compiler.helpers import ROOT
from tests.fakes.argo_server import FakeArgoServer

TOKEN = "argo-token-never-printed"
NS = "promotions"
RUN = "shop-1-4-2-3f9a1c2e"


def node(display: str, kind: str, phase: str, **extra: Any) -> dict[str, Any]:
    if kind == "Suspend":  # the controller copies the template's outputs onto the node
        supplied = {"name": "approve", "valueFrom": {"supplied": {}}}
        extra.setdefault("outputs", {"parameters": [supplied]})
    return {
        "id": f"{RUN}-{abs(hash(display)) % 10**8}",
        "name": f"{RUN}.{display}",
        "displayName": display,
        "type": kind,
        "phase": phase,
        **extra,
    }


def run_object() -> dict[str, Any]:
    approvers = {
        "parameters": [
            {"name": "environment", "value": "prod-eu"},
            {"name": "approvers", "value": "group:sre, user:bob@example.com"},
        ]
    }
    nodes = [
        node("deploy-staging", "Pod", "Succeeded"),
        node("approve-prod-eu", "Suspend", "Running", inputs=approvers),
        node(
            "approve-prod-us",
            "Suspend",
            "Running",
            inputs={"parameters": [{"name": "approvers", "value": ""}]},
        ),
    ]
    return {
        "metadata": {"name": RUN, "namespace": NS, "labels": {"promoflow.dev/product": "shop"}},
        "spec": {"workflowTemplateRef": {"name": "promoflow-shop"}},
        "status": {"phase": "Running", "nodes": {n["id"]: n for n in nodes}},
    }


@pytest.fixture
def argo() -> Iterator[FakeArgoServer]:
    with FakeArgoServer(token=TOKEN) as fake:
        fake.store.put("Workflow", NS, run_object())
        fake.userinfo = {"email": "alice@example.com", "groups": ["sre", "dev"]}
        yield fake


def cli(argo: FakeArgoServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARGO_SERVER": argo.url.removeprefix("http://"), "ARGO_SECURE": "false",
           "ARGO_TOKEN": TOKEN, "ARGO_NAMESPACE": NS}  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "orchestrator.cli", *args], cwd=ROOT,
                            capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
    assert TOKEN not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result


def stored_node(argo: FakeArgoServer, display: str) -> dict[str, Any]:
    nodes = argo.store.get("Workflow", NS, RUN)["status"]["nodes"].values()
    return next(n for n in nodes if n["displayName"] == display)


def outputs(found: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: p["value"] for p in (found.get("outputs") or {}).get("parameters", [])}


def test_approve_sets_yes_succeeds_the_node_and_records_who(argo: FakeArgoServer) -> None:
    result = cli(argo, "approve", RUN, "--env", "prod-eu", "-m", "canary looks fine")
    assert result.returncode == 0, result.stderr
    assert "prod-eu approved by alice@example.com: canary looks fine" in result.stdout
    approved = stored_node(argo, "approve-prod-eu")
    assert approved["phase"] == "Succeeded" and outputs(approved) == {"approve": "YES"}
    assert approved["message"] == "approved by alice@example.com: canary looks fine"
    assert stored_node(argo, "approve-prod-us")["phase"] == "Running"  # only that one


def test_approving_twice_is_a_clear_error(argo: FakeArgoServer) -> None:
    assert cli(argo, "approve", RUN, "--env", "prod-eu").returncode == 0
    again = cli(argo, "approve", RUN, "--env", "prod-eu")
    assert again.returncode == 1
    assert again.stderr.strip() == (
        "error: the approval for prod-eu is not waiting "
        "(it is Succeeded: approved by alice@example.com)"
    )


def test_reject_fails_the_node_with_the_reason(argo: FakeArgoServer) -> None:
    result = cli(argo, "reject", RUN, "--env", "prod-eu", "-m", "error budget spent")
    assert result.returncode == 0, result.stderr
    rejected = stored_node(argo, "approve-prod-eu")
    assert rejected["phase"] == "Failed" and outputs(rejected) == {"approve": "NO"}
    assert rejected["message"] == "rejected by alice@example.com: error budget spent"


def test_reject_needs_a_reason(argo: FakeArgoServer) -> None:
    result = cli(argo, "reject", RUN, "--env", "prod-eu", "-m", " ")
    assert result.returncode == 2 and "say why" in result.stderr
    assert stored_node(argo, "approve-prod-eu")["phase"] == "Running"


def test_caller_outside_the_approvers_is_refused(argo: FakeArgoServer) -> None:
    argo.userinfo = {"email": "mallory@example.com", "groups": ["dev"]}
    result = cli(argo, "approve", RUN, "--env", "prod-eu")
    assert result.returncode == 1
    assert "mallory@example.com may not answer the approval for prod-eu" in result.stderr
    assert "approvers: group:sre, user:bob@example.com" in result.stderr
    assert stored_node(argo, "approve-prod-eu")["phase"] == "Running"


def test_named_user_may_approve(argo: FakeArgoServer) -> None:
    argo.userinfo = {"email": "bob@example.com", "groups": []}
    assert cli(argo, "approve", RUN, "--env", "prod-eu").returncode == 0


def test_unknown_caller_is_left_to_argo_rbac(argo: FakeArgoServer) -> None:
    argo.userinfo = {}
    result = cli(argo, "approve", RUN, "--env", "prod-eu")
    assert result.returncode == 0 and "approved by unknown user" in result.stdout


def test_environment_without_approval_lists_the_waiting_ones(argo: FakeArgoServer) -> None:
    result = cli(argo, "approve", RUN, "--env", "staging")
    assert result.returncode == 1
    assert "has no approval for staging yet (waiting for approval: prod-eu, prod-us)" in (
        result.stderr
    )


def test_missing_run_is_a_clear_error(argo: FakeArgoServer) -> None:
    result = cli(argo, "approve", "no-such-run", "--env", "prod-eu")
    assert result.returncode == 1 and "no-such-run" in result.stderr


def test_the_set_request_targets_only_the_environment_node() -> None:
    decision = answer(run_object(), "prod-us", approve=True, message="", identity=None)
    assert decision.node_selector == "displayName=approve-prod-us"
    assert decision.output_parameters == {"approve": "YES"} and decision.phase == "Succeeded"
    with pytest.raises(ApprovalError):
        answer(run_object(), "dev", approve=True, message="", identity=None)


@pytest.mark.parametrize(
    ("entry", "identity", "allowed"),
    [
        ("group:sre", Identity(("a@x",), ("sre",)), True),
        ("group:sre", Identity(("a@x",), ("dev",)), False),
        ("user:a@x", Identity(("a@x",)), True),
        ("a@x", Identity(("system:serviceaccount:ci", "a@x")), True),
        ("user:b@x", Identity(("a@x",), ("b@x",)), False),  # a group named like a user
    ],
)
def test_approver_matching(entry: str, identity: Identity, allowed: bool) -> None:
    assert may_approve(identity, [entry]) is allowed


def test_identity_from_userinfo() -> None:
    assert Identity.from_userinfo({}) is None
    found = Identity.from_userinfo({"subject": "s", "email": "e", "groups": ["g"]})
    assert found == Identity(("e", "s"), ("g",))


def test_rejection_stops_every_dependant_in_the_compiled_run() -> None:
    """A Failed approval node stops its dependants: the approver check depends on its
    .Succeeded, and the rest on the check's success or on the approval being Skipped
    (not asked: nothing changes), never on a Failed one."""
    docs = list(yaml.safe_load_all((ROOT / "tests/golden/expected/example-shop.yaml").read_text()))
    tasks = docs[0]["spec"]["templates"][0]["dag"]["tasks"]
    seen = 0
    for task in tasks:
        for env in ("prod-eu", "prod-us"):
            if f"approve-{env}" in task.get("depends", ""):
                seen += 1
                assert task["depends"] in (
                    f"approve-{env}.Succeeded",
                    f"approver-{env}.Succeeded || approve-{env}.Skipped",
                ), task["depends"]
    assert seen == 4


def compiled_run() -> dict[str, Any]:
    """A run as the current compiler makes it: the approval node has no inputs but the
    answer, supplies ``approve``, and its template (stored by the
    controller with the WorkflowTemplate) keeps the approvers as an annotation."""
    supplied = [{"name": "approve", "valueFrom": {"supplied": {}, "default": ""}}]
    approval = node(
        "approve-prod-eu", "Suspend", "Running",
        templateName="approval-prod-eu", outputs={"parameters": supplied},
        inputs={"parameters": [{"name": "approve", "value": "NO", "enum": ["YES", "NO"]}]},
    )  # fmt: skip
    template = {
        "name": "approval-prod-eu",
        "metadata": {"annotations": {"promoflow.dev/approvers": "group:sre,user:bob@x"}},
        "suspend": {"duration": "168h"},
    }
    run = run_object()
    run["status"]["nodes"] = {approval["id"]: approval}
    run["status"]["storedWorkflowTemplateSpec"] = {"templates": [template]}
    return run


def test_a_compiled_approval_is_answered_no_with_the_reason_and_judged_later() -> None:
    """Rejecting resumes the node with NO and the reason as its message, as the UI's dialog
    would resume it: the approver step after it stops the environment."""
    alice = Identity(("alice@x",), ("sre",))
    decision = answer(compiled_run(), "prod-eu", approve=False, message="freeze", identity=alice)
    assert decision.output_parameters == {"approve": "NO"}
    assert decision.phase == "Succeeded" and decision.message == "rejected by alice@x: freeze"
    assert decision.approvers == ["group:sre", "user:bob@x"]


def test_a_compiled_approval_refuses_a_caller_outside_its_stored_approvers() -> None:
    with pytest.raises(ApprovalError, match=r"mallory@x may not answer .*group:sre, user:bob@x"):
        answer(
            compiled_run(), "prod-eu", approve=True, message="",
            identity=Identity(("mallory@x",), ("dev",)),
        )  # fmt: skip
