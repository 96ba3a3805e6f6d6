"""What a pre/post action receives: ``{product}``, ``{environment}``, ``{version}`` and
``{revision}`` in its ``parameters``, filled in by the compiler; anything else is refused
with its position when the configuration loads."""

from __future__ import annotations

from typing import Any

import pytest

from orchestrator.compiler import PromotionRequest, compile_product
from orchestrator.model.actions import check, placeholders, substitute
from orchestrator.settings import StepSettings
from tests.unit.conftest import Workspace

POLICY = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionPolicy
metadata: {{name: production}}
spec:
  selector: {{environments: {{production: true}}}}
  policy:
{policy}
"""


def _policy(ws: Workspace, policy: str) -> None:
    ws.write_base()
    ws.write("policies.yaml", POLICY.format(policy=policy))


def _tasks(ws: Workspace) -> dict[str, dict[str, Any]]:
    config = ws.config()
    request = PromotionRequest("shop", "1.4.2", "0123abcd", "alice", "req-1")
    template = compile_product(config, "shop", StepSettings.model_construct(), request).template
    dag = next(t for t in template["spec"]["templates"] if t["name"] == "promote")
    return {task["name"]: task for task in dag["dag"]["tasks"]}


def _arguments(task: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: p["value"] for p in task["arguments"]["parameters"]}


def test_actions_receive_the_product_environment_version_and_commit(ws: Workspace) -> None:
    _policy(
        ws,
        "    preAction:\n"
        "      workflowTemplate: smoke-tests\n"
        '      parameters: {target: "{product}-{environment}", tag: "v{version}"}\n'
        "    postAction:\n"
        "      workflowTemplate: announce\n"
        '      parameters: {text: "{product} {version} is {revision} in {environment}"}\n',
    )
    tasks = _tasks(ws)
    assert _arguments(tasks["pre-prod"]) == {
        "target": "shop-prod",
        "tag": "v{{workflow.parameters.version}}",
    }
    assert _arguments(tasks["post-prod"]) == {
        "text": "shop {{workflow.parameters.version}} is "
        "{{tasks.deploy-prod.outputs.parameters.commit}} in prod"
    }


def test_revision_of_a_pull_request_is_the_merge_commit(ws: Workspace) -> None:
    _policy(
        ws,
        "    action: pull-request\n"
        "    postAction: {workflowTemplate: announce, parameters: {commit: '{revision}'}}\n",
    )
    tasks = _tasks(ws)
    assert _arguments(tasks["post-prod"]) == {
        "commit": "{{tasks.merge-prod.outputs.parameters.commit}}"
    }


def test_argo_expressions_and_other_braces_pass_through(ws: Workspace) -> None:
    _policy(
        ws,
        "    postAction:\n"
        "      workflowTemplate: announce\n"
        "      parameters:\n"
        "        run: '{{workflow.name}}'\n"
        '        body: \'{"env": "{environment}", "n": 1}\'\n',
    )
    assert _arguments(_tasks(ws)["post-prod"]) == {
        "run": "{{workflow.name}}",
        "body": '{"env": "prod", "n": 1}',
    }


def test_an_unknown_placeholder_is_refused_where_it_is_written(ws: Workspace) -> None:
    _policy(
        ws,
        "    postAction:\n"
        "      workflowTemplate: announce\n"
        "      parameters:\n"
        '        text: "{product} in {enviroment}"\n',
    )
    assert ws.problems() == [
        "policies.yaml:10:9: error: spec.policy.postAction.parameters.text: unknown "
        "placeholder {enviroment}; did you mean {environment}? (placeholders: {product}, "
        "{environment}, {version}, {revision})"
    ]


def test_a_pre_action_has_no_revision_yet(ws: Workspace) -> None:
    _policy(
        ws,
        "    preAction:\n"
        "      workflowTemplate: smoke-tests\n"
        "      parameters:\n"
        '        commit: "{revision}"\n',
    )
    assert ws.problems() == [
        "policies.yaml:10:9: error: spec.policy.preAction.parameters.commit: {revision} is "
        "the commit the promotion makes, and a preAction runs before it: use {revision} in "
        "a postAction"
    ]


def test_revision_where_nothing_is_committed_is_refused(ws: Workspace) -> None:
    _policy(
        ws,
        "    action: none\n"
        "    postAction:\n"
        "      workflowTemplate: announce\n"
        "      parameters:\n"
        '        commit: "{revision}"\n',
    )
    assert ws.problems() == [
        "policies.yaml:11:9: error: shop commits nothing in 'prod' (action: none), so its "
        "postAction has no {revision} to pass in 'commit'"
    ]


def test_revision_where_a_flow_step_commits_nothing_points_at_the_step(ws: Workspace) -> None:
    ws.write_base(flow=False)
    ws.write(
        "flow.yaml",
        """\
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: standard}
        spec:
          trigger: dev
          steps:
            - {environment: staging, dependsOn: [dev]}
            - environment: prod
              dependsOn: [staging]
              policy:
                action: none
                postAction: {workflowTemplate: announce, parameters: {at: "{revision}"}}
        """,
    )
    assert ws.problems() == [
        "flow.yaml:12:63: error: shop commits nothing in 'prod' (action: none), so its "
        "postAction has no {revision} to pass in 'at'"
    ]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("{product}", ["product"]),
        ("{{workflow.name}}", []),
        ("{{ tasks.a.outputs.result }}", []),
        ('{"a": {"b": 1}}', []),
        ("{version}/{revision}", ["version", "revision"]),
        ("{env.name}", ["env.name"]),
        ("{}", []),
    ],
)
def test_what_counts_as_a_placeholder(text: str, found: list[str]) -> None:
    assert placeholders(text) == found


def test_substitution_leaves_the_rest_of_the_text_as_it_is() -> None:
    values = {"product": "shop", "environment": "prod", "version": "V", "revision": "R"}
    text = "{{workflow.name}}: {product}@{version} ({revision}) {environment} {x"
    assert substitute(check(text), values) == "{{workflow.name}}: shop@V (R) prod {x"
