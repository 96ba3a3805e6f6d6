"""promoflow's executor plugin, run locally: each plugin step as the pod its step would be.

A Workflow compiled with ``execution: plugin`` has plugin templates the local engine cannot
hand to a sidecar. Their stand-in here is the same step's container template (the pod
execution's, from the same settings), run with the plugin's substituted arguments: the
same program, environment (the step's credentials only), outputs, deadline and exit codes
the sidecar's forked child has, so a local run of that Workflow ends as it does on a
cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.compiler.library import OUTPUTS_DIR, build
from orchestrator.engine.errors import EngineError
from orchestrator.engine.plugins import LocalPlugin
from orchestrator.plugin.protocol import PLUGIN
from orchestrator.settings import StepSettings
from orchestrator.steps import registry


def stand_in(settings: StepSettings) -> dict[str, LocalPlugin]:
    """``{"promoflow": <stand-in>}`` for :class:`orchestrator.engine.EngineOptions`."""
    pods = settings.model_copy(update={"execution": "pod"})

    def run_as_pod(value: Mapping[str, Any], where: str) -> Mapping[str, Any]:
        args = value.get("args") if isinstance(value, Mapping) else None
        if not isinstance(args, list) or len(args) < 2 or args[0] != "step":
            raise EngineError(f"{where}: plugin.{PLUGIN}.args must start with 'step <name>'")
        try:
            spec = registry.get(str(args[1]))
        except KeyError:
            raise EngineError(f"{where}: no step {args[1]!r}") from None
        template = build(pods, spec).to_dict()["spec"]["templates"][0]
        container = {**template["container"], "args": [*args, "--outputs", OUTPUTS_DIR]}
        out: dict[str, Any] = {"container": container}
        if template.get("outputs"):
            out["outputs"] = template["outputs"]
        for key in ("podSpecPatch", "securityContext", "volumes"):
            if key in template:
                out[key] = template[key]
        deadline = value.get("deadline")
        if deadline not in (None, ""):
            out["activeDeadlineSeconds"] = deadline
        return out

    return {PLUGIN: run_as_pod}
