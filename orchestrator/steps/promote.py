"""The promote step: move a product's promoted values from one environment to the next.

One attempt reads the source environment's files at the pinned source commit, edits the
target environment's files (YAML paths in place, whole files by blob id), writes a new tree
and a commit whose parent is the branch tip just fetched, and pushes it. If the push is
rejected because another promotion got there first, the tip is fetched again and the same
edit is re-applied on top of it, with jittered backoff, a bounded number of times: never a
force push, never a lost commit. If the target already holds the promoted values, nothing
is committed and the current head is reported (the step is idempotent).
"""

from __future__ import annotations

import os
import re
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

from orchestrator import globs
from orchestrator.adapters.git import GitRemote, PushRejected
from orchestrator.adapters.gittree import Changes, Entry, list_files, subtree, write_tree
from orchestrator.errors import PromoflowError
from orchestrator.imagefile import image_in
from orchestrator.imagespec import ImageSpecError, PromotedImage
from orchestrator.model.paths import is_glob
from orchestrator.steps import kustomize_image, message
from orchestrator.steps.request import FileSpec, PromoteRequest
from orchestrator.versionorder import compare
from orchestrator.yamledit import Update, Value, YamlEditError, edit, read

MAX_ATTEMPTS = 16
"""Ten promotions racing for one branch were measured needing up to 7 tries each: 8 left
no margin (the step then failed although every push would have landed)."""


class PromoteError(PromoflowError):
    """The promotion cannot be done as asked (a terminal error: retrying will not help)."""


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


def _blob(remote: GitRemote, oid: pygit2.Oid) -> str:
    data = remote.repo[oid].peel(pygit2.Blob).data
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise PromoteError(f"file with id {oid} is not UTF-8 text") from None


def _join(*parts: str | None) -> str:
    return "/".join(p.strip("/") for p in parts if p and p.strip("/"))


class _Edit:
    """Collects the changes of one attempt against one target tip."""

    def __init__(self, remote: GitRemote, request: PromoteRequest, tip: pygit2.Commit) -> None:
        self.remote, self.request, self.tip = remote, request, tip
        repo = remote.repo
        self.target = list_files(repo, subtree(repo, tip.tree, request.target_path))
        self.changes: Changes = {}
        self.texts: dict[str, str] = {}
        self.values: list[tuple[str, str, str, str]] = []

    def target_path(self, rel: str) -> str:
        return _join(self.request.target_path, rel)

    def put(self, rel: str, entry: Entry | None) -> None:
        current = self.target.get(rel)
        if entry is None and current is None:
            return
        if entry is not None and current == entry:
            return
        self.changes[self.target_path(rel)] = entry

    def target_text(self, rel: str) -> str:
        if rel in self.texts:
            return self.texts[rel]
        entry = self.target.get(rel)
        if entry is None:
            raise PromoteError(
                f"{self.target_path(rel)} does not exist on {self.request.branch}: "
                "create it in the target environment first"
            )
        return _blob(self.remote, entry.oid)

    def set_text(self, rel: str, text: str) -> None:
        self.texts[rel] = text
        oid = self.remote.repo.create_blob(text.encode("utf-8"))
        mode = self.target[rel].mode if rel in self.target else pygit2.enums.FileMode.BLOB
        self.put(rel, Entry(oid, mode))


def _source(remote: GitRemote, request: PromoteRequest, tip: pygit2.Commit) -> pygit2.Commit:
    if request.source_commit:
        return remote.fetch_commit(request.source_commit)
    branch = request.source_branch or request.branch
    return tip if branch == request.branch else remote.fetch_branch(branch)


def plan(remote: GitRemote, request: PromoteRequest, tip: pygit2.Commit) -> Plan:
    """Compute the tree changes that promote ``request`` on top of ``tip``."""
    repo = remote.repo
    work = _Edit(remote, request, tip)
    source_commit = None if request.is_trigger else _source(remote, request, tip)
    source: dict[str, Entry] = {}
    if source_commit is not None:
        source_tree = subtree(repo, source_commit.tree, request.source_path or "")
        if source_tree is None:
            raise PromoteError(
                f"{request.source_path} not found in {request.source_environment} "
                f"at {str(source_commit.id)[:12]}"
            )
        source = list_files(repo, source_tree)
    needed = _needed_blobs(request, source, work.target)
    remote.ensure_blobs(needed)
    notes: list[str] = []
    rollback = _check_not_older(remote, work, request, source, notes)
    if request.is_trigger:
        _set_version(work, request)
        _check_next_source(work, request)
    else:
        _check_version(remote, request, source)
        for rule in request.files:
            if rule.whole_file:
                _copy_files(work, rule.file, source)
            elif rule.kustomize_image is not None:
                _copy_kustomize_image(remote, work, rule, rule.kustomize_image, source)
            else:
                _copy_values(remote, work, rule, source)
    files = sorted({p for p in work.changes})
    return Plan(work.changes, files, source_commit, work.values, _image(work), rollback, notes)


