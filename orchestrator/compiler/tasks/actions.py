"""The user's own templates run before the deploy (``pre``) and after everything else
(``post``), with placeholders filled in: names as text, the version and the commit as the
run's Argo expressions (:mod:`orchestrator.model.actions`)."""

from __future__ import annotations

from orchestrator.compiler import names
from orchestrator.compiler.chain import Build, contributes, user_ref
from orchestrator.graph.plan import CompileError, EnvironmentPlan, ProductPlan
from orchestrator.model.actions import placeholders, substitute
from orchestrator.model.policy import WorkflowRef


def _arguments(
    workflow: WorkflowRef, plan: ProductPlan, env: EnvironmentPlan, revision: str
) -> dict[str, str]:
    values = {
        "product": plan.product.name,
        "environment": env.environment,
        "version": "{{workflow.parameters.version}}",
        "revision": revision,
    }
    arguments: dict[str, str] = {}
    for key, text in workflow.parameters.items():
        if not revision and "revision" in placeholders(text):
            raise CompileError(
                f"{workflow.workflow_template} in {env.environment!r}: parameter {key!r} uses "
                "{revision}, but no commit is made before it runs"
            )
        arguments[key] = substitute(text, values)
    return arguments


@contributes("pre-action", kind="pre")
def add_pre(build: Build) -> None:
    action = build.env.policy.pre_action
    if action is not None:
        arguments = _arguments(action, build.plan, build.env, revision="")
        build.chain.add(names.task("pre", build.env.environment), user_ref(action), arguments)


@contributes("post-action", kind="post")
def add_post(build: Build) -> None:
    action = build.env.policy.post_action
    if action is not None:
        arguments = _arguments(action, build.plan, build.env, revision=build.commit)
        build.chain.add(names.task("post", build.env.environment), user_ref(action), arguments)
