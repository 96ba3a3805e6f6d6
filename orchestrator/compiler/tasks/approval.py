"""An approval: ``plan`` (where something is committed), the ``approve`` pause, and the
``approver`` step that judges every answer.

An approval is asked only for a change: ``plan`` says whether the environment already
holds the promoted values, ``approve`` (a pause compiled into the product's template, so
its only input is the answer) runs ``when`` it does not, ``approver`` judges every answer
(a NO, the timeout, a resume without an answer, or a YES from someone not listed fails
it, and with it the run), and the rest of the chain depends on ``approver.Succeeded ||
approve.Skipped``: an unchanged environment skips its approval and still deploys (nothing
to commit) and verifies. No ``when`` reads the outputs of a task that may have been
skipped: Argo versions differ on what such a reference resolves to (an empty string, or a
requeue for ever).
"""

from __future__ import annotations

from orchestrator.compiler import names
from orchestrator.compiler.chain import Build, contributes, output
from orchestrator.compiler.tasks.deploy import promote_args
from orchestrator.durations import format_go
from orchestrator.model.gates.approval import ApprovalGate

DEFAULT_APPROVAL_TIMEOUT = "168h"  # 7 days, as Go writes it: Argo has no "d" unit


@contributes("approval", kind="plan")
def add(build: Build) -> None:
    approval = build.env.policy.gate(ApprovalGate)
    if approval is None:
        return
    chain, n = build.chain, build.env.environment
    planned = ""
    if build.env.policy.action != "none":
        planned = names.task("plan", n)
        arguments = {
            k: v
            for k, v in promote_args(build.plan, build.env, build.commits).items()
            if k != "lock"
        }
        chain.step(planned, build.settings, "plan", arguments)
        chain.when = f"{output(planned, 'changed')} == true"
    approve = names.task("approve", n)
    timeout = format_go(approval.timeout) if approval.timeout else DEFAULT_APPROVAL_TIMEOUT
    approvers = ",".join(approval.approvers)
    values = {
        "product": build.plan.product.name,
        "environment": n,
        "approvers": approvers,
        "timeout": timeout,
    }
    if approvers:
        values["answerers"] = ", ".join(approval.approvers)
    chain.add_inline(approve, build.pauses.add("approval", f"approval-{n}", values))
    # the answer is judged in the workflow itself: the UI and `argo node set` answer the
    # suspend node directly, so no client can be trusted to check. With nobody to check
    # (none listed, or Argo's RBAC decides) the step lets any timely YES through.
    checked = approvers if approval.enforce == "workflow" else ""
    approver = names.task("approver", n)
    chain.step(
        approver,
        build.settings,
        "approver",
        {
            "environment": n,
            "approvers": checked,
            "answer": output(approve, "approve"),
            "labels": "{{workflow.labels}}",
            "started-at": f"{{{{tasks.{approve}.startedAt}}}}",
            "finished-at": f"{{{{tasks.{approve}.finishedAt}}}}",
            "timeout": timeout,
        },
    )
    if planned:  # approved, or nothing to approve: the environment is unchanged
        chain.after = f"{approver}.Succeeded || {approve}.Skipped"
    build.planned = planned
