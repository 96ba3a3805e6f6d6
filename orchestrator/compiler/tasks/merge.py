"""A pull request's merge: where the environment's action is ``pull-request``, the
``wait-merge`` step waits until the pull request the deploy opened is merged, and its
merge commit is what the environment runs."""

from __future__ import annotations

from orchestrator.compiler import names
from orchestrator.compiler.chain import Build, contributes, output


@contributes("merge", kind="merge")
def add(build: Build) -> None:
    if build.env.policy.action != "pull-request" or not build.deploy:
        return
    merge = names.task("merge", build.env.environment)
    build.chain.step(
        merge,
        build.settings,
        "wait-merge",
        {
            "environment": build.env.environment,
            "pull-request": output(build.deploy, "pull-request"),
            "commit": build.commit,
            "repo": build.plan.product.spec.repo.url,
        },
    )
    build.commit = output(merge, "commit")
