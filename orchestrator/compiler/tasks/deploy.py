"""The deploy: the ``promote`` step commits the version to the environment's files (or
opens a pull request for it), unless the environment's action is ``none``."""

from __future__ import annotations

import json

from orchestrator.compiler import names
from orchestrator.compiler.chain import Build, contributes, output
from orchestrator.compiler.rollback import is_rollback
from orchestrator.graph.plan import EnvironmentPlan, ProductPlan
from orchestrator.steps.request import file_spec


def _files(plan: ProductPlan) -> str:
    files = [file_spec(rule).as_json() for rule in plan.template.spec.files]
    return json.dumps(files, separators=(",", ":"), sort_keys=True)


def promote_args(
    plan: ProductPlan, env: EnvironmentPlan, commits: dict[str, str]
) -> dict[str, str]:
    """What the ``promote`` step (and ``plan``, which reads the same) is given."""
    repo = plan.product.spec.repo
    version = plan.template.spec.version_source
    source = env.source
    return {
        "product": plan.product.name,
        "environment": env.environment,
        "source-environment": source or "",
        "source-commit": commits.get(source, "")
        if source
        else "{{workflow.parameters.source-commit}}",
        "version": "{{workflow.parameters.version}}",
        "repo": repo.url,
        "branch": env.app.branch,
        "source-branch": env.source_app.branch if env.source_app else "",
        "source-path": env.source_app.path if env.source_app else "",
        "target-path": env.app.path,
        "files": _files(plan),
        "version-file": version.file if version else "",
        "version-path": version.version_path if version else "",
        "version-fields": "" if source else "{{workflow.parameters.version-fields}}",
        "version-field-paths": ",".join(version.fields) if version and not source else "",
        "version-kustomize-image": version.kustomize_image.name
        if version and version.kustomize_image
        else "",
        "action": env.policy.action,
        "requested-by": "{{workflow.parameters.requested-by}}",
        # which image the version is: the step reads it from the promoted file
        **({"image": plan.image.to_json()} if plan.image is not None else {}),
        # how versions are ordered: the step refuses to write an older one than the
        # target holds; only a rollback's chain (its environment its own source) may
        "version-order": plan.product.spec.triggers.order,
        "rollback": "true" if is_rollback(env) else "false",
        "rollback-reason": "{{workflow.parameters.rollback-reason}}",  # a promotion's: empty
    }


@contributes("deploy", kind="deploy")
def add(build: Build) -> None:
    if build.env.policy.action == "none":
        return
    deploy = names.task("deploy", build.env.environment)
    arguments = promote_args(build.plan, build.env, build.commits)
    if build.planned:  # what the approval was asked for (or not): nothing else is committed
        arguments["planned"] = output(build.planned, "changed")
    build.chain.step(deploy, build.settings, "promote", arguments)
    build.deploy = deploy
    build.commit = output(deploy, "commit")
