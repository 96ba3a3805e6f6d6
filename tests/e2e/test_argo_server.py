"""promoflow against the real Argo Server and workflow-controller (Argo Workflows v4).

What the unit tests check against schemas and a fake server is checked here against Argo
itself: the Argo Server accepts what ``promoflow apply`` installs and what ``promoflow
promote`` submits (its validation and ``argo lint``); the controller parses the durations
the compiler writes (suspend ``duration`` takes Go durations or seconds, never ``2d``);
and approvals are answered the three ways the README names (``promoflow approve``,
``promoflow reject``, ``argo node set``) on a workflow whose nodes are suspend templates
only, so no step container has to run for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.flows import (
    ENVIRONMENTS,
    Flow,
    argo_client,
    argo_http,
    delete_templates,
    node_output,
    nodes,
    summary,
    wait_for_end,
    wait_for_node,
)
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import configmap, deployment, short_id
from tests.e2e.runs import SUSPEND_ONLY, argo_cli, second_identity, submit
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import argo_env, run

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "workflow_templates"
# --- templates and submission -------------------------------------------------------------


def test_apply_installs_the_step_templates_as_generated(
    e2e: E2ESettings, flows: Callable[..., Flow]
) -> None:
    """``promoflow apply`` (default step settings) creates one WorkflowTemplate per step
    kind and the product's; the Argo Server accepts them (it validates on create) and
    stores what workflow_templates/*.yaml says, up to the empty fields it fills in."""
    flow = flows(SUSPEND_ONLY)
    env = argo_env(e2e, PROMOFLOW_TEMPLATE_PREFIX=flow.prefix)

    applied = run("apply", "-c", str(flow.directory), env=env)

    assert applied.code == 0, applied
    expected = {f"{flow.prefix}-{path.stem}": path for path in LIBRARY.glob("*.yaml")}
    created = {
        line.split()[0].removeprefix("workflowtemplate/")
        for line in applied.stdout.splitlines()
        if line.endswith(" created")
    }
    assert set(expected) | {flow.template} == created, applied.stdout
    with argo_http(e2e) as http:
        for name, path in expected.items():
            stored = http.get(f"/workflow-templates/{e2e.argo_namespace}/{name}")
            assert stored.status_code == 200, stored.text
            wanted = yaml.safe_load(path.read_text())["spec"]
            assert pruned(stored.json()["spec"]) == pruned(wanted), name


def test_apply_of_the_example_configuration(e2e: E2ESettings, tmp_path: Path) -> None:
    """``promoflow apply -c environments``: the README's example, both products. Its
    production policy runs the user's own WorkflowTemplates before and after deploying
    (``preAction``/``postAction``); stand-ins for them are created first if missing, as a
    team would have its own. The Argo Server validates every templateRef on create."""
    import re

    prefix = f"pfe2e{short_id()}"
    users = sorted(
        set(re.findall(r"workflowTemplate:\s*([\w.-]+)", "\n".join(
            p.read_text() for p in (ROOT / "environments").rglob("*.yaml"))))
    )  # fmt: skip
    made: list[str] = []
    with argo_http(e2e) as http:
        for name in users:
            path = f"/workflow-templates/{e2e.argo_namespace}/{name}"
            if http.get(path).status_code == 404:
                stand_in = {
                    "metadata": {"name": name},
                    "spec": {"templates": [{"name": "main", "suspend": {"duration": "0"}}]},
                }
                created = http.post(
                    f"/workflow-templates/{e2e.argo_namespace}", json={"template": stand_in}
                )
                assert created.status_code == 200, created.text
                made.append(path)
        try:
            applied = run(
                "apply", "-c", str(ROOT / "environments"),
                env=argo_env(e2e, PROMOFLOW_TEMPLATE_PREFIX=prefix),
            )  # fmt: skip

            assert applied.code == 0, applied
            listed = http.get(f"/workflow-templates/{e2e.argo_namespace}").json()["items"]
            names = {t["metadata"]["name"] for t in listed}
            assert {f"{prefix}-shop", f"{prefix}-checkout"} <= names, sorted(names)
            assert {f"{prefix}-{p.stem}" for p in LIBRARY.glob("*.yaml")} <= names
        finally:
            delete_templates(e2e, prefix)
            for path in made:
                http.delete(path)


def test_apply_again_changes_nothing(e2e: E2ESettings, flows: Callable[..., Flow]) -> None:
    """A second ``promoflow apply`` of the same configuration finds every template as it
    wants it and reports "unchanged" (no write). The Argo Server stores templates with the
    empty fields its Go types always serialise (``arguments: {}``, ``outputs: {}``,
    container ``name: ""``, ``resources: {}``) and without empty ``env[].value``; a
    comparison of the raw specs sees a change in every template, every time."""
    flow = flows(SUSPEND_ONLY)
    first = flow.promoflow("apply", "-c", str(flow.directory))
    assert first.code == 0, first
    with argo_http(e2e) as http:
        before = {
            item["metadata"]["name"]: item["metadata"]["resourceVersion"]
            for item in http.get(f"/workflow-templates/{e2e.argo_namespace}").json()["items"]
            if item["metadata"]["name"].startswith(f"{flow.prefix}-")
        }

    again = flow.promoflow("apply", "-c", str(flow.directory))

    assert again.code == 0, again
    with argo_http(e2e) as http:
        after = {
            item["metadata"]["name"]: item["metadata"]["resourceVersion"]
            for item in http.get(f"/workflow-templates/{e2e.argo_namespace}").json()["items"]
            if item["metadata"]["name"].startswith(f"{flow.prefix}-")
        }
    rewritten = sorted(name for name in before if after.get(name) != before[name])
    assert rewritten == [], f"rewritten by the second apply: {rewritten}\n{again.stdout}"
    assert all(line.endswith(" unchanged") for line in again.stdout.splitlines()), again


def pruned(value: Any) -> Any:
    """Without empty strings, mappings and lists: what the Argo Server adds or drops."""
    if isinstance(value, dict):
        kept = {k: pruned(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ("", {}, [], None)}
    if isinstance(value, list):
        return [pruned(v) for v in value]
    return value


def test_a_promotion_is_admitted_validated_and_started(
    e2e: E2ESettings, flows: Callable[..., Flow], new_repo: Callable[[], GitopsRepo],
    tmp_path: Path,
) -> None:  # fmt: skip
    """``promoflow promote`` submits a Workflow the Argo Server admits and ``argo lint``
    passes, whose templateRefs the controller resolves (it starts the first step); the same
    promotion again reports "already running"."""
    repo = new_repo()
    flow = flows(
        [{"priority": 0, "policy": {"action": "commit", "gates": [{"sync": {"timeout": "1m"}}]}}],
        repo,
    )
    compiled = flow.promoflow(
        "compile", "-c", str(flow.directory), "-p", flow.product, "-v", "1.0.0",
        "--request-id", "lint", "--library", "--output-dir", str(tmp_path / "compiled"),
    )  # fmt: skip
    assert compiled.code == 0, compiled
    applied = flow.promoflow("apply", "-c", str(flow.directory))
    assert applied.code == 0, applied
    out = tmp_path / "compiled"
    offline = argo_cli(e2e, "lint", "--offline", "--kinds", "workflows,workflowtemplates", str(out))
    assert offline.returncode == 0, offline.stdout + offline.stderr
    # Through the server: it resolves the templateRefs against what apply installed. Its
    # lint looks templates up in the Workflow's own metadata.namespace, without defaulting
    # it to the request's as create does (argo-workflows v4.0.5 LintWorkflow), so the file
    # names the namespace the workflow is submitted to.
    run = next(out.glob(f"{flow.product}-*.yaml"))
    workflow = yaml.safe_load(run.read_text())
    workflow["metadata"]["namespace"] = e2e.argo_namespace
    run.write_text(yaml.safe_dump(workflow))
    served = argo_cli(e2e, "lint", "--kinds", "workflows", str(run))
    assert served.returncode == 0, served.stdout + served.stderr

    request = short_id()
    args = ("promote", "-c", str(flow.directory), "-p", flow.product, "-v", "1.0.0",
            "--request-id", request)  # fmt: skip
    promoted = flow.promoflow(*args)
    assert promoted.code == 0, promoted
    name, verb = promoted.stdout.split()[:2]
    assert verb == "submitted" and f"/workflows/{e2e.argo_namespace}/{name}" in promoted.stdout
    client = argo_client(e2e)
    deploy = wait_for_node(client, name, "deploy-dev", ("Pending", "Running", "Succeeded"), 60)
    assert deploy["templateRef"] == {"name": f"{flow.prefix}-promote", "template": "promote"}
    workflow = client.get_workflow(name)
    assert workflow["status"]["phase"] == "Running", summary(workflow)
    assert workflow["metadata"]["labels"]["promoflow.dev/product"] == flow.product

    again = flow.promoflow(*args)
    assert again.code == 0, again
    assert again.stdout.startswith(f"{name} already running"), again


# --- approvals and soaks on the real controller --------------------------------------------


def test_approve_answers_the_approval_and_the_soak_runs(
    e2e: E2ESettings, flows: Callable[..., Flow]
) -> None:
    """The controller parses the compiled durations (approval ``2d`` -> ``48h``, soak
    ``1500ms``), waits at ``approve-prod``; ``promoflow approve`` answers YES, the soak runs
    its time, the run succeeds; answering again says the approval is not waiting."""
    flow = flows(SUSPEND_ONLY)
    name = submit(flow)
    client = argo_client(e2e)
    waiting = wait_for_node(client, name, "approve-prod", ("Running",), 60)
    assert nodes(client.get_workflow(name))["soak-staging"]["phase"] == "Succeeded"
    (question,) = waiting["inputs"]["parameters"]  # the answer, and nothing else to edit
    assert question["name"] == "approve" and question["enum"] == ["YES", "NO"]
    # Argo filled in the run's parameters when the node started
    assert question["description"].startswith(f"Promote {flow.product} 1.0.0 into prod? ")
    stored = client.get_workflow(name)["status"]["storedWorkflowTemplateSpec"]["templates"]
    approval = next(t for t in stored if t["name"] == "approval-prod")
    assert approval["suspend"]["duration"] == "48h"

    answered = flow.promoflow("approve", name, "--env", "prod", "-m", "canary is clean")

    assert answered.code == 0, answered
    workflow = wait_for_end(client, name, e2e.timeout)
    assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
    approve, soak = nodes(workflow)["approve-prod"], nodes(workflow)["soak-prod"]
    assert approve["phase"] == "Succeeded" and node_output(approve, "approve") == "YES"
    assert "approved by" in approve.get("message", "") and "canary is clean" in approve["message"]
    assert soak["phase"] == "Succeeded"
    assert _seconds(soak) >= 1  # 1500ms, in whole-second timestamps
    again = flow.promoflow("approve", name, "--env", "prod")
    assert again.code == 1 and "not waiting (it is Succeeded" in again.stderr, again


def test_reject_stops_the_environment_and_the_run_with_the_reason(
    e2e: E2ESettings, flows: Callable[..., Flow]
) -> None:
    """``promoflow reject`` answers NO with the reason; the approver step fails on it, so
    nothing after it runs and the run ends Failed, with who rejected it and why."""
    flow = flows(SUSPEND_ONLY)
    name = submit(flow)
    client = argo_client(e2e)
    wait_for_node(client, name, "approve-prod", ("Running",), 60)

    answered = flow.promoflow("reject", name, "--env", "prod", "-m", "error budget spent")

    assert answered.code == 0, answered
    workflow = wait_for_end(client, name, e2e.timeout)
    assert workflow["status"]["phase"] == "Failed", summary(workflow)
    approve, judged = nodes(workflow)["approve-prod"], nodes(workflow)["approver-prod"]
    assert approve["phase"] == "Succeeded" and node_output(approve, "approve") == "NO"
    assert "rejected by" in approve["message"] and "error budget spent" in approve["message"]
    assert judged["phase"] == "Failed", summary(workflow)
    assert "prod rejected by " in judged["message"], judged
    soak = nodes(workflow).get("soak-prod")
    assert soak is None or soak["phase"] in ("Omitted", "Skipped"), summary(workflow)


def test_argo_node_set_and_resume_answer_the_approval_too(
    e2e: E2ESettings, flows: Callable[..., Flow]
) -> None:
    """The argo CLI's way (what the UI's approve button does): ``argo node set`` gives the
    suspend node its ``approve=YES`` output, ``argo resume`` lets it go on. A value set
    without resuming is no answer yet: the node keeps waiting."""
    flow = flows(SUSPEND_ONLY)
    name = submit(flow)
    client = argo_client(e2e)
    wait_for_node(client, name, "approve-prod", ("Running",), 60)
    selector = ("--node-field-selector", "displayName=approve-prod")

    answered = argo_cli(e2e, "node", "set", name, *selector, "--output-parameter", "approve=YES",
                        "--message", "via argo node set")  # fmt: skip

    assert answered.returncode == 0, answered.stdout + answered.stderr
    time.sleep(3)
    approve = nodes(client.get_workflow(name))["approve-prod"]
    assert approve["phase"] == "Running" and node_output(approve, "approve") == "YES", approve
    resumed = argo_cli(e2e, "resume", name, *selector)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    workflow = wait_for_end(client, name, e2e.timeout)
    assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
    assert node_output(nodes(workflow)["approve-prod"], "approve") == "YES"
    assert nodes(workflow)["soak-prod"]["phase"] == "Succeeded", summary(workflow)


def test_an_unanswered_approval_stops_the_environment_after_its_timeout(
    e2e: E2ESettings, flows: Callable[..., Flow]
) -> None:
    """No answer: the suspend ``duration`` ends, the ``approve`` output takes its empty
    default, and the approver step fails saying so; prod's soak does not run and the run
    ends Failed, not green."""
    flow = flows(
        [
            SUSPEND_ONLY[0],
            {**SUSPEND_ONLY[1], "policy": {"action": "none", "gates": [
                {"approval": {"timeout": "3s"}}, {"soak": {"duration": "1s"}}]}},
        ]
    )  # fmt: skip
    name = submit(flow)
    client = argo_client(e2e)

    workflow = wait_for_end(client, name, e2e.timeout)

    approve = nodes(workflow)["approve-prod"]
    assert approve["phase"] == "Succeeded", summary(workflow)
    assert node_output(approve, "approve") == "", approve
    assert _seconds(approve) >= 3
    judged = nodes(workflow)["approver-prod"]
    assert judged["phase"] == "Failed", summary(workflow)
    assert "prod not promoted: no answer to its approval within 3s" in judged["message"]
    soak = nodes(workflow).get("soak-prod")
    assert soak is None or soak["phase"] in ("Omitted", "Skipped"), summary(workflow)
    assert workflow["status"]["phase"] == "Failed", summary(workflow)


def _seconds(node: dict[str, Any]) -> float:
    from datetime import datetime

    def parse(value: str) -> datetime:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))

    return (parse(node["finishedAt"]) - parse(node["startedAt"])).total_seconds()


def test_the_approval_names_who_may_answer_and_the_workflow_checks_it(
    e2e: E2ESettings, flows: Callable[..., Flow]
) -> None:
    """``approvers`` listed: the workflow itself checks who answered (Argo labels the
    Workflow with the acting user). An answer from another identity, given with ``argo
    node set`` so no client-side check stands in the way, must not promote."""
    other_token = second_identity(e2e)
    with argo_http(e2e) as http:
        me = http.get("/userinfo").json()["subject"]
    flow = flows(
        [
            SUSPEND_ONLY[0],
            {**SUSPEND_ONLY[1], "policy": {"action": "none", "gates": [
                {"approval": {"approvers": [f"user:{me}"]}}, {"soak": {"duration": "1s"}}]}},
        ]
    )  # fmt: skip
    name = submit(flow)
    client = argo_client(e2e)
    wait_for_node(client, name, "approve-prod", ("Running",), 60)

    selector = ("--node-field-selector", "displayName=approve-prod")
    answered = argo_cli(e2e, "node", "set", name, *selector, "--output-parameter",
                        "approve=YES", token=other_token)  # fmt: skip
    assert answered.returncode == 0, answered.stdout + answered.stderr
    resumed = argo_cli(e2e, "resume", name, *selector, token=other_token)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    workflow = wait_for_end(client, name, e2e.timeout)
    assert nodes(workflow).get("soak-prod", {}).get("phase") != "Succeeded", summary(workflow)
    check = nodes(workflow)["approver-prod"]
    assert check["phase"] == "Failed", summary(workflow)
    # no retry strategy: the step is the node, with its message, and no "(0)" twin
    assert check["type"] == flow.node_type and "approver-prod(0)" not in nodes(workflow)
    assert "may not approve prod" in check["message"], summary(workflow)
    assert workflow["status"]["phase"] == "Failed", summary(workflow)


def test_container_steps_commit_and_report_their_outputs(
    e2e: E2ESettings, flows: Callable[..., Flow], new_repo: Callable[[], GitopsRepo]
) -> None:
    """Container steps through the real controller (run by the pod runner on the local
    cluster): each ``deploy-ENV`` commits the version, Argo records its ``commit`` output,
    and the next environment copies from that exact commit."""
    repo = new_repo()
    # no Argo CD apps here: the sync and health gates (on by default) are switched off
    flow = flows([{"priority": 0, "policy": {"action": "commit", "gates": [
        {"soak": {"duration": "1s"}}], "disableGates": ["sync", "health"]}}], repo)  # fmt: skip
    repo.commit(
        {
            f"{flow.path(env)}/{file}": body
            for env in ENVIRONMENTS
            for file, body in (("configmap.yaml", configmap(flow.app(env), "0.9.0")),
                               ("deployment.yaml", deployment(flow.app(env), "0.9.0")))
        }
    )  # fmt: skip
    name = submit(flow, "1.0.0")
    client = argo_client(e2e)

    workflow = wait_for_end(client, name, e2e.timeout)

    assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
    done = nodes(workflow)
    commits = {env: node_output(done[f"deploy-{env}"], "commit") or "" for env in ENVIRONMENTS}
    assert all(len(c) == 40 for c in commits.values()), commits
    assert commits["prod"] == repo.head()
    assert node_output(done["deploy-dev"], "changed") == "true"
    staging = {p["name"]: p.get("value") for p in done["deploy-staging"]["inputs"]["parameters"]}
    assert staging["source-commit"] == commits["dev"]
    for env in ENVIRONMENTS:
        assert "version: 1.0.0" in repo.show(commits["prod"], f"{flow.path(env)}/configmap.yaml")
