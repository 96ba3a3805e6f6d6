"""``approver``: runs after every approval and judges its answer. The promotion goes on
only on a YES given in time by someone Argo recorded (the ``workflows.argoproj.io/actor``
labels) and, when the policy lists approvers, by a listed one. A NO, the timeout, or a
resume without an answer (the workflow's RESUME button) stops the environment with a
message saying which, and who; its dependants do not run and the run ends Failed.
Answers given in the Argo UI's resume dialog, with ``promoflow approve``/``reject`` or
with ``argo node set`` are all judged here. It reads only what Argo hands it: no
credentials, and nothing that could fail transiently, so it is never retried.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, NamedTuple

from orchestrator.steps.registry import Input, StepSpec, TaskKind, register

if TYPE_CHECKING:
    from pathlib import Path


class Inputs(NamedTuple):
    """What the approver reads: the node's answer, Argo's labels and the timing."""

    environment: str
    approvers: str
    answer: str
    labels: str
    started_at: str
    finished_at: str
    timeout: str
    run: str
    outputs: Path | None


def run(inputs: Inputs) -> None:
    """Let the promotion go on only on a timely YES that Argo recorded from an approver."""
    from orchestrator import progress
    from orchestrator.approvers import Answered, parse_approvers, verify
    from orchestrator.nesting import json_too_deep
    from orchestrator.steps import support

    labels = inputs.labels
    try:
        recorded = json.loads(labels) if labels.strip() and not json_too_deep(labels) else {}
    except ValueError:
        recorded = None
    if labels.strip() and json_too_deep(labels):
        recorded = None
    if not isinstance(recorded, dict):
        support.usage("--labels must be a JSON object of label names to values")
    listed = parse_approvers(inputs.approvers)
    verdict = verify(
        Answered(
            environment=inputs.environment,
            answer=inputs.answer,
            labels={str(k): str(v) for k, v in recorded.items()},
            started_at=inputs.started_at,
            finished_at=inputs.finished_at,
            timeout=inputs.timeout,
            timeout_seconds=support.seconds(inputs.timeout, "--timeout"),
        ),
        listed,
    )
    progress.node_message(verdict.message)
    support.write_outputs(support.outputs_dir(inputs.outputs), {"approved-by": verdict.message})
    sys.stdout.write(json.dumps({"approved": verdict.approved, "reason": verdict.message}) + "\n")
    if not verdict.approved:
        support.fail(verdict.message)


SPEC = register(
    StepSpec(
        name="approver",
        summary="Judge an approval's answer: go on only on a timely YES by an approver.",
        doc=__doc__ or "",
        inputs=(
            Input("environment", help="Environment whose approval is checked."),
            Input(
                "approvers",
                help="Comma-separated approvers to check (user:NAME or NAME); empty: none.",
            ),
            Input("answer", help="The approval's answer: YES, NO, or empty (none given)."),
            Input("labels", help="The Workflow's labels as JSON ({{workflow.labels}})."),
            Input("started-at", help="When the approval node started (RFC 3339)."),
            Input("finished-at", help="When it was answered (RFC 3339)."),
            Input("timeout", "168h", help="The approval's timeout, e.g. 168h."),
            Input("run", cli_only=True, help="Promotion run name (for messages)."),
        ),
        outputs=("approved-by",),
        exits={
            0: "approved in time (by a listed approver, where approvers are listed)",
            1: "rejected, not answered, answered late, or by someone not listed",
            2: "usage error",
        },
        deadline=120,
        retries=False,
        run=run,
        takes=Inputs,
        tasks=(TaskKind("approver", rank=20),),
    )
)
