"""``approver``: runs after every approval answered YES; the promotion goes on only if the
answer came in time and, when the policy lists approvers, Argo recorded a listed approver
as its author (the ``workflows.argoproj.io/actor`` labels). Answers given in the Argo UI,
with ``promoflow approve`` or with ``argo node set`` are all checked here. With nobody to
check (no approvers listed, or ``enforce: argo-rbac``) it lets a timely answer through:
it is there so that the environment's chain depends on it alone. It reads only the
workflow's own labels: no credentials.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from orchestrator.steps.registry import Input, StepSpec, TaskKind, register


def run(**values: Any) -> None:
    """Let the promotion go on only if Argo recorded a listed approver as the answer's
    author."""
    from orchestrator import progress
    from orchestrator.approvers import parse_approvers, verify
    from orchestrator.nesting import json_too_deep
    from orchestrator.steps import support

    labels: str = values["labels"]
    try:
        recorded = json.loads(labels) if labels.strip() and not json_too_deep(labels) else {}
    except ValueError:
        recorded = None
    if labels.strip() and json_too_deep(labels):
        recorded = None
    if not isinstance(recorded, dict):
        support.usage("--labels must be a JSON object of label names to values")
    listed = parse_approvers(values["approvers"])
    verdict = verify(
        values["environment"],
        listed,
        {str(k): str(v) for k, v in recorded.items()},
        values["started_at"],
        values["finished_at"],
        support.seconds(values["timeout"], "--timeout"),
    )
    progress.node_message(verdict.message)
    support.write_outputs(support.outputs_dir(values["outputs"]), {"approved-by": verdict.message})
    sys.stdout.write(json.dumps({"approved": verdict.approved, "reason": verdict.message}) + "\n")
    if not verdict.approved:
        support.fail(verdict.message)


SPEC = register(
    StepSpec(
        name="approver",
        summary="Let the promotion go on only if Argo recorded a listed approver as the "
        "answer's author.",
        doc=__doc__ or "",
        inputs=(
            Input("environment", help="Environment whose approval is checked."),
            Input(
                "approvers",
                help="Comma-separated approvers to check (user:NAME or NAME); empty: none.",
            ),
            Input("labels", help="The Workflow's labels as JSON ({{workflow.labels}})."),
            Input("started-at", help="When the approval node started (RFC 3339)."),
            Input("finished-at", help="When it was answered (RFC 3339)."),
            Input("timeout", "168h", help="The approval's timeout, e.g. 168h."),
            Input("run", cli_only=True, help="Promotion run name (for messages)."),
        ),
        outputs=("approved-by",),
        exits={
            0: "a listed approver answered",
            1: "nobody listed answered (or the answer came too late)",
            2: "usage error",
        },
        deadline=120,
        run=run,
        tasks=(TaskKind("approver", rank=20),),
    )
)
