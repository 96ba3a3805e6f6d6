"""The plan before the apply: the exact diff a promotion would commit, without committing.

Uses the same planning code as the promote step (fetch, read, edit in memory), then renders
a unified diff of every file the promotion would change.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import pygit2

from orchestrator.adapters.git import GitRemote
from orchestrator.steps.promote import plan
from orchestrator.steps.request import PromoteRequest


@dataclass(frozen=True)
class FileDiff:
    path: str
    status: str  # "modified", "added", "deleted"
    text: str


def _text(repo: pygit2.Repository, oid: pygit2.Oid | None) -> list[str] | None:
    if oid is None:
        return []
    data = bytes(repo[oid].peel(pygit2.Blob).data)
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def promotion_diff(remote: GitRemote, request: PromoteRequest) -> tuple[str, list[FileDiff]]:
    """The branch tip the diff is against, and one diff per file the promotion changes."""
    tip = remote.fetch_branch(request.branch)
    edit_plan = plan(remote, request, tip)
    repo = remote.repo
    old_entries = {p: tip.tree[p].id for p in edit_plan.changes if p in tip.tree}
    remote.ensure_blobs(old_entries.values())
    diffs = []
    for path in sorted(edit_plan.changes):
        new = edit_plan.changes[path]
        old_oid = old_entries.get(path)
        status = "added" if old_oid is None else "deleted" if new is None else "modified"
        before, after = _text(repo, old_oid), _text(repo, new.oid if new else None)
        if before is None or after is None:
            text = f"Binary file {path} {status}\n"
        else:
            text = "".join(
                difflib.unified_diff(
                    before,
                    after,
                    fromfile=f"a/{path}" if old_oid else "/dev/null",
                    tofile=f"b/{path}" if new else "/dev/null",
                )
            )
        diffs.append(FileDiff(path, status, text))
    return str(tip.id), diffs
