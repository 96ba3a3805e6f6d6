"""The run's message: computed from real Workflows, written as a guarded JSON patch.

The fixtures in ``runs/`` are Workflows as the Argo Server (v4.0.5) returned them during
``tests/e2e/test_run_messages.py`` (captured with PROMOFLOW_CAPTURE_RUNS), the message the
reporter wrote included. Each is read back with that message removed: the function must
say it again from what the controller wrote.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from orchestrator.compiler.workflow import ENVIRONMENT_TASKS as COMPILED
from reporters.events.runmessage import ENVIRONMENT_TASKS, MAX_LENGTH, plan_of, run_message
from reporters.pipeline import Pipeline
from reporters.runstatus import RunMessages
from reporters.state.store import Store

RUNS = Path(__file__).parent / "runs"
ME = "system:serviceaccount:argo:promoflow-e2e"


def real(name: str) -> dict[str, Any]:
    workflow: dict[str, Any] = json.loads((RUNS / f"{name}.json").read_text())
    return workflow


def without_message(workflow: dict[str, Any]) -> dict[str, Any]:
    bare = copy.deepcopy(workflow)
    bare["status"].pop("message", None)
    return bare


@pytest.mark.parametrize(
    ("run", "said"),
    [
        ("soaking", "soaking staging; promoted to dev"),
        ("waiting-approval", f"waiting for approval of prod (approvers: user:{ME}); "
                             "promoted to dev, staging"),
        ("rejected", f"prod rejected by {ME}: change freeze; promoted to dev, staging"),
        ("succeeded", "promoted to dev, staging, prod"),
        ("resumed-without-answer", "resumed without an answer by "
         "system-serviceaccount-argo-promoflow-e2e: answer approve-prod with YES or NO; "
         "promoted to dev, staging"),
    ],
)  # fmt: skip
def test_real_runs_say_where_they_are_and_how_they_ended(run: str, said: str) -> None:
    workflow = real(run)
    assert workflow["status"]["message"] == said  # what the reporter wrote on the cluster
    assert run_message(without_message(workflow)) == said


def test_the_controller_message_is_not_what_the_list_would_show() -> None:
    """Why the reporter writes at all: what Argo itself leaves in these runs."""
    failed = real("rejected")["status"]["nodes"]
    root = next(n for n in failed.values() if n["type"] == "DAG")
    assert not root.get("message")  # a Failed run's message comes from here: empty


def test_the_plan_is_the_compiled_dag_annotation() -> None:
    assert ENVIRONMENT_TASKS == COMPILED
    plan = plan_of(real("succeeded"))
    assert plan["environments"] == ["dev", "staging", "prod"]
    assert plan["tasks"]["prod"] == ["approve-prod", "approver-prod", "soak-prod"]
    assert plan["approvers"] == {"prod": "anyone Argo lets update this workflow"}


def test_a_run_without_the_annotation_gets_no_message() -> None:
    """A run of a template compiled before the annotation: nothing written, rather than a
    guess."""
    workflow = without_message(real("succeeded"))
    for template in workflow["status"]["storedWorkflowTemplateSpec"]["templates"]:
        template.get("metadata", {}).get("annotations", {}).pop(ENVIRONMENT_TASKS, None)
    assert run_message(workflow) == ""


def node(name: str, phase: str, kind: str = "Pod", **more: Any) -> dict[str, Any]:
    return {"displayName": name, "type": kind, "phase": phase, **more}


def synthetic(phase: str, *nodes: dict[str, Any], message: str = "") -> dict[str, Any]:
    owned = {"dev": ["deploy-dev", "sync-dev"], "prod": ["approve-prod", "approver-prod",
             "deploy-prod", "sync-prod", "check-prod"], "eu": ["deploy-eu"]}  # fmt: skip
    return {
        "metadata": {"name": "shop-1", "namespace": "argo", "resourceVersion": "41"},
        "status": {
            "phase": phase,
            "message": message,
            "nodes": {f"n{i}": n for i, n in enumerate(nodes)},
            "storedWorkflowTemplateSpec": {
                "templates": [
                    {
                        "name": "promote",
                        "dag": {"tasks": []},
                        "metadata": {"annotations": {ENVIRONMENT_TASKS: json.dumps(owned)}},
                    },
                ]
            },
        },
    }


def test_a_retried_step_reports_its_last_attempt_without_argos_prefix() -> None:
    workflow = synthetic(
        "Failed",
        node("deploy-dev", "Succeeded"),
        node("sync-dev", "Failed", "Retry", message="No more retries left"),
        node("sync-dev(0)", "Failed", startedAt="2026-11-26T10:00:00Z",
             message="main: Error (exit code 1): dev: Degraded"),
        node("sync-dev(1)", "Failed", startedAt="2026-11-26T10:01:00Z",
             message="main: Error (exit code 1): dev: Degraded after 3f9a was applied"),
    )  # fmt: skip
    assert run_message(workflow) == "dev: Degraded after 3f9a was applied; not promoted: prod, eu"


def test_a_failed_attempt_that_was_retried_is_not_a_failure() -> None:
    workflow = synthetic(
        "Running",
        node("deploy-dev", "Succeeded", "Retry"),
        node("deploy-dev(0)", "Failed", message="push rejected"),
        node("deploy-dev(1)", "Succeeded"),
        node("sync-dev", "Running"),
    )
    assert run_message(workflow) == "promoting dev"


def test_a_reason_given_with_argo_node_set_follows_the_rejection() -> None:
    """``argo node set --message`` then ``argo resume``: the node's message is the reason
    and Argo's ``Resumed by: map[...]``; the list shows the reason, not the map."""
    workflow = synthetic(
        "Failed",
        node("deploy-dev", "Succeeded"), node("sync-dev", "Succeeded"),
        node("approve-prod", "Succeeded", "Suspend",
             message="error budget spent; Resumed by: map[Email:alice@example.com]"),
        node("approver-prod", "Failed",
             message="main: Error (exit code 1): prod rejected by alice (approve-prod says why)"),
    )  # fmt: skip
    assert run_message(workflow) == (
        "prod rejected by alice: error budget spent; promoted to dev; not promoted: eu"
    )


