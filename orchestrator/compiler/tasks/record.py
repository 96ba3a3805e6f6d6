"""The ``record`` task: last in an environment's chain, it runs only once every
post-commit gate passed, and notes on the promotion commit that the version is verified
there. An environment without a post-commit gate verifies nothing, so records nothing."""

from __future__ import annotations

from orchestrator.compiler import names
from orchestrator.compiler.chain import Build, contributes, output

PRE_COMMIT = frozenset({"approval"})


@contributes("record", kind="record")
def add(build: Build) -> None:
    env = build.env
    if not build.deploy:
        return
    gates = [g.body.KIND for g in env.policy.gates.values() if g.body.KIND not in PRE_COMMIT]
    if "sync" in gates and env.checks_image:  # checked by the wait, once Healthy
        after = "health" if "health" in gates else "sync"
        gates.insert(gates.index(after) + 1, "images")
    if not gates:
        return
    build.chain.step(
        names.task("record", env.environment),
        build.settings,
        "record",
        {
            "environment": env.environment,
            "repo": build.plan.product.spec.repo.url,
            "commit": output(build.deploy, "commit"),
            "changed": output(build.deploy, "changed"),
            "gates": ",".join(dict.fromkeys(gates)),
            "run": "{{workflow.name}}",
        },
    )
