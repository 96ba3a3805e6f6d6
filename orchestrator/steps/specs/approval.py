"""``approval``: a suspend node whose one input, ``approve`` (YES/NO), is what a person
answers: in the node's resume dialog of the Argo UI, with ``argo node set`` and
``argo resume``, or with ``promoflow approve`` / ``promoflow reject``. It has no program:
Argo itself waits, and the ``approver`` step after it judges the answer.

Its other inputs (environment, approvers, timeout) are fixed when the flow is compiled
(see ``Pause``), so the dialog offers nothing else to edit. A node resumed without an
answer (its timeout, or the workflow's RESUME button) outputs an empty ``approve``: the
``approver`` step stops the environment and says which of the two happened.

``approve`` is its only supplied output: Argo applies the outputs' defaults only on the
timeout and on a resume of the whole workflow, so any other supplied output would stay
unset when a person answers ``approve`` alone (``argo node set`` then ``argo resume``, the
UI's dialog), and every task reading it would wait for ever. A reason given with
``promoflow reject -m`` goes into the node's message.
"""

from __future__ import annotations

from orchestrator.steps.registry import Answer, Input, Pause, StepSpec, TaskKind, register

APPROVALS_MUTEX = "{{workflow.name}}-approvals"
"""Approvals of one run take turns, so the actor labels the ``approver`` step reads belong
to the answer it checks (orchestrator/approvers.py)."""

QUESTION = (
    "Promote {{inputs.parameters.product}} {{workflow.parameters.version}} into "
    "{{inputs.parameters.environment}}? Requested by {{workflow.parameters.requested-by}}. "
    "Who may answer: {{inputs.parameters.answerers}}."
)
"""The question the resume dialog shows with the YES/NO choice (Argo fills in the
workflow's parameters when the node starts)."""

SPEC = register(
    StepSpec(
        name="approval",
        summary="Wait for a person to answer YES or NO (no answer after the timeout).",
        doc=__doc__ or "",
        inputs=(
            Input("product"),
            Input("environment"),
            Input("approvers", "", help="Approvers the workflow checks (comma-separated)."),
            Input(
                "answerers",
                "anyone Argo lets update this workflow",
                help="Who may answer, as the question says it.",
            ),
            Input("timeout", "168h"),
        ),
        pause=Pause(
            duration="{{inputs.parameters.timeout}}",
            answer=Answer(
                name="approve",
                choices=("YES", "NO"),
                default="NO",
                description=QUESTION,
            ),
        ),
        exits={},  # no program: Argo resumes the node
        mutex=APPROVALS_MUTEX,
        tasks=(TaskKind("approve", rank=10),),
    )
)
