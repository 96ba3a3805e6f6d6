"""The promote step: move a product's promoted values from one environment to the next.

One attempt reads the source environment's files at the pinned source commit, edits the
target environment's files (YAML paths in place, whole files by blob id), writes a new tree
and a commit whose parent is the branch tip just fetched, and pushes it. If the push is
rejected because another promotion got there first, the tip is fetched again and the same
edit is re-applied on top of it, with jittered backoff, a bounded number of times: never a
force push, never a lost commit. If the target already holds the promoted values, nothing
is committed and the current head is reported (the step is idempotent). What an attempt
changes in the files is :mod:`orchestrator.steps.edits`; here is how it is planned against
a tip, checked against the version the target holds, committed and pushed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pygit2
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from orchestrator.adapters.git import GitRemote, PushRejected
from orchestrator.adapters.gittree import Changes, Entry, list_files, subtree, write_tree
from orchestrator.imagespec import PromotedImage
from orchestrator.steps import edits, message
from orchestrator.steps.edits import PromoteError
from orchestrator.steps.request import PromoteRequest
from orchestrator.versionorder import compare
from orchestrator.yamledit import YamlEditError, read

MAX_ATTEMPTS = 16
"""Ten promotions racing for one branch were measured needing up to 7 tries each: 8 left
no margin (the step then failed although every push would have landed)."""


@dataclass(frozen=True)
class Identity:
    name: str = "promoflow"
    email: str = "promoflow@users.noreply.promoflow.dev"

    @classmethod
    def from_env(cls) -> Identity:
        return cls(
            os.environ.get("PROMOFLOW_GIT_AUTHOR_NAME") or cls.name,
            os.environ.get("PROMOFLOW_GIT_AUTHOR_EMAIL") or cls.email,
        )

    def signature(self) -> pygit2.Signature:
        return pygit2.Signature(self.name, self.email)


@dataclass
class PromoteResult:
    commit: str
    changed: bool
    files: list[str] = field(default_factory=list)
    attempts: int = 1
    branch: str = ""
    image: PromotedImage | None = None
    """The image the promoted file names (where the template says which one)."""
    rollback: str = ""
    """``HELD -> VERSION`` when this was a rollback to an older version, else empty."""
    notes: list[str] = field(default_factory=list)
    """What the step could not check (versions its order cannot compare), to say so."""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"commit": self.commit, "changed": self.changed, "files": self.files}
        if self.image is not None:
            out |= {"image": self.image.reference, "image_source": self.image.source}
        return out


@dataclass
class Plan:
    """The edit of one attempt: tree changes and the files they touch (for the message)."""

    changes: Changes
    files: list[str]
    source_commit: pygit2.Commit | None
    values: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(file, YAML path, old value, new value) of every edited value, for reviewers."""
    image: PromotedImage | None = None
    """The image the target file names once edited (or as it is, when nothing changed)."""
    rollback: str = ""
    """``HELD -> VERSION`` when a rollback writes an older version than the target held."""
    notes: list[str] = field(default_factory=list)


def _source(remote: GitRemote, request: PromoteRequest, tip: pygit2.Commit) -> pygit2.Commit:
    if request.source_commit:
        return remote.fetch_commit(request.source_commit)
    branch = request.source_branch or request.branch
    return tip if branch == request.branch else remote.fetch_branch(branch)


