"""The pull-request action: push the promotion to its own branch and open a PR/MR.

The branch name is derived from product, environment and the promoted tree, so a retried
step finds the branch (and the pull request) it already created instead of opening a
second one. The body lists every changed value and links the source commit, which is what
a reviewer needs to approve a promotion without opening the files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pygit2

from orchestrator.adapters.git import GitError, GitRemote
from orchestrator.adapters.gittree import write_tree
from orchestrator.adapters.scm import ScmClient, ScmError, ScmTarget
from orchestrator.names import digest, slug
from orchestrator.steps.edits import PromoteError, join
from orchestrator.steps.promote import (
    Identity,
    Plan,
    PromoteResult,
    commit_message,
    plan,
    refuse_unplanned,
)
from orchestrator.steps.request import PromoteRequest


@dataclass
class PullRequestResult(PromoteResult):
    pull_request: str = ""

    def as_json(self) -> dict[str, Any]:
        return {**super().as_json(), "pull_request": self.pull_request}


def head_branch(request: PromoteRequest, tree: pygit2.Oid) -> str:
    version = slug(request.version or "") or "current"
    return f"promoflow/{request.product}/{request.environment}/{version}-{digest(str(tree))}"


def _named(request: PromoteRequest) -> str:
    """``shop 1.4.2``, or ``shop`` when no version is given (no stray space)."""
    return f"{request.product} {request.version}" if request.version else request.product


def pr_body(request: PromoteRequest, edit_plan: Plan) -> str:
    lines = [
        f"Promotes **{_named(request)}** "
        f"from `{request.source_environment or '(new version)'}` to `{request.environment}`.",
        "",
    ]
    if edit_plan.values:
        lines += ["| file | value | from | to |", "| --- | --- | --- | --- |"]
        lines += [f"| `{f}` | `{p}` | `{old}` | `{new}` |" for f, p, old, new in edit_plan.values]
        lines.append("")
    edited = {join(request.target_path, v[0]) for v in edit_plan.values}
    copied = [f for f in edit_plan.files if f not in edited]
    if copied:
        lines += ["Files copied as a whole:", *[f"- `{f}`" for f in copied], ""]
    if edit_plan.source_commit is not None:
        lines.append(f"Source commit: `{edit_plan.source_commit.id}`")
    if request.run:
        lines.append(f"Promotion run: `{request.run}`")
    return "\n".join(lines) + "\n"


def open_pull_request(
    remote: GitRemote,
    request: PromoteRequest,
    identity: Identity | None = None,
    template: str | None = None,
    scm: ScmClient | None = None,
    *,
    allow_changes: bool = True,
) -> PullRequestResult:
    """Push the promotion to a new branch and open (or find) its pull request.
    ``allow_changes=False``: the plan said unchanged; a change now is refused."""
    identity = identity or Identity.from_env()
    tip = remote.fetch_branch(request.branch)
    edit_plan = plan(remote, request, tip)
    repo = remote.repo
    tree = write_tree(repo, tip.tree, edit_plan.changes)
    if tree == tip.tree_id:
        return PullRequestResult(
            str(tip.id), False, [], branch=request.branch, image=edit_plan.image
        )
    if not allow_changes:
        raise refuse_unplanned(request, edit_plan.files)
    branch = head_branch(request, tree)
    try:
        existing = remote.fetch_branch(branch)
    except GitError:
        existing = None
    if existing is not None and existing.tree_id == tree:
        commit = existing.id
    else:
        sig = identity.signature()
        message = commit_message(request, edit_plan, template)
        commit = repo.create_commit(None, sig, sig, message, tree, [tip.id])
        remote.push(commit, branch, None)  # a new branch
    client = scm or ScmClient(ScmTarget.from_repo(request.repo), remote.credentials.token)
    title = f"Promote {_named(request)} to {request.environment}"
    try:
        pr = client.open(branch, request.branch, title, pr_body(request, edit_plan))
    except ScmError as exc:
        if exc.transient:
            raise GitError(str(exc), transient=True) from None
        raise PromoteError(str(exc)) from None
    finally:
        if scm is None:
            client.close()
    return PullRequestResult(
        str(commit),
        True,
        edit_plan.files,
        branch=branch,
        pull_request=pr.url,
        image=edit_plan.image,  # as the pull request's branch holds it
    )


def poll_interval() -> float:
    return float(os.environ.get("PROMOFLOW_POLL_INTERVAL", "30"))
