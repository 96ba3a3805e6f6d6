"""HTTP checks: one ``http-check`` task per check of the policy (numbered when there are
several), each within the check's timeout and a margin."""

from __future__ import annotations

from orchestrator.compiler import names
from orchestrator.compiler.chain import DEADLINE_MARGIN, Build, contributes


@contributes("http-check", kind="check")
def add(build: Build) -> None:
    checks = build.env.policy.http_gates
    n = build.env.environment
    for i, http in enumerate(checks, start=1):
        build.chain.step(
            names.task("check", n, i if len(checks) > 1 else None),
            build.settings,
            "http-check",
            {
                "environment": n,
                "url": http.url,
                "expect-status": str(http.expect_status),
                "jsonpath": http.jsonpath or "",
                "equals": http.equals or "",
                "retries": str(http.retries),
                "deadline-seconds": str(int((http.timeout + DEADLINE_MARGIN).total_seconds())),
            },
        )
