"""A soak: a pause of the policy's duration, compiled into the product's template."""

from __future__ import annotations

from orchestrator.compiler import names
from orchestrator.compiler.chain import Build, contributes
from orchestrator.durations import format_go
from orchestrator.model.gates.soak import SoakGate


@contributes("soak", kind="soak")
def add(build: Build) -> None:
    soak = build.env.policy.gate(SoakGate)
    if soak is None:
        return
    n = build.env.environment
    values = {"environment": n, "duration": format_go(soak.duration)}
    build.chain.add_inline(names.task("soak", n), build.pauses.add("soak", f"soak-{n}", values))
