"""Every compiled suspend node offers a person exactly what they answer.

The Argo UI's resume dialog shows each input of the suspend node as a field and sends
each back as an output (``PUT .../set`` with ``outputParameters``); the Argo Server
refuses any name that is not a supplied output of the node (``node is not expecting
output parameter``). So a pause template's inputs must be exactly its supplied, answerable
parameters, and whatever else it needs is fixed when the flow is compiled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orchestrator.compiler.library import library
from tests.compiler.helpers import SCENARIOS, SETTINGS, compiled, dag_tasks


def suspends(manifests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        template
        for manifest in manifests
        for template in manifest.get("spec", {}).get("templates", [])
        if "suspend" in template
    ]


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS)
def test_every_suspend_input_is_an_answer(scenario: str, path: Path, product: str) -> None:
    manifests = compiled(path, product)
    for template in suspends(manifests):
        inputs = [p["name"] for p in (template.get("inputs") or {}).get("parameters", [])]
        supplied = [
            p["name"]
            for p in (template.get("outputs") or {}).get("parameters", [])
            if "supplied" in (p.get("valueFrom") or {})
        ]
        assert set(inputs) <= set(supplied), (scenario, template["name"])
        # nothing left for Argo to fill from inputs a person could edit
        assert "{{inputs." not in json.dumps(template), (scenario, template["name"])
        for param in (template.get("inputs") or {}).get("parameters", []):
            assert param["enum"] and param["default"] in param["enum"], template["name"]
            assert param["description"], template["name"]  # the question the dialog shows


def test_the_library_has_no_suspend_template() -> None:
    """A shared template's inputs would reach the node: the pauses are compiled per task."""
    assert suspends([wt.to_dict() for wt in library(SETTINGS)]) == []


def test_an_approval_asks_the_question_with_who_may_answer() -> None:
    from tests.compiler.helpers import EXAMPLES

    manifests = compiled(EXAMPLES, "shop")
    wt = next(m for m in manifests if m["kind"] == "WorkflowTemplate")
    approvals = {t["name"]: t for t in suspends([wt]) if t["name"].startswith("approval-")}
    assert approvals, "the example flow has approvals"
    for name, template in approvals.items():
        env = name.removeprefix("approval-")
        (answer,) = template["inputs"]["parameters"]
        assert answer["name"] == "approve" and answer["enum"] == ["YES", "NO"]
        assert answer["description"].startswith(
            f"Promote shop {{{{workflow.parameters.version}}}} into {env}? Requested by "
            "{{workflow.parameters.requested-by}}. Who may answer: "
        )
        assert not answer["description"].endswith(": .")
        outputs = {p["name"]: p["valueFrom"] for p in template["outputs"]["parameters"]}
        # no answer (timeout, or a resume of the whole workflow) is empty, never a NO; and
        # the answer is the only supplied output: a node resumed after `argo node set
        # approve=...` leaves any other unset, and whatever reads it would wait for ever
        assert outputs == {"approve": {"supplied": {}, "default": ""}}
        annotations = template["metadata"]["annotations"]
        assert annotations["promoflow.dev/environment"] == env
        assert annotations["promoflow.dev/timeout"] == template["suspend"]["duration"]
    tasks = {t["name"]: t for t in dag_tasks(wt)}
    for name in approvals:
        env = name.removeprefix("approval-")
        assert tasks[f"approve-{env}"]["template"] == name
        judge = tasks[f"approver-{env}"]
        assert "when" not in judge  # every answer is judged, NO and none included
        args = {p["name"]: p["value"] for p in judge["arguments"]["parameters"]}
        assert args["answer"] == f"{{{{tasks.approve-{env}.outputs.parameters.approve}}}}"


def test_only_steps_that_can_fail_transiently_are_retried() -> None:
    retried = {
        wt.to_dict()["spec"]["entrypoint"]: "retryStrategy" in wt.to_dict()["spec"]["templates"][0]
        for wt in library(SETTINGS)
    }
    assert retried["approver"] is False
    assert retried["promote"] and retried["wait-argocd"]


def test_what_the_ui_shows_carries_titles_and_descriptions() -> None:
    """The template and each run have a title and a description (the list, the summary
    and the template catalogue show them); every run parameter says what it is."""
    from tests.compiler.helpers import EXAMPLES

    template, run = compiled(EXAMPLES, "shop")[:2]
    for manifest in (template, run):
        annotations = manifest["metadata"]["annotations"]
        assert annotations["workflows.argoproj.io/title"].startswith(("Promote shop", "shop "))
        assert annotations["workflows.argoproj.io/description"]
        parameters = manifest["spec"]["arguments"]["parameters"]
        rollbacks = ["rollback-commit", "rollback-reason"] if manifest is template else []
        assert [p["name"] for p in parameters] == [
            "product", "version", "version-fields", "source-commit", "requested-by", *rollbacks,
        ]  # fmt: skip
        assert all(len(p.get("description", "")) > 20 for p in parameters), parameters
