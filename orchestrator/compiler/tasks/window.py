"""The ``window`` task: right before the deploy, it holds the promotion while a promotion
window that applies to the product and environment is closed."""

from __future__ import annotations

import json

from orchestrator.compiler import names
from orchestrator.compiler.chain import Build, contributes


@contributes("window", kind="window")
def add(build: Build) -> None:
    env = build.env
    if env.policy.action == "none":
        return  # nothing is committed: nothing to hold
    if not env.windows:
        return
    documents = [  # what the step reads: a window's labels and annotations are not
        w.model_dump(
            mode="json",
            by_alias=True,
            exclude_none=True,
            exclude={"metadata": {"labels", "annotations"}},
        )
        for w in env.windows
    ]
    build.chain.step(
        names.task("window", env.environment),
        build.settings,
        "window",
        {
            "product": build.plan.product.name,
            "environment": env.environment,
            "windows": json.dumps(documents, separators=(",", ":"), sort_keys=True),
        },
    )