def _held(
    remote: GitRemote, entries: dict[str, Entry], base: str | None, request: PromoteRequest
) -> tuple[str, str] | None:
    """(version, file) written in ``entries``' version file, or None where it has none."""
    assert request.version_file and request.version_path
    entry = entries.get(request.version_file)
    if entry is None:
        return None
    name = _join(base, request.version_file)
    try:
        return str(read(_blob(remote, entry.oid), request.version_path, name).data), name
    except YamlEditError:
        return None


def _check_not_older(
    remote: GitRemote,
    work: _Edit,
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


def _image(work: _Edit) -> PromotedImage | None:
    """The image the template names, read from its file as the promotion leaves it."""
    spec = work.request.image_spec()
    if spec is None:
        return None
    text = _final_text(work, spec.file)
    name = work.target_path(spec.file)
    if text is None:
        raise PromoteError(
            f"{name} does not exist on {work.request.branch}: the template reads its image "
            f"from {spec.file}"
        )
    try:
        return image_in(spec, text, name)
    except ImageSpecError as exc:
        raise PromoteError(str(exc)) from None


def _final_text(work: _Edit, rel: str) -> str | None:
    """A target file as this promotion leaves it: edited, copied, deleted or untouched."""
    if rel in work.texts:
        return work.texts[rel]
    path = work.target_path(rel)
    if path in work.changes:
        entry = work.changes[path]
        return None if entry is None else _blob(work.remote, entry.oid)
    current = work.target.get(rel)
    return None if current is None else _blob(work.remote, current.oid)


def _needed_blobs(
    request: PromoteRequest, source: dict[str, Entry], target: dict[str, Entry]
) -> list[pygit2.Oid]:
    """Every blob this promotion reads or copies: fetched in one request."""
    names: set[str] = set()
    for rule in request.files:
        if rule.whole_file:
            names.update(p for p in source if globs.match(rule.file, p))
        else:
            names.add(rule.file)
    if request.version_file:
        names.add(request.version_file)
    spec = request.image_spec()
    if spec is not None:
        names.add(spec.file)
    wanted = [source[n].oid for n in names if n in source]
    wanted += [target[n].oid for n in names if n in target and not _whole(request, n)]
    return wanted


def _whole(request: PromoteRequest, name: str) -> bool:
    return any(r.whole_file and globs.match(r.file, name) for r in request.files)


def _set_version(work: _Edit, request: PromoteRequest) -> None:
    if not request.version:
        raise PromoteError("the trigger environment needs --version (the version to promote)")
    if not request.version_file or not request.version_path:
        raise PromoteError(
            f"template of {request.product} has no versionSource: cannot set a version"
        )
    fields = request.field_values()
    missing = [p for p in request.required_fields() if not fields.get(p)]
    if missing:  # a tag without its digest would deploy something other than it names
        raise PromoteError(
            f"a version of {request.product} comes with {', '.join(missing)}: give each "
            f"value with the version (promoflow promote --set {missing[0]}=VALUE)"
        )
    rel = request.version_file
    text = work.target_text(rel)
    name = work.target_path(rel)
    updates: dict[str, Update] = {request.version_path: Value(request.version)}
    create: set[str] = set()
    if request.version_kustomize_image:
        updates, create = kustomize_image.version_updates(
            request.version_kustomize_image, request.version, fields
        )
    updates.update({path: Value(value) for path, value in fields.items()})
    _apply(work, rel, text, name, updates, create)


def _apply(
    work: _Edit, rel: str, text: str, name: str, updates: dict[str, Update], create: set[str]
) -> None:
    """Edit ``rel`` (text ``text``, shown as ``name``) and record every changed value."""
    try:
        before = {path: _scalar_text(text, path, name) for path in updates}
        new = edit(text, updates, name, create=create)
    except YamlEditError as exc:
        raise PromoteError(str(exc)) from None
    if new == text:
        return
    work.set_text(rel, new)
    for path, value in updates.items():
        after = "(absent)" if value is None else str(value.data)
        if before[path] != after:
            work.values.append((rel, path, before[path], after))


def _check_next_source(work: _Edit, request: PromoteRequest) -> None:
    """The trigger environment is where the next promotion reads from: a path its files
    lack (a typo in the template) would stop that promotion after this one was pushed, so
    it stops this one, before anything is pushed."""
    for rule in request.files:
        if rule.whole_file:
            if not is_glob(rule.file) and rule.file not in work.target:
                raise PromoteError(
                    f"{work.target_path(rule.file)} does not exist on {request.branch}"
                )
            continue
        text, name = work.target_text(rule.file), work.target_path(rule.file)
        wanted = rule.paths or (kustomize_image.path(rule.kustomize_image or ""),)
        try:
            for path in wanted:
                read(text, path, name)
        except YamlEditError as exc:
            raise PromoteError(str(exc)) from None


def _scalar_text(text: str, path: str, name: str) -> str:
    try:
        return str(read(text, path, name).data)
    except YamlEditError:
        return "(absent)"


def _check_version(remote: GitRemote, request: PromoteRequest, source: dict[str, Entry]) -> None:
    """Refuse to promote from an environment that does not hold the requested version."""
    if not request.version or not request.version_file or not request.version_path:
        return
    entry = source.get(request.version_file)
    if entry is None:
        return
    name = _join(request.source_path, request.version_file)
    try:
        held = read(_blob(remote, entry.oid), request.version_path, name).data
    except YamlEditError as exc:
        raise PromoteError(str(exc)) from None
    if str(held) != request.version:
        raise PromoteError(
            f"{request.source_environment} holds version {held} ({name}), not "
            f"{request.version}: promote {request.version} into it first"
        )


def _copy_files(work: _Edit, pattern: str, source: dict[str, Entry]) -> None:
    matched = {p: e for p, e in source.items() if globs.match(pattern, p)}
    if not matched and not is_glob(pattern):
        raise PromoteError(
            f"{_join(work.request.source_path, pattern)} not found in "
            f"{work.request.source_environment}"
        )
    for rel, entry in matched.items():
        work.put(rel, entry)
    for rel in [p for p in work.target if globs.match(pattern, p) and p not in matched]:
        work.put(rel, None)  # deleted in the source, so deleted in the target


def _source_text(remote: GitRemote, work: _Edit, file: str, source: dict[str, Entry]) -> str:
    entry = source.get(file)
    if entry is None:
        name = _join(work.request.source_path, file)
        raise PromoteError(f"{name} not found in {work.request.source_environment}")
    return _blob(remote, entry.oid)


def _copy_values(remote: GitRemote, work: _Edit, rule: FileSpec, source: dict[str, Entry]) -> None:
    """The rule's paths, read from the source file and written into the target file: each
    must exist in both (a typo is refused, naming the nearest path), unless the rule may
    create them in the target."""
    source_text = _source_text(remote, work, rule.file, source)
    source_name = _join(work.request.source_path, rule.file)
    try:
        values: dict[str, Update] = {p: read(source_text, p, source_name) for p in rule.paths}
    except YamlEditError as exc:
        raise PromoteError(str(exc)) from None
    create = set(rule.paths) if rule.create else set()
    text = work.target_text(rule.file)
    _apply(work, rule.file, text, work.target_path(rule.file), values, create)


def _copy_kustomize_image(
    remote: GitRemote, work: _Edit, rule: FileSpec, image: str, source: dict[str, Entry]
) -> None:
    """The source's version of Kustomize image ``image`` (its newTag or digest), written
    into the target's entry of that name, which is added when missing."""
    source_text = _source_text(remote, work, rule.file, source)
    text = work.target_text(rule.file)
    target_name = work.target_path(rule.file)
    try:
        updates, create = kustomize_image.copy_updates(
            source_text, text, image, _join(work.request.source_path, rule.file), target_name
        )
    except YamlEditError as exc:
        raise PromoteError(str(exc)) from None
    _apply(work, rule.file, text, target_name, updates, create)


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
            "files": [f.removeprefix(_join(request.target_path) + "/") for f in result.files],
            "version_file": request.version_file or "",
            "version_path": request.version_path or "",
            "version_fields": sorted(request.field_values()) if request.is_trigger else [],
            "jira_keys": message.jira_keys([source.message] if source is not None else []),
            "rollback": result.rollback,
        },
        template,
    )
    if result.rollback and not re.search(r"^Rollback:", text, re.MULTILINE):
        text += f"\nRollback: {result.rollback}\n"  # a team's template cannot hide it
    return text


def preview(remote: GitRemote, request: PromoteRequest) -> PromoteResult:
    """What :func:`attempt` would do now, doing nothing: the branch tip it would build on
    (the ``commit``), whether anything would change and which files."""
    tip = remote.fetch_branch(request.branch)
    edit_plan = plan(remote, request, tip)
    tree = write_tree(remote.repo, tip.tree, edit_plan.changes)
    changed = tree != tip.tree.id
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
    if tree == tip.tree.id:
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
