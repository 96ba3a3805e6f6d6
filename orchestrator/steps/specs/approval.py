"""``approval``: a suspend node with an ``approve`` parameter (YES/NO) people answer in the
Argo UI or with ``promoflow approve`` / ``promoflow reject``. It resumes by itself with NO
after its timeout. It has no program: Argo itself waits.
"""

from __future__ import annotations

from orchestrator.steps.registry import Answer, Input, Pause, StepSpec, TaskKind, register

APPROVALS_MUTEX = "{{workflow.name}}-approvals"
"""Approvals of one run take turns, so the actor labels the ``approver`` step reads belong
to the answer it checks (orchestrator/approvers.py)."""

SPEC = register(
    StepSpec(
        name="approval",
        summary="Wait for a person to answer YES or NO (NO after the timeout).",
        doc=__doc__ or "",
        inputs=(
            Input("environment"),
            Input("approvers", ""),
            Input("timeout", "168h"),
        ),
        pause=Pause(
            duration="{{inputs.parameters.timeout}}",
            answer=Answer(
                name="approve",
                choices=("YES", "NO"),
                default="NO",
                description="Promote into {{inputs.parameters.environment}}? "
                "Approvers: {{inputs.parameters.approvers}}",
            ),
        ),
        exits={},  # no program: Argo resumes the node
        mutex=APPROVALS_MUTEX,
        tasks=(TaskKind("approve", rank=10),),
    )
)
