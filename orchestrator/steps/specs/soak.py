"""``soak``: suspend for the soak duration before the flow moves on, so the new version
runs for a while (and alerts have time to fire) before the next environment gets it.
Its inputs are fixed when the flow is compiled (see ``Pause``): the node has none a
person could edit, and resuming it in the UI ends the soak early."""

from __future__ import annotations

from orchestrator.steps.registry import Input, Pause, StepSpec, TaskKind, register

SPEC = register(
    StepSpec(
        name="soak",
        summary="Let the new version run for a while before the flow moves on.",
        doc=__doc__ or "",
        inputs=(Input("environment"), Input("duration")),
        pause=Pause(duration="{{inputs.parameters.duration}}"),
        exits={},  # no program: Argo resumes the node
        tasks=(TaskKind("soak", rank=70),),
    )
)