def plan(remote: GitRemote, request: PromoteRequest, tip: pygit2.Commit) -> Plan:
    """Compute the tree changes that promote ``request`` on top of ``tip``."""
    repo = remote.repo
    source_commit = None if request.is_trigger else _source(remote, request, tip)
    dirs = [(tip.tree_id, request.target_path)]
    if source_commit is not None:
        dirs.append((source_commit.tree_id, request.source_path or ""))
    remote.ensure_dirs(dirs)  # the two directories' trees, a request per level of them
    work = edits.Edit(remote, request, tip)
    source: dict[str, Entry] = {}
    if source_commit is not None:
        source_tree = subtree(repo, source_commit.tree, request.source_path or "")
        if source_tree is None:
            raise PromoteError(
                f"{request.source_path} not found in {request.source_environment} "
                f"at {str(source_commit.id)[:12]}"
            )
        source = list_files(repo, source_tree)
    needed = edits.needed_blobs(request, source, work.target)
    remote.ensure_blobs(needed)
    notes: list[str] = []
    rollback = _check_not_older(remote, work, request, source, notes)
    if request.is_trigger:
        edits.set_version(work, request)
        edits.check_next_source(work, request)
    else:
        edits.check_version(remote, request, source)
        for rule in request.files:
            if rule.whole_file:
                edits.copy_files(work, rule.file, source)
            elif rule.kustomize_image is not None:
                edits.copy_kustomize_image(remote, work, rule, rule.kustomize_image, source)
            else:
                edits.copy_values(remote, work, rule, source)
    files = sorted({p for p in work.changes})
    return Plan(
        work.changes, files, source_commit, work.values, edits.image_of(work), rollback, notes
    )


def _held(
    remote: GitRemote, entries: dict[str, Entry], base: str | None, request: PromoteRequest
) -> tuple[str, str] | None:
    """(version, file) written in ``entries``' version file, or None where it has none."""
    assert request.version_file and request.version_path
    entry = entries.get(request.version_file)
    if entry is None:
        return None
    name = edits.join(base, request.version_file)
    try:
        return str(read(edits.blob(remote, entry.oid), request.version_path, name).data), name
    except YamlEditError:
        return None


def _check_not_older(
    remote: GitRemote,
    work: edits.Edit,
    request: PromoteRequest,
    source: dict[str, Entry],
    notes: list[str],
) -> str:
    """Refuse to write a version older than the target holds: whatever started this
    promotion (a replayed webhook, a run that waited, two runs racing without the mutex),
    an environment never moves back unless the request says it is a rollback. Checked on
    every attempt, against the tip that attempt builds on, so the older of two racing
    promotions is refused once the newer one has landed. Returns ``HELD -> VERSION`` for a
    rollback that does move back, else empty."""
    if not request.version_file or not request.version_path:
        return ""
    promoted = request.version
    if not promoted and not request.is_trigger:
        found = _held(remote, source, request.source_path, request)
        promoted = found[0] if found else None
    held = _held(remote, work.target, request.target_path, request)
    if not promoted or held is None:
        return ""
    current, name = held
    order = request.order
    found_order = compare(current, promoted, order)
    if found_order is None:
        if order != "none":
            notes.append(
                f"{request.environment} holds {current} ({name}): the {order} order cannot "
                f"compare it with {promoted}, so whether this moves it back is not checked"
            )
        return ""
    if found_order <= 0:
        return ""
    if request.is_rollback:
        return f"{current} -> {promoted}"
    raise PromoteError(
        f"{request.environment} holds {current} ({name}), newer than {promoted} in the "
        f"{order} order: a promotion never moves an environment back (a replayed or late "
        "promotion); a deliberate downgrade is a rollback: promote again with --rollback true"
    )


def commit_message(request: PromoteRequest, result: Plan, template: str | None) -> str:
    source = result.source_commit
    text = message.render(
        {
            "product": request.product,
            "version": request.version or "",
            "environment": request.environment,
            "source_environment": request.source_environment or "",
            "source_commit": str(source.id) if source is not None else request.source_commit or "",
            "run": request.run or "",
            "requested_by": request.requested_by or "",
            "files": [f.removeprefix(edits.join(request.target_path) + "/") for f in result.files],
            "version_file": request.version_file or "",
            "version_path": request.version_path or "",
            "version_fields": sorted(request.field_values()) if request.is_trigger else [],
            "jira_keys": message.jira_keys([source.message] if source is not None else []),
            "rollback": result.rollback,
        },
        template,
    )
    # what history and rollback read: a team's template cannot leave it out
    trailers = [("Rollback", result.rollback), ("Rollback-Reason", request.rollback_reason or "")]
    trailers += [
        ("Promotion-Product", request.product),
        ("Promotion-Environment", request.environment),
        ("Promotion-Version", request.version or ""),
    ]
    if request.is_trigger:
        fields = request.field_values()
        trailers += [("Promotion-Field", f"{path}={fields[path]}") for path in sorted(fields)]
    return message.with_trailers(text, trailers)


