"""``wait-merge``: wait for a promotion pull request to be merged; output the merge commit.

With nothing changed the promote step opens no pull request and its commit is passed
through, so the DAG after it is the same either way.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, NamedTuple

from orchestrator.steps.registry import Input, StepSpec, TaskKind, register

if TYPE_CHECKING:
    from pathlib import Path


class Inputs(NamedTuple):
    """What the wait reads: the pull request (or the commit when there is none)."""

    environment: str
    pull_request: str
    commit: str
    repo: str
    timeout: str
    run: str
    outputs: Path | None


def run(inputs: Inputs) -> None:
    """Wait until the promotion's pull request is merged; output the merge commit."""
    from orchestrator.adapters.scm import ScmError
    from orchestrator.steps import support
    from orchestrator.steps.wait_merge import MergeError, wait_for_merge

    pull_request, repo = inputs.pull_request, inputs.repo
    limit = support.seconds(inputs.timeout, "--timeout")
    interval = support.env_seconds("PROMOFLOW_POLL_INTERVAL", 30.0)
    support.checked_url(pull_request, "--pull-request")
    support.checked_repo(repo)
    if not pull_request:
        if not inputs.commit:
            support.usage("give --pull-request, or --commit when nothing changed")
        merged = inputs.commit
    else:
        try:
            merged = wait_for_merge(
                pull_request, repo, limit, interval=interval, log=lambda m: support.say(m)
            )
        except (MergeError, ScmError) as exc:
            support.fail(str(exc), support.TRANSIENT_EXIT if exc.transient else 1)
    support.write_outputs(support.outputs_dir(inputs.outputs), {"commit": merged})
    sys.stdout.write(json.dumps({"environment": inputs.environment, "commit": merged}) + "\n")


SPEC = register(
    StepSpec(
        name="wait-merge",
        summary="Wait until the promotion's pull request is merged; output the merge commit.",
        doc=__doc__ or "",
        inputs=(
            Input("environment", help="Target environment (for messages)."),
            Input("pull-request", "", help="Pull/merge request URL from the promote step."),
            Input("commit", "", help="Commit to output when there is no pull request."),
            Input("repo", cli_required=False, help="Repository URL (selects GitHub or GitLab)."),
            Input("timeout", "24h", help="Give up after this long, e.g. 24h."),
            Input("run", cli_only=True, help="Promotion run name (unused; for symmetry)."),
        ),
        outputs=("commit",),
        needs=frozenset({"git"}),  # the SCM API takes GIT_TOKEN
        run=run,
        takes=Inputs,
        tasks=(TaskKind("merge", rank=50),),
    )
)