def test_a_rejection_without_a_reason_drops_the_pointer_to_one() -> None:
    workflow = synthetic(
        "Failed",
        node("approve-prod", "Succeeded", "Suspend", message="Resumed by: map[Name:bob]"),
        node("approver-prod", "Failed", message="prod rejected by bob (approve-prod says why)"),
    )
    assert run_message(workflow).startswith("prod rejected by bob; not promoted: ")


def test_a_failed_run_with_no_failed_step_keeps_argos_reason() -> None:
    """Stopped, terminated, or an error before any step: Argo's own message leads."""
    workflow = synthetic("Failed", node("deploy-dev", "Succeeded"),
                         message="Stopped with strategy 'Terminate'")  # fmt: skip
    assert run_message(workflow).startswith("Stopped with strategy 'Terminate'; ")


def test_messages_are_one_bounded_line() -> None:
    long = "x\n" * 2000
    workflow = synthetic("Failed", node("deploy-dev", "Failed", message=long))
    said = run_message(workflow)
    assert "\n" not in said and len(said) == MAX_LENGTH and said.endswith("…")


class Patches:
    def __init__(self, *answers: Exception | None) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.answers = list(answers)

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append((*args, kwargs))
        answer = self.answers.pop(0) if self.answers else None
        if answer is not None:
            raise answer


class Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def test_the_write_is_a_patch_guarded_by_the_version_it_was_computed_from() -> None:
    patches = Patches()
    messages = RunMessages(None, patch=patches)
    workflow = without_message(real("waiting-approval"))
    messages.offer(workflow)
    messages.flush()
    [(group, version, namespace, plural, name, body, options)] = patches.calls
    assert (group, version, plural) == ("argoproj.io", "v1alpha1", "workflows")
    assert (namespace, name) == ("argo", workflow["metadata"]["name"])
    assert body == [
        {"op": "test", "path": "/metadata/resourceVersion",
         "value": workflow["metadata"]["resourceVersion"]},
        {"op": "add", "path": "/status/message", "value": run_message(workflow)},
    ]  # fmt: skip
    assert options == {"_content_type": "application/json-patch+json"}
    messages.offer(real("waiting-approval"))  # says it already: no write
    messages.flush()
    assert len(patches.calls) == 1 and messages.written == 1


def test_only_the_newest_state_of_a_run_is_written() -> None:
    patches = Patches()
    messages = RunMessages(None, patch=patches)
    messages.offer(without_message(real("soaking")))
    messages.offer(without_message(real("waiting-approval")))
    messages.flush()
    [call] = patches.calls
    assert call[5][1]["value"].startswith("waiting for approval")


def test_a_stale_write_is_dropped_and_a_refusal_is_said_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    refused = Refused(403, "Forbidden")
    patches = Patches(Refused(422, "Unprocessable Entity"), refused, refused)
    messages = RunMessages(None, patch=patches)
    for run in ("soaking", "waiting-approval", "rejected"):
        messages.offer(without_message(real(run)))
        messages.flush()
    assert (messages.stale, messages.failed, messages.written) == (1, 2, 0)
    warnings = [r for r in caplog.records if "cannot write the message" in r.getMessage()]
    assert len(warnings) == 1 and "403 Forbidden" in warnings[0].getMessage()
    assert "patch` on workflows" in warnings[0].getMessage()


def test_the_pipeline_offers_each_promotion_workflow_whole(tmp_path: Path) -> None:
    offered: list[dict[str, Any]] = []
    pipeline = Pipeline(Store(str(tmp_path / "state.db")), [], on_workflow=offered.append)
    workflow = real("waiting-approval")
    pipeline.handle("workflows:argo/" + workflow["metadata"]["name"], workflow)
    assert offered == [workflow]  # untrimmed: the plan is in the stored template


def test_an_approval_resumed_by_node_without_a_value_says_the_run_cannot_go_on() -> None:
    """``argo resume --node-field-selector`` alone (captured from the real controller): the
    node succeeds with ``approve`` unset and the approver never starts. Argo shows a run
    that merely keeps running; the message says what happened and what to do."""
    workflow = real("resumed-node-without-answer")
    assert workflow["status"]["phase"] == "Running" and not workflow["status"].get("message")
    assert "approver-prod" not in {n["displayName"] for n in workflow["status"]["nodes"].values()}
    assert run_message(workflow) == (
        "approve-prod was resumed without an answer (`argo resume` without `argo node set`), "
        "so Argo cannot go on with prod: stop this run and promote again; "
        "promoted to dev, staging"
    )
    answered = copy.deepcopy(workflow)  # the same node with a value set first: no such message
    for n in answered["status"]["nodes"].values():
        if n["displayName"] == "approve-prod":
            n["outputs"]["parameters"][0]["value"] = "YES"
    assert "cannot go on" not in run_message(answered)


def test_a_credential_in_a_step_message_does_not_reach_the_run_message() -> None:
    workflow = synthetic(
        "Failed",
        node(
            "deploy-dev",
            "Failed",
            message="push to https://bot:s3cr3t-tok@git.example.com/x.git failed",
        ),
    )
    said = run_message(workflow)
    assert "s3cr3t-tok" not in said and "git.example.com" in said