def preview(remote: GitRemote, request: PromoteRequest) -> PromoteResult:
    """What :func:`attempt` would do now, doing nothing: the branch tip it would build on
    (the ``commit``), whether anything would change and which files."""
    tip = remote.fetch_branch(request.branch)
    edit_plan = plan(remote, request, tip)
    tree = write_tree(remote.repo, tip.tree, edit_plan.changes)
    changed = tree != tip.tree_id
    return PromoteResult(
        str(tip.id), changed, edit_plan.files if changed else [], branch=request.branch
    )


def refuse_unplanned(request: PromoteRequest, files: list[str]) -> PromoteError:
    """A change the plan did not see: the plan found nothing, so no approval was asked, and
    no commit may go out without the approval it would have needed."""
    listed = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return PromoteError(
        f"{request.environment} held the promoted values when the promotion was planned, so "
        f"no approval was asked; now {listed} would change (the branch moved since): nothing "
        "is committed without an approval, promote again"
    )


def attempt(
    remote: GitRemote,
    request: PromoteRequest,
    identity: Identity,
    template: str | None = None,
    branch: str | None = None,
    *,
    allow_changes: bool = True,
) -> PromoteResult:
    """One fetch-edit-commit-push round; raises PushRejected if the branch moved.
    ``allow_changes=False``: the plan said unchanged; a change now is refused."""
    target_branch = branch or request.branch
    tip = remote.fetch_branch(request.branch)
    edit_plan = plan(remote, request, tip)
    repo = remote.repo
    tree = write_tree(repo, tip.tree, edit_plan.changes)
    if tree == tip.tree_id:
        return PromoteResult(
            str(tip.id), False, [], branch=target_branch, image=edit_plan.image,
            notes=edit_plan.notes,
        )  # fmt: skip
    if not allow_changes:
        raise refuse_unplanned(request, edit_plan.files)
    sig = identity.signature()
    text = commit_message(request, edit_plan, template)
    oid = repo.create_commit(None, sig, sig, text, tree, [tip.id])
    remote.push(oid, target_branch, tip.id)
    if target_branch == request.branch:
        repo.references.create(f"refs/remotes/origin/{target_branch}", oid, force=True)
    return PromoteResult(
        str(oid), True, edit_plan.files, branch=target_branch, image=edit_plan.image,
        rollback=edit_plan.rollback, notes=edit_plan.notes,
    )  # fmt: skip


def promote(
    remote: GitRemote,
    request: PromoteRequest,
    identity: Identity | None = None,
    template: str | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    max_wait: float = 5.0,
    *,
    allow_changes: bool = True,
) -> PromoteResult:
    """Promote with retries on rejected pushes (fetch the new tip, re-apply, push again).
    ``allow_changes=False``: only confirm that nothing changes (see :func:`attempt`)."""
    identity = identity or Identity.from_env()
    retrying = Retrying(
        stop=stop_after_attempt(max_attempts),
        wait=wait_random_exponential(multiplier=0.1, max=max_wait),
        retry=retry_if_exception_type(PushRejected),
        reraise=False,
    )
    try:
        for n, try_ in enumerate(retrying, start=1):
            with try_:
                result = attempt(remote, request, identity, template, allow_changes=allow_changes)
                result.attempts = n
                return result
    except RetryError:
        raise PushRejected(
            f"push to {request.branch} was rejected {max_attempts} times: "
            "other promotions kept moving the branch; try again"
        ) from None
    raise AssertionError("unreachable")
