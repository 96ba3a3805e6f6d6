"""``plan``: what the promote step would change in the environment, changing nothing.

It runs first where an environment has an approval (``plan-ENV``): an environment that
already holds the promoted values is ``unchanged``, so its approval is not asked again
(the ``approve-ENV`` task's ``when`` reads ``changed``), while its deploy still reports
the current commit and its verification still waits for Argo CD to run it. The deploy
gets ``changed`` too and refuses to commit anything the plan did not see: no commit may
go out without the approval it needed.

The inputs are the promote step's, read the same way (the same request, the same edit in
memory); it pushes nothing, so it takes no mutex. Outputs: ``changed`` (``true`` or
``false``) and ``commit``, the branch tip it compared with.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, NamedTuple

from orchestrator.steps.registry import EXITS, StepSpec, TaskKind, register
from orchestrator.steps.specs import promote

if TYPE_CHECKING:
    from pathlib import Path

    from orchestrator.loading import Config

_NOT_PLANNED = ("planned", "plan")
"""Promote inputs a plan has no use for: it pushes nothing and is the plan itself."""


class Inputs(NamedTuple):
    """The promote step's inputs, but those of pushing (the plan it follows)."""

    product: str
    environment: str
    source_environment: str
    source_commit: str
    version: str
    config: Config | None
    repo: str
    branch: str
    source_branch: str
    source_path: str
    target_path: str
    files: str
    version_file: str
    version_path: str
    version_fields: str
    version_field_paths: str
    version_kustomize_image: str
    action: str
    requested_by: str
    run: str
    image: str
    version_order: str
    rollback: str
    rollback_reason: str
    cache_dir: Path | None
    outputs: Path | None


def run(inputs: Inputs) -> None:
    """Resolve the request as the promote step does; say whether it would change anything."""
    from orchestrator import progress
    from orchestrator.steps import support
    from orchestrator.steps.request import field_names

    fields = set(field_names())
    params = {k: v for k, v in inputs._asdict().items() if k in fields}
    request = promote.resolve_promote(params, inputs.config)
    promote.require_version(request)
    import pygit2

    from orchestrator.adapters.git import Credentials, GitError, GitRemote
    from orchestrator.steps.edits import PromoteError
    from orchestrator.steps.promote import PromoteResult, preview

    def once() -> PromoteResult:
        with GitRemote(request.repo, Credentials.from_env(), inputs.cache_dir) as remote:
            return preview(remote, request)

    try:
        result = support.retry_transient(once)
    except PromoteError as exc:
        support.fail(str(exc))
    except GitError as exc:
        support.fail(str(exc), support.TRANSIENT_EXIT if exc.transient else 1)
    except pygit2.GitError as exc:  # the adapters wrap their own; this is the last line
        support.fail(f"git: {exc}")
    support.write_outputs(
        support.outputs_dir(inputs.outputs),
        {"changed": str(result.changed).lower(), "commit": result.commit},
    )
    commit = result.commit[:12]
    if result.changed:
        said = f"{len(result.files)} file(s) would change on {request.branch} (at {commit})"
    else:
        said = f"unchanged: {request.environment} already holds the promoted values ({commit})"
    progress.node_message(said)
    state = "changes" if result.changed else "unchanged"
    sys.stdout.write(json.dumps({**result.as_json(), "state": state}) + "\n")


SPEC = register(
    StepSpec(
        name="plan",
        summary="Say whether promoting would change the target environment, changing nothing.",
        doc=__doc__ or "",
        inputs=tuple(i for i in promote.SPEC.inputs if i.name not in _NOT_PLANNED),
        outputs=("changed", "commit"),
        exits={**EXITS, 1: "cannot plan as asked (a missing file, a source without the version)"},
        deadline=promote.SPEC.deadline,
        needs=frozenset({"git"}),
        run=run,
        takes=Inputs,
        tasks=(TaskKind("plan", rank=5),),
    )
)
